"""The on-disk index: versioned folders and the CURRENT pointer, the docs, postings, prior, performance
table and the dense-vector cache (issue 41)."""
