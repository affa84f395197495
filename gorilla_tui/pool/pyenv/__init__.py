"""The python-env source: API docs of the standard library and installed distributions (tree-sitter)."""

#: Source name of every doc the python-env loader makes (the manifest index/python-env.toml has the same
#: name). Here, not in source.py, so the validator reads it without importing the loader (issue 20).
SOURCE = "python-env"

#: Python's own signature separators (PEP 570, PEP 3102), kept as api_arguments keys (value "") of python-env
#: docs where the signature has them: "/" after the positional-only parameters (``len(obj, /)``), "*" before
#: keyword-only ones that no ``*args`` precedes (``json.loads(s, *, cls=None, ...)``). pool/pyenv/names.py
#: writes them; check/imports.py argument_errors binds a call by them.
POSITIONAL_ONLY_MARK = "/"
KEYWORD_ONLY_MARK = "*"
