"""The python-env source: API docs of the standard library and installed distributions (tree-sitter)."""
