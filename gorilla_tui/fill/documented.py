"""The values a standard-library parameter's docstring lists for it, offered where the task names one.

A python-env doc's parameters carry no enum: its api_arguments hold names and defaults only. But the
docstring often lists the strings a parameter takes: ``shutil.make_archive``'s "'format' is the archive
format: one of "zip", "tar", "gztar", "bztar", or "xztar"". "make a zip archive of the folder photos" then
left format as a placeholder, though the task names one of them. `with_documented` gives such a parameter
the listed values the task names as words for its enum, so filling offers them (fill/call_grammar.py
values_for: an enum's members; fill/spoken.py mentioned: an optional one the task names is offered); a
task that names none of them changes nothing, so no value is ever chosen that the task does not say.

The docstring is read from the module's source file with ast, never imported or run (as pool/pyenv reads
the environment), for the standard library's pure-Python modules only (sys.stdlib_module_names); a module
compiled in C has no source to read and gets nothing.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import re

from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.params import Param
from gorilla_tui.pool.pyenv.binds import module_file

#: Largest source file read for a docstring (bytes): the standard library's largest module is ~0.3 MB.
MAX_SOURCE_BYTES = 2_000_000
#: Fewest characters of a listed value the task can name (with_documented).
MIN_NAMED_CHARS = 3
#: The words after which a sentence that names a parameter lists its values: "one of", "either".
_LISTS = re.compile(r"\b(?:one of|either)\b", re.IGNORECASE)
#: A value listed in quotes: "zip", 'tar' (a word of letters, digits, - and _).
_QUOTED = re.compile(r"""(["'])([\w-]{1,20})\1""")


@functools.lru_cache(maxsize=64)
def _module_tree(module: str) -> ast.Module | None:
    """The parsed source of standard-library module `module` (its file as pool/pyenv finds it, binds.py
    module_file), or None (not the standard library, compiled, unreadable, too big, or not Python 3)."""
    path = module_file(module)
    if path is None:
        return None
    try:
        if path.stat().st_size > MAX_SOURCE_BYTES:
            return None
        return ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _member(tree: ast.AST, names: list[str]) -> ast.AST | None:
    """The function or class `names` (a dotted path, split) defined at the top of `tree` or in its classes."""
    node: ast.AST | None = tree
    for name in names:
        body = getattr(node, "body", None) or []
        node = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                     and n.name == name), None)  # fmt: skip
        if node is None:
            return None
    return node


@functools.lru_cache(maxsize=512)
def docstring(api_name: str) -> str:
    """The docstring of standard-library function or class `api_name` ("shutil.make_archive"), read from its
    module's source file (the longest dotted prefix that is a module); a class's own, else its __init__'s.
    "" when there is none to read."""
    parts = api_name.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        tree = _module_tree(".".join(parts[:cut]))
        if tree is None:
            continue
        node = _member(tree, parts[cut:])
        if node is None:
            return ""
        text = ast.get_docstring(node) or ""  # type: ignore[arg-type]
        if not text and isinstance(node, ast.ClassDef):
            init = _member(node, ["__init__"])
            text = (ast.get_docstring(init) or "") if init is not None else ""  # type: ignore[arg-type]
        return text
    return ""


def documented_values(text: str, name: str) -> tuple[str, ...]:
    """The strings docstring `text` lists for parameter `name`: the quoted words after "one of" or "either"
    in a sentence that names the parameter in quotes ('format', "format", `format`) or starts with its name
    and a colon ("mode: The mode can be either read 'r', write 'w', ..."), in their order, each once. ()
    when no sentence does."""
    named = re.compile(rf"""(["'`]){re.escape(name)}\1|^{re.escape(name)}:""")
    out: list[str] = []
    for sentence in re.split(r"(?<=[.;])\s+(?=[A-Z'\"`])|\n\s*\n|\n(?=\s*\w+:)", text):
        sentence = " ".join(sentence.split())
        for m in named.finditer(sentence):
            lists = _LISTS.search(sentence, m.end())
            if lists is None:
                continue
            out += [v for _q, v in _QUOTED.findall(sentence[lists.end() :]) if v != name and v not in out]
    return tuple(out)


def with_documented(doc: ApiDoc, params: list[Param], task: str) -> list[Param]:
    """`params` of python-env `doc` with the values each one's docstring lists (documented_values of
    docstring(doc.api_name)) that `task` names as a whole word ("zip up the folder photos": 'zip') as its
    enum; a parameter with an enum, or whose listed values the task does not name, is kept as it is. A value
    of fewer than MIN_NAMED_CHARS characters is never named: zipfile.ZipFile's mode 'a' (append) is the
    article of "make a zip", and nobody writes 'r' for reading."""
    if doc.source != "python-env" or not params:
        return params
    text = docstring(doc.api_name)
    if not text:
        return params
    # a whole word, not a part of a file name or a path ("a tar.gz archive" names no 'tar': break-it round
    # 29, F3, it gave make_archive(..., 'tar'), a .tar, and a second call for 'tar.gz')
    words = set(re.findall(r"(?<![\w./-])[\w-]+(?![\w-]|[./]\w)", task.lower()))
    out = []
    for p in params:
        listed = () if p.enum else documented_values(text, p.name)
        named = tuple(v for v in listed if len(v) >= MIN_NAMED_CHARS and v.lower() in words)
        out.append(dataclasses.replace(p, enum=named, type="string") if named else p)
    return out
