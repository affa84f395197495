"""The parameters of a pool entry that take a FILE OBJECT, told from the entry's own description, and the
mode such a file is opened in: `file_params`.

``json.load(fp)``: "Deserialize ``fp`` (a ``.read()``-supporting file-like object containing a JSON
document) to a Python object" -- a path passed to it fails when run (``json.load('config.json')``:
AttributeError: 'str' object has no attribute 'read'). Filling writes such a parameter's path as
``open(path)`` (fill/file_objects.py) and the checker refuses a string literal there (check/file_args.py).

python-env's docs hold no parameter types (api_arguments: name -> default), only the docstring's first
paragraph, so the rule reads that text (issue 37):

- a parameter named beside a file-object phrase (FILE_OBJECT: "file-like object", "file object", "binary
  file", "the open file", ".read()-supporting"): after it through a copula (``fp`` (a ... file-like object;
  'fp' should be a readable and binary file object; input and output are binary files), or right after the
  phrase (file-like object fsrc, the file object f);
- else, a description that speaks of a file object (not one it returns: "Return a file-like object") and a
  required parameter whose name says file (fp, f, fileobj, file; not filename or path), the only one;
- a parameter the signature itself names for a file object (fp, fh, fobj, fileobj: csv.writer(fileobj),
  tarfile.TarFile.open(fileobj=None), email.message_from_file(fp)), whatever the text says;
- never where the text lets a path or a string stand in ("Filename string or file object", "by filename
  or file object": xml.dom.minidom.parse, nntplib) nor for a parameter a source gives a type (a schema's
  "string" is a string).

The mode: written ("w") when the text says write/writable/.write()/output near the parameter (and not
read as well: "for reading, writing or appending"), or "to" right before it, or its name says
dst/dest/out, or the API's name says dump/write/save; read ("r") otherwise; binary ("b") when the
description says binary, bytes, hash, digest, archive or compress (file_digest, tomllib.load,
plistlib.load, tarfile: binary readers). A doc whose
description says nothing of a file object and no parameter named for one has none (pickle.load's
description is empty in the pool, csv.reader's is its usage line: neither is found).

A python-env doc (the standard library) whose description finds none is read from typeshed's stubs
instead (pool/stub_cache.py stub_files, cached per module on disk so `check` can afford it): a parameter
every overload types as a file object alone (``pickle.load(file: _ReadableFileobj)``: its description,
"Read and return an object from the pickle data stored in a file.", names none) or as a text file's lines
(``csv.reader(iterable: Iterable[str], /, dialect=...)``, ``csv.DictReader(f: Iterable[str])``), matched by
name, else by position; only a parameter of no stated type. Where the stub says no direction (``IO[str]``:
``pprint.pprint(object, stream)``), the description's rule above tells it ("Pretty-print ... to a stream").

`file_params` is the one rule: filling opens the task's path there (fill/file_objects.py) and `check`
refuses a string literal there (check/file_args.py); `open_call` writes the call that opens the file,
with ``newline=''`` for the csv module (its docs: "If csvfile is a file object, it should be opened with
newline=''").
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.params import params_of
from gorilla_tui.pool.pyenv import SOURCE as PYENV
from gorilla_tui.pool.stub_cache import stub_files

#: A file object as docstrings say it.
FILE_OBJECT = (
    r"(?:\.(?:read|write)\(\)-supporting\s+)?file(?:-like)?\s+objects?\b|\bfile-like\b|\bbinary\s+files?\b"
    r"|\b(?:the|an)\s+open\s+file\b"
)
_PHRASE = re.compile(FILE_OBJECT, re.IGNORECASE)
#: Between a parameter's name and the phrase: a copula or an opening parenthesis, at most 8 words.
_COPULA = re.compile(r"^\s*\(|\b(?:is|are|should\s+be|must\s+be|be)\b", re.IGNORECASE)
#: Text that lets a path or a string stand in for the file object.
_OR_PATH = re.compile(r"\b(?:file\s*names?|path\w*|strings?|str)\b[^.]{0,40}\bor\b|\bor\s+(?:an?\s+)?"
                      r"(?:file\s*names?|path\w*|strings?)\b", re.IGNORECASE)  # fmt: skip
#: A file object the function gives back, not one it takes.
_RETURNED = re.compile(
    r"\b(?:return(?:s|ing|ed)?|as|providing|simulates?|obtain)\b[^.]{0,40}$", re.IGNORECASE
)
#: A parameter name that says file (the unnamed case): fp, f, fh, file, fileobj, fobj, stream.
_FILE_NAME = re.compile(r"^(?:f|fp|fh|fd?obj|file(?:obj)?|stream)\d?$", re.IGNORECASE)
_WRITE = re.compile(r"\.write\(\)|\bwrit(?:e|es|ing|able|eable)\b|\boutput\b", re.IGNORECASE)
_READ = re.compile(r"\bread(?:s|ing|able)?\b", re.IGNORECASE)
_WRITE_NAME = re.compile(r"dst|dest|out|err", re.IGNORECASE)
_BINARY = re.compile(r"\bbinary\b|\bbytes?\b|\bhash\w*|\bdigest\b|\barchives?\b|compress", re.IGNORECASE)
#: A parameter named for a file object by the signature itself: fp, fh, fobj, fileobj, file_obj.
_OBJECT_NAME = re.compile(r"^(?:f[ph]|fobj|file_?obj)$", re.IGNORECASE)
#: An API whose name says it writes its file: json.dump, csv.writer, configparser's write.
_API_WRITE = re.compile(r"writ|dump|save|print|show", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
#: A string written like a file's path: a slash, or a file name's extension at its end.
PATH_SHAPED = re.compile(r"[/\\]|\.[A-Za-z]\w{0,7}$")


def file_params(doc: ApiDoc) -> dict[str, str]:
    """Parameter name -> the mode to open its file in ("r", "rb", "w", "wb") for each parameter of `doc`
    that takes a file object or a text file's lines (the rule in this module's docstring: the description,
    else a python-env doc's type stub); {} for most docs. The description's rule is cached per
    description, API name and parameters, the stubs' per function (pool/stub_cache.py)."""
    text = doc.description
    named = any(_OBJECT_NAME.match(n) for n in doc.api_arguments)
    if "file" not in text.lower() and not named and doc.source != PYENV:
        return {}
    params = tuple(
        _Shape(p.name, p.type == "any" and not p.raw_type, p.required, p.kind in ("positional", "posonly"))
        for p in params_of(doc)
        if p.kind not in ("var", "varkw")
    )
    api = doc.api_name.rsplit(".", 1)[-1]
    text = " ".join(text.split())
    found = dict(_file_params(text, params, api)) if "file" in text.lower() or named else {}
    if doc.source != PYENV:
        return found
    positional = [p for p in params if p.positional]
    described = bool(found)
    for at, name, mode in stub_files(doc.api_name):
        p = next((q for q in params if q.name == name), None)
        p = p or (positional[at] if 0 <= at < len(positional) else None)
        if p is None:
            continue
        if described:  # the stub's bytes win over a description that says no mode: marshal.load's file
            if p.name in found and mode.endswith("b") and not found[p.name].endswith("b"):
                found[p.name] = found[p.name][:1] + "b"  # was open('x.bin'), which load() refuses (round 19)
        elif p.untyped:
            binary = mode.endswith("b")
            found[p.name] = mode if mode[:1] in ("r", "w") else _mode(text, p.name, binary, _writes(api))
    return found


def open_call(api_name: str, mode: str, path: str) -> str:
    """The call that opens the file at `path` (a Python expression's source, ``'x.pkl'``) in `mode` for a
    file parameter of `api_name`: ``open('x.pkl', 'rb')``, the mode left out when "r", ``newline=''``
    added for the csv module's functions (``csv.reader(open('sales.csv', newline=''))``)."""
    args = [path] + ([repr(mode)] if mode != "r" else [])
    if api_name.split(".", 1)[0] == "csv":
        args.append("newline=''")
    return f"open({', '.join(args)})"


def _writes(api: str) -> bool:
    """Whether the API's own name says it writes its file (_API_WRITE: dump, write, save; print, show)."""
    return _API_WRITE.search(api) is not None


class _Shape(NamedTuple):
    """What the rule reads of a Param (hashable, for the cache): its name, whether no type is given,
    whether it is required, and whether it may be passed by position."""

    name: str
    untyped: bool
    required: bool
    positional: bool = False


@functools.lru_cache(maxsize=1024)
def _file_params(text: str, params: tuple[_Shape, ...], api: str) -> tuple[tuple[str, str], ...]:
    binary = bool(_BINARY.search(f"{text} {api}"))
    found = dict(_described(text, params, binary))
    if not _OR_PATH.search(text):  # fp, fileobj: the signature's own name says file object
        writes = _writes(api)
        for p in params:
            if p.untyped and p.name not in found and _OBJECT_NAME.match(p.name):
                found[p.name] = _mode(text, p.name, binary, writes)
    return tuple(found.items())


def _described(text: str, params: tuple[_Shape, ...], binary: bool) -> tuple[tuple[str, str], ...]:
    """The parameters `text` says take a file object: named beside the phrase, else the one file-named
    required parameter of a text that speaks of a file object it takes."""
    if "file" not in text.lower():
        return ()
    untyped = [p for p in params if p.untyped]
    found: dict[str, str] = {}
    for sentence in _SENTENCE.split(text):
        if _OR_PATH.search(sentence):
            continue
        for p in untyped:
            way = _named(sentence, p.name, [q.name for q in params if q is not p])
            if way and p.name not in found:
                found[p.name] = _mode(way, p.name, binary)
    if found:
        return tuple(found.items())
    named = {p.name for p in params if re.search(rf"(?<![\w.]){re.escape(p.name)}(?!\w)", text)}
    filelike = [p for p in untyped if p.required and _FILE_NAME.match(p.name)]
    if len(filelike) != 1 or filelike[0].name in named - {"file"}:
        return ()
    for sentence in _SENTENCE.split(text):
        if _OR_PATH.search(sentence):
            continue
        for m in _PHRASE.finditer(sentence):
            if not _RETURNED.search(sentence[: m.start()]):
                return ((filelike[0].name, _mode(sentence, "", binary)),)
    return ()


def _named(sentence: str, name: str, others: list[str]) -> str:
    """The text that ties parameter `name` to a file-object phrase in `sentence` (the name, the words
    between, the phrase and the 40 characters before the name), or "" when none does. No other parameter
    (`others`) stands between, unless the names are listed together ("input and output are binary
    files"): "Serialize ``obj`` as a JSON stream to ``fp`` (a file-like object)" ties fp, not obj."""
    quoted = rf"(?:``|[`'\"*])?{re.escape(name)}(?:``|['`\"*])?"
    for m in re.finditer(rf"(?<![\w.]){quoted}(?![\w(])", sentence):  # not a call: readline() is a method
        after = sentence[m.end() :]
        phrase = _PHRASE.search(after)
        if phrase is not None:
            between = after[: phrase.start()]
            if (
                len(between.split()) <= 8
                and _COPULA.search(between)
                and (
                    " are " in between
                    or not any(re.search(rf"(?<![\w.]){re.escape(o)}(?!\w)", between) for o in others)
                )
            ):
                return sentence[max(0, m.start() - 40) : m.end() + phrase.end()]
        before = sentence[: m.start()]
        tail = re.search(rf"(?:{FILE_OBJECT})\s*$", before, re.IGNORECASE)
        if tail is not None and not _RETURNED.search(before[: tail.start()]):
            return before[max(0, tail.start() - 40) :] + m.group()
    return ""


def _mode(context: str, name: str, binary: bool, writes: bool = False) -> str:
    """ "w" or "r", then "b" when binary: written when `context` says so (_WRITE), puts "to" right before
    the parameter `name` ("" in the unnamed case: the text does not name it), or the name says where data
    goes (dst, dest, out), or `writes` (the API's name says it: dump, writer)."""
    words = context.split()
    at = next((i for i, w in enumerate(words) if name and name in re.findall(r"\w+", w)), None)
    before = "" if at is None else " ".join(words[max(0, at - 4) : at]).lower()
    to = re.search(r"\b(?:to|into)\b", before) is not None and not re.search(r"\bfrom\b", before)
    both = _READ.search(context) is not None  # "for reading, writing or appending": read by default
    write = writes or _WRITE_NAME.search(name) or to or (_WRITE.search(context) and not both)
    if re.search(r"src|source|input|^(?:std)?in$", name, re.IGNORECASE) or re.search(r"\bfrom\s", before):
        write = False
    return ("w" if write else "r") + ("b" if binary else "")
