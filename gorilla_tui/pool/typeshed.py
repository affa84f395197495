"""What the standard library's type stubs say a function returns: `returned` (the class a call of it gives)
and `factories` (the functions of a class's module that give one); and which of its parameters take a file
object, `file_parameters` (kept on disk by pool/stub_cache.py, read through it by pool/file_objects.py).

The stubs are typeshed's, the ones mypy and pyright read, through typeshed_client (its Resolver follows the
stubs' imports: ``sqlite3.connect`` is defined in ``_sqlite3``). python-env's docs hold no return types
(C functions have no annotations to read with inspect), so filling reads them here: "open notes.db and run
SELECT * FROM notes" is ``sqlite3.connect('notes.db').execute('SELECT * FROM notes')``, the second call's
method a method of the class the first call returns (fill/chains.py). Only plain classes count: an overload
that returns a type variable (``connect(..., factory: type[_ConnectionT]) -> _ConnectionT``), ``Any`` or a
union of two classes gives none. Stubs are parsed once per module (8-56 ms each cold, after 0.16-0.22 s to
import typeshed_client and make its Resolver) and cached in the process.
"""

from __future__ import annotations

import ast
import functools
import re
import sys
from collections.abc import Iterator

import typeshed_client
from typeshed_client import ImportedInfo, NameInfo, OverloadedName

#: What reading a stub may raise: a broken or unexpected stub is read as no stub.
_STUB_ERRORS = (typeshed_client.InvalidStub, SyntaxError, ValueError, OSError, RecursionError, AttributeError,
                TypeError, KeyError)  # fmt: skip


#: The newest Python whose stubs `added_in` asks (typeshed's VERSIONS file and sys.version_info gates).
_NEWEST = (3, 14)


@functools.lru_cache(maxsize=8)
def _resolver(version: tuple[int, int] | None = None) -> typeshed_client.Resolver:
    """typeshed_client's Resolver for the stubs as Python `version` (major, minor) reads them (their
    ``sys.version_info`` gates and VERSIONS file); None: the running Python's. The one cache of them."""
    if version is None or version == sys.version_info[:2]:
        return typeshed_client.Resolver() if version is None else _resolver()
    return typeshed_client.Resolver(typeshed_client.get_search_context(version=version))


def later_versions() -> range:
    """The minor versions of Python 3 newer than the running one whose stubs `added_in` asks (to _NEWEST)."""
    return range(sys.version_info[1] + 1, _NEWEST[1] + 1)


@functools.lru_cache(maxsize=4096)
def _defined(
    dotted: str, version: tuple[int, int] | None = None
) -> tuple[str, ast.AST | OverloadedName] | None:
    """(the module that defines it, its stub node) of a module-level name ``module.name`` (imports
    followed) as Python `version`'s stubs have it (None: the running Python's), or None where no stub
    has it."""
    module, _, name = dotted.rpartition(".")
    if not module or not name:
        return None
    resolver = _resolver(version)
    try:
        info = resolver.get_name(typeshed_client.ModulePath(tuple(module.split("."))), name)
        for _ in range(8):  # an import of an import
            if not isinstance(info, ImportedInfo):
                break
            module = ".".join(info.source_module)
            info = info.info
            if isinstance(info, NameInfo) and isinstance(info.ast, typeshed_client.ImportedName):
                info = resolver.get_name(info.ast.module_name, info.ast.name or info.name)
    except _STUB_ERRORS:
        return None
    return (module, info.ast) if isinstance(info, NameInfo) else None


@functools.lru_cache(maxsize=1024)
def added_in(dotted: str) -> str:
    """The later Python ("3.12") whose stubs first define module-level name `dotted` (``itertools.batched``)
    when this Python's stubs do not, else "". typeshed gates such names on ``sys.version_info``; this asks
    each newer minor version up to _NEWEST (about 0.1 s for the first name, then cached per name)."""
    if _defined(dotted) is not None:
        return ""
    for minor in later_versions():
        if _defined(dotted, (3, minor)) is not None:
            return f"3.{minor}"
    return ""


def _class_names(annotation: ast.expr | None) -> list[str]:
    """The class names an annotation states: ``Connection``, ``ssl.SSLContext``, ``Shelf[Any]`` -> Shelf,
    ``X | None`` -> X; [] for a union of two classes, a string annotation Python cannot parse, or none."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return []
    if isinstance(annotation, ast.Subscript):
        annotation = annotation.value
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        sides = [s for s in (annotation.left, annotation.right)
                 if not (isinstance(s, ast.Constant) and s.value is None)]  # fmt: skip
        return _class_names(sides[0]) if len(sides) == 1 else []
    if isinstance(annotation, (ast.Name, ast.Attribute)):
        return [ast.unparse(annotation)]
    return []


def _functions(node: ast.AST | OverloadedName) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The definitions of a function's stub node, overloads in order."""
    for d in node.definitions if isinstance(node, OverloadedName) else [node]:
        if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield d


@functools.lru_cache(maxsize=4096)
def returned(function: str) -> tuple[str, ...]:
    """The dotted names the class a call of module-level `function` returns may go by, best first: in the
    function's own module (``sqlite3.Connection`` for ``sqlite3.connect``), then where the stubs define
    it (``_io.TextIOWrapper``), then that module without its leading underscore (``io.TextIOWrapper``);
    the first overload that returns a class decides. () when no stub has the function or it returns no
    class (a type variable, Any, None, a builtin value such as str)."""
    public = function.rpartition(".")[0]
    found = _defined(function if public else f"builtins.{function}")  # open(): the builtin
    if found is None:
        return ()
    module, node = found
    for definition in _functions(node):
        for name in _class_names(definition.returns):
            head, _, rest = name.partition(".")
            cls = _defined(f"{module}.{head}") if not rest else _defined(name)
            if cls is None or not isinstance(cls[1], ast.ClassDef) or head in _BUILTIN_VALUES:
                continue
            short = cls[1].name
            names = [
                f"{public}.{short}" if public else "",
                f"{cls[0]}.{short}",
                f"{cls[0].lstrip('_')}.{short}",
            ]
            names = [n for n in names if n and not n.startswith("builtins.")] or [short]
            return tuple(dict.fromkeys(names))
    return ()


#: Classes whose instances are plain values, not objects a task goes on with (``str.upper`` after
#: ``os.getcwd()`` is no second call a task asks for).
_BUILTIN_VALUES = frozenset(
    "str bytes int float bool list dict set tuple frozenset bytearray complex object type memoryview "
    "Any".split()
)


@functools.lru_cache(maxsize=1024)
def factories(cls: str) -> tuple[str, ...]:
    """The public module-level functions of `cls`'s module that return `cls` (``sqlite3.connect`` for
    ``sqlite3.Connection``, ``logging.getLogger`` for ``logging.Logger``), as ``module.function``, in the
    stub's order; () when the module has no stub or none returns it."""
    module, _, short = cls.rpartition(".")
    if not module:
        return ()
    try:
        names = typeshed_client.get_stub_names(module, search_context=_resolver().ctx)
    except _STUB_ERRORS:
        return ()
    out = []
    for name, info in (names or {}).items():
        if name.startswith("_") or not info.is_exported or isinstance(info.ast, ast.ClassDef):
            continue
        if cls in returned(f"{module}.{name}"):
            out.append(f"{module}.{name}")
    return tuple(out)


#: A parameter annotation that takes a file object: typeshed's read/write protocols and the IO types, or a
#: stub's own protocol named for one (pickle's ``_ReadableFileobj``, ``_WritableFileobj``).
_FILE_TYPE = re.compile(
    r"\b(?:Supports(?:Read|Readline|Write)|IO|TextIO|BinaryIO)\b|^_\w*(?:Read|Writ)\w*File\w*$"
)
#: An annotation that lets a path or a string stand in: then it is no file object alone.
_OR_PATH = re.compile(r"\b(?:str|bytes|StrPath|StrOrBytesPath|FileDescriptorOrPath|PathLike)\b")
_BINARY = re.compile(r"\bbytes\b|Buffer|\bBinaryIO\b")
#: The lines of a text file: ``Iterable[str]`` where the parameter's name says file (csv.DictReader(f),
#: configparser's read_file(f)) or the function takes a csv ``dialect`` (csv.reader(iterable): "any object
#: that returns a line of input for each iteration, such as a file object", its docstring). Any other
#: ``Iterable[str]`` takes a str as well (``str.join``, ``shlex.join``).
_LINES = re.compile(r"^(?:typing\.|collections\.abc\.)?Iterable\[str\]$")
_FILE_NAMED = re.compile(r"^(?:f|fp|fh|\w*file\w*)\d?$", re.IGNORECASE)


@functools.lru_cache(maxsize=4096)
def file_parameters(function: str) -> tuple[tuple[int, str, str], ...]:
    """(position, name, mode) of each parameter of module-level function or class `function` (a class: its
    ``__init__``, self left out) that every overload of its stub types as a file object alone (_FILE_TYPE,
    not beside a path or string: ``bz2.open``'s last overload takes ``StrOrBytesPath``, so a path will do) or
    as the lines of a text file (_LINES): ``pickle.load(file: _ReadableFileobj)`` -> (0, "file", "rb"),
    ``json.dump(obj, fp: SupportsWrite[str])`` -> (1, "fp", "w"), ``csv.reader(iterable: Iterable[str], /,
    dialect=...)`` -> (0, "iterable", "r"), ``pprint.pprint(object, stream: IO[str] | None)`` -> (1,
    "stream", ""). The mode: "w" for a write protocol, "r" for a read protocol or lines, "" where the type
    says no direction (IO, TextIO, BinaryIO: pool/file_objects.py tells it from the doc), then "b" where
    its type or its protocol's read/write speaks of bytes and not of str; position is among the
    positional parameters of the first overload (-1 for a keyword-only one). () where no stub has it."""
    found = _defined(function)
    if found is None:
        return ()
    module, node = found
    definitions = list(_initializers(node) if isinstance(node, ast.ClassDef) else _functions(node))
    modes: dict[str, str] = {}  # name -> its mode in every overload so far
    other: set[str] = set()  # the names one overload types as something else
    for definition in definitions:
        args = definition.args
        lines = any(a.arg == "dialect" for a in [*args.args, *args.kwonlyargs])
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
            mode = _file_mode(module, arg, lines)
            if mode is None:
                other.add(arg.arg)
            elif modes.setdefault(arg.arg, mode) != mode:  # read in one, written in another: no direction
                modes[arg.arg] = "b" if mode.endswith("b") and modes[arg.arg].endswith("b") else ""
    if not definitions:
        return ()
    first = definitions[0].args
    positional = [a.arg for a in [*first.posonlyargs, *first.args]]
    skip = 1 if isinstance(node, ast.ClassDef) else 0  # self
    out = []
    for name in [*positional[skip:], *(a.arg for a in first.kwonlyargs)]:
        if name in modes and name not in other:
            at = positional.index(name) - skip if name in positional else -1
            out.append((at, name, modes[name]))
    return tuple(out)


def _initializers(node: ast.ClassDef) -> Iterator[ast.FunctionDef]:
    """A class stub's ``__init__`` definitions, overloads in order."""
    for item in node.body:
        if isinstance(item, ast.FunctionDef) and item.name == "__init__":
            yield item


def _file_mode(module: str, arg: ast.arg, lines: bool) -> str | None:
    """The mode (file_parameters) of one stub parameter that takes a file object or a file's lines, else
    None."""
    text = ast.unparse(arg.annotation) if arg.annotation is not None else ""
    if _LINES.match(text) and (lines or _FILE_NAMED.match(arg.arg)):
        return "r"
    outer = text
    while (shorter := re.sub(r"\[[^\[\]]*\]", "", outer)) != outer:  # SupportsRead[str | bytes]
        outer = shorter
    if not _FILE_TYPE.search(text) or _OR_PATH.search(outer):
        return None
    direction = "w" if "Writ" in text else "r" if re.search(r"Read|_\w*Reader\b", text) else ""
    binary = bool(_BINARY.search(text)) and not re.search(r"\bstr\b", text)  # json.load: text
    binary = binary or _protocol_binary(module, text)
    return direction + ("b" if binary else "")


def _protocol_binary(module: str, text: str) -> bool:
    """Whether a stub's own protocol (``_ReadableFileobj``) reads or writes bytes (its read's return or its
    write's argument: ``def read(self, n: int, /) -> bytes``)."""
    if not re.fullmatch(r"_\w+", text):
        return False
    found = _defined(f"{module}.{text}")
    if found is None or not isinstance(found[1], ast.ClassDef):
        return False
    for item in found[1].body:
        if isinstance(item, ast.FunctionDef) and item.name in ("read", "write", "readline"):
            shown = ast.unparse(item.returns) if item.returns is not None else ""
            shown += " ".join(ast.unparse(a.annotation) for a in item.args.args if a.annotation is not None)
            if _BINARY.search(shown):
                return True
    return False
