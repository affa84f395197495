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
compiled in C has no source to read and gets nothing, but for the builtins (``open``), whose text the
running interpreter holds (``builtins.open.__doc__``; nothing is imported to read it).

A docstring may list the values in a table instead, a quoted value then its meaning on each line (open's
"'a'  open for writing, appending to the end of the file if it exists"): a task names such a value by the
action of its meaning no other row has ("open notes.txt in append mode": 'a'; break-it round 29, F14: the
mode was dropped), among the values the type stub lists for the parameter (pool/stub_literals.py: open's
table has 'b', "binary mode", and '+', which no overload takes alone).
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import functools
import re

from gorilla_tui.fill.call_grammar import TaskValues
from gorilla_tui.fill.candidate import literal
from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.params import Param
from gorilla_tui.pool.pyenv.binds import module_file
from gorilla_tui.pool.stub_literals import literal_values

#: Largest source file read for a docstring (bytes): the standard library's largest module is ~0.3 MB.
MAX_SOURCE_BYTES = 2_000_000
#: Fewest characters of a listed value the task can name (with_documented).
MIN_NAMED_CHARS = 3
#: The words after which a sentence that names a parameter lists its values: "one of", "either".
_LISTS = re.compile(r"\b(?:one of|either|valid (?:options|values) are)\b", re.IGNORECASE)
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
    module's source file (the longest dotted prefix that is a module); a class's own, else its __init__'s;
    a builtin's (no dot: "open") from the running interpreter. "" when there is none to read."""
    parts = api_name.split(".")
    if len(parts) == 1:  # a builtin: the running interpreter's own text (open, sorted)
        found = getattr(builtins, api_name, None)
        text = getattr(found, "__doc__", None) if callable(found) else None
        return text if isinstance(text, str) else ""
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
    or "valid options are" in a sentence that names the parameter in quotes ('format', "format", `format`),
    as "argument NAME" ("The optional argument timespec ... Valid options are 'auto', 'hours', ...": the
    sentence of valid options goes with the one before it) or starts with its name and a colon ("mode: The
    mode can be either read 'r', write 'w', ..."), in their order, each once. () when no sentence does."""
    named = re.compile(rf"""(["'`]){re.escape(name)}\1|^{re.escape(name)}:|\bargument {re.escape(name)}\b""")
    out: list[str] = []
    # a sentence that lists the valid values names the parameter of the sentence before it: datetime's
    # "The optional argument timespec specifies ... Valid options are 'auto', 'hours', ..."
    text = re.sub(r"\.\s+(?=Valid (?:options|values) are\b)", ": ", text)
    for sentence in re.split(r"(?<=[.;])\s+(?=[A-Z'\"`])|\n\s*\n|\n(?=\s*\w+:)", text):
        sentence = " ".join(sentence.split())
        for m in named.finditer(sentence):
            lists = _LISTS.search(sentence, m.end())
            if lists is None:
                continue
            out += [v for _q, v in _QUOTED.findall(sentence[lists.end() :]) if v != name and v not in out]
    return tuple(out)


#: A row of a docstring's table of values: a quoted value of 1 to 3 characters, two or more spaces, what it
#: means (open's "'a'       open for writing, appending to the end of the file if it exists").
_ROW = re.compile(r"""^[ \t]*(["'])([\w+]{1,3})\1[ \t]{2,}(\S.*)$""", re.MULTILINE)
#: Characters of a docstring before its table in which the parameter must be named.
TABLE_LEAD_CHARS = 600
#: Fewest letters of an action's stem ("read" of "reading").
MIN_STEM_CHARS = 4


def table_values(text: str, name: str) -> dict[str, str]:
    """value -> meaning of each row of the table of values in docstring `text` (_ROW), when the text just
    before its first row (TABLE_LEAD_CHARS) names parameter `name` as a word ("mode is an optional string
    ... The available modes are:"); {} when there is no such table."""
    rows = list(_ROW.finditer(text))
    if not rows or not re.search(rf"\b{re.escape(name)}\b", text[max(0, rows[0].start() - TABLE_LEAD_CHARS) :
                                                                   rows[0].start()]):  # fmt: skip
        return {}
    return {m.group(2): m.group(3) for m in rows}


def _actions(text: str) -> set[str]:
    """The stems of the words of `text` that name an action, in -ing ("appending" -> "append"), at least
    MIN_STEM_CHARS letters."""
    return {w[:-3] for w in re.findall(r"[a-z]+ing\b", text.lower()) if len(w) - 3 >= MIN_STEM_CHARS}


def named_rows(rows: dict[str, str], task: str) -> tuple[str, ...]:
    """The values of table `rows` (table_values) the task names: a word of the task that begins with the
    action (a word in -ing, _actions) of one row's meaning only: "append" names 'a', "open for writing,
    appending to the end of the file if it exists"; "write" names none (writing is 'w', 'x' and 'a''s).
    Other words of a meaning name nothing ("read the first line" is no 'w', "truncating the file first")."""
    actions = {value: _actions(text) for value, text in rows.items()}
    out: list[str] = []
    for word in re.findall(r"[a-z]+", task.lower()):
        having = [v for v, stems in actions.items() if any(word.startswith(stem) for stem in stems)]
        if len(having) == 1 and having[0] not in out:
            out.append(having[0])
    return tuple(out)


def _extensions_of(node: ast.AST) -> list[str]:
    """The file extensions a registry entry's value starts with: ``(['.tar.gz', '.tgz'], ...)`` ->
    ['tar.gz', 'tgz'] (lower case, the dot left off); [] for any other value."""
    if isinstance(node, (ast.Tuple, ast.List)) and node.elts:
        node = node.elts[0]
    if not isinstance(node, ast.List) or not node.elts:
        return []
    texts = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    if len(texts) != len(node.elts) or not all(re.fullmatch(r"\.\w+(?:\.\w+)*", t) for t in texts):
        return []
    return [t[1:].lower() for t in texts]


@functools.lru_cache(maxsize=64)
def extension_values(module: str) -> dict[str, str]:
    """File extension -> the value `module`'s source binds it to in a registry of formats: a dict entry or
    item assignment whose key is a string and whose value starts with a list of extensions (shutil's
    ``_UNPACK_FORMATS['gztar'] = (['.tar.gz', '.tgz'], ...)``, by which unpack_archive "will use the
    filename extension" to find the format, as its docstring says): {'tar.gz': 'gztar', 'tgz': 'gztar',
    ...}; {} for a module with none or no source (read with ast, as _module_tree)."""
    tree = _module_tree(module)
    out: dict[str, str] = {}
    for node in ast.walk(tree) if tree is not None else ():
        pairs: list[tuple[ast.AST | None, ast.AST]] = []
        if isinstance(node, ast.Dict):
            pairs = list(zip(node.keys, node.values, strict=True))
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript):
            pairs = [(node.targets[0].slice, node.value)]  # _UNPACK_FORMATS['gztar'] = (['.tar.gz'], ...)
        for key, value in pairs:
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                for ext in _extensions_of(value):
                    out.setdefault(ext, key.value)
    return out


def _named_extensions(module: str, listed: tuple[str, ...], task: str) -> tuple[str, ...]:
    """The `listed` values whose file extension (extension_values of `module`) the task writes as a word
    ("a tar.gz archive", ".tgz"): 'gztar' (break-it round 29, F3: "a tar.gz archive" gave the format 'tar'
    and a second call for 'tar.gz')."""
    out: list[str] = []
    exts = extension_values(module)
    for ext in sorted(exts, key=len, reverse=True):  # tar.gz before tar
        if exts[ext] in listed and exts[ext] not in out:
            # "tar.gz" as a word, not a file's name ("unpack x.tar.gz": its own extension says the format),
            # nor the "tar" of "tar.gz" (a longer extension)
            written = rf"(?<![\w.-])\.?{re.escape(ext)}(?![\w-]|\.\w)"
            if re.search(written, task, re.IGNORECASE):
                out.append(exts[ext])
    return tuple(out)


def without_extensions(doc: ApiDoc, params: list[Param], values: TaskValues) -> TaskValues:
    """`values` without the strings that are a file extension as a word ("a tar.gz archive": 'tar.gz',
    '.tgz') which named the documented value of one of `params` (with_documented: format 'gztar'): the
    format's words, no file name for another parameter (break-it round 29, F3: a second call
    ``make_archive('tar.gz', ...)``)."""
    if doc.source != "python-env":
        return values
    exts = extension_values(doc.api_name.rpartition(".")[0])
    spent = {ext for ext, value in exts.items() if any(value in p.enum for p in params)}
    if not spent:
        return values
    kept = [c for c in values.strings
            if not (isinstance(c.value, str) and c.value.lower().lstrip(".") in spent)]  # fmt: skip
    return dataclasses.replace(values, strings=kept)


def with_documented(doc: ApiDoc, params: list[Param], task: str) -> list[Param]:
    """`params` of python-env `doc` with the values each one's docstring lists (documented_values of
    docstring(doc.api_name)) that `task` names as a whole word ("zip up the folder photos": 'zip') as its
    enum; a parameter with an enum, or whose listed values the task does not name, is kept as it is. A value
    of fewer than MIN_NAMED_CHARS characters is never named: zipfile.ZipFile's mode 'a' (append) is the
    article of "make a zip", and nobody writes 'r' for reading. A value of the docstring's table of values
    is named by a word of its meaning instead (named_rows), if the stub lists it (literal_values). The
    parameter's default is never named: it applies without an argument; an optional parameter whose
    listed values the task does not name gets its default as its one enum member, which no call writes."""
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
        named = named or _named_extensions(doc.api_name.rpartition(".")[0], listed, task)
        if not named and not p.enum and (rows := table_values(text, p.name)):  # open's table of modes
            taken = literal_values(doc.api_name, p.name)  # the rows the stub lists: no 'b' or '+' alone
            named = named_rows({v: m for v, m in rows.items() if v in taken}, task)
        # the default needs no argument: "read the file notes.txt" is open('notes.txt'), not (..., 'r')
        named = tuple(v for v in named if not (p.has_default and p.default == v))
        # a value the task names is asked for: given, not left to the model ("in append mode")
        if named:
            p = dataclasses.replace(p, enum=named, type="string", required=True)
        elif not p.required and p.has_default and p.default in listed:
            # the task names none of the valid values: the default applies, no word of the task is one
            # ("the current time": isoformat's timespec is no 'time'; fill/call_grammar.py slots)
            p = dataclasses.replace(p, enum=(p.default,))
        out.append(p)
    return out


#: A docstring's words by which a parameter names its file without the extension (shutil.make_archive's
#: "'base_name' is the name of the file to create, minus any format-specific extension").
_MINUS_EXTENSION = re.compile(
    r"\b(?:minus|without)\s+(?:any\s+|the\s+|its\s+)?(?:format-specific\s+|file\s+)?extension", re.IGNORECASE
)


def _minus_extension(text: str, name: str) -> bool:
    """Whether a sentence of docstring `text` names parameter `name` in quotes and says its file goes
    without its extension (_MINUS_EXTENSION)."""
    named = re.compile(rf"""(["'`]){re.escape(name)}\1""")
    return any(
        named.search(s) and _MINUS_EXTENSION.search(s)
        for s in re.split(r"(?<=[.;])\s+", " ".join(text.split()))
    )


def minus_extension(doc: ApiDoc, params: list[Param], values: TaskValues) -> tuple[list[Param], TaskValues]:
    """`params` and `values` of python-env `doc` when its docstring gives a parameter's file name without
    its extension (_minus_extension: ``shutil.make_archive(base_name, format)``): each file name the task
    writes with an extension of the module's registry of formats (extension_values) is its stem ("zip the
    folder reports into reports.zip": base_name 'reports'; make_archive adds '.zip', so 'reports.zip' made
    reports.zip.zip), and the format that extension names is the value of the parameter whose docstring
    lists it (format 'zip'; 'logs.tar.gz' gives 'gztar'), unless the task names one (with_documented).
    Unchanged for any other doc."""
    if doc.source != "python-env" or not params:
        return params, values
    text = docstring(doc.api_name)
    if not any(_minus_extension(text, p.name) for p in params):
        return params, values
    exts = sorted(extension_values(doc.api_name.rpartition(".")[0]).items(), key=lambda e: -len(e[0]))
    strings, formats = [], []
    for c in values.strings:
        value = c.value if isinstance(c.value, str) and c.atomic else ""
        ext = next(
            ((e, f) for e, f in exts if value.lower().endswith(f".{e}") and len(value) > len(e) + 1), None
        )
        if ext is None:
            strings.append(c)
            continue
        stem = value[: -len(ext[0]) - 1]
        strings.append(dataclasses.replace(c, text=literal(stem), value=stem))
        formats.append(ext[1])
    if not formats:
        return params, values
    lists = [not p.enum and formats[0] in documented_values(text, p.name) for p in params]
    params = [dataclasses.replace(p, enum=(formats[0],), type="string", required=True) if named else p
              for p, named in zip(params, lists, strict=True)]  # fmt: skip
    return params, dataclasses.replace(values, strings=strings)
