"""The python-env source: API docs of the standard library and installed distributions (tree-sitter)."""

#: Source name of every doc the python-env loader makes (the manifest index/python-env.toml has the same
#: name). Here, not in source.py, so the validator reads it without importing the loader (issue 20).
SOURCE = "python-env"
