"""Building an index: plan a refresh, load the sources, embed the docs, publish the new version; the
first launch and the previous index it reuses (issue 41)."""
