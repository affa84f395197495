"""Compiled standard-library modules (math, posix, _csv): signatures and docstrings from the interpreter."""

from __future__ import annotations

import ast
import importlib
import inspect
import io
import re
import sys
import sysconfig
import warnings
from pathlib import Path

from gorilla_tui.pool.pyenv.module_api import (
    MAX_DEFAULT_CHARS,
    ClassDef,
    FuncDef,
    ModuleInfo,
    Param,
    description,
)

#: Compiled modules never imported: test and example modules, and ones whose import touches the terminal
#: or a display (readline rebinds input(); _tkinter, _curses need a screen).
EXCLUDED = frozenset(
    {
        "readline",
        "_tkinter",
        "_curses",
        "_curses_panel",
        "xxsubtype",
        "xxlimited",
        "xxlimited_35",
        "_xxtestfuzz",
        "_xxsubinterpreters",
        "antigravity",
        "this",
    }
)

#: Types of module-level values that are data, not objects whose methods are indexed (sys.maxsize, sys.path).
_PLAIN = (int, float, str, bytes, bool, type(None), tuple, list, dict, set, frozenset)

#: Attributes of sys that a running program may rebind (a TUI captures stdout, pytest captures all three
#: streams, IDEs set excepthook), indexed as the interpreter sets them at start-up, so the docs do not depend
#: on the process that builds the index: the streams are io.TextIOWrapper objects, the hooks the __x__
#: originals sys keeps. (A Textual app's first-launch build once gave 8,885 python-env docs where
#: `index --refresh` gave 8,919: sys.stdout was Textual's capture object.)
_SYS_ORIGINALS = {
    "stdin": io.TextIOWrapper,
    "stdout": io.TextIOWrapper,
    "stderr": io.TextIOWrapper,
    "displayhook": "__displayhook__",
    "excepthook": "__excepthook__",
    "breakpointhook": "__breakpointhook__",
    "unraisablehook": "__unraisablehook__",
}

_KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: "posonly",
    inspect.Parameter.POSITIONAL_OR_KEYWORD: "poskw",
    inspect.Parameter.KEYWORD_ONLY: "kwonly",
    inspect.Parameter.VAR_POSITIONAL: "var",
    inspect.Parameter.VAR_KEYWORD: "varkw",
}


def compiled_module_names() -> set[str]:
    """Names of the standard library's compiled modules: sys.builtin_module_names plus the extension
    modules in lib-dynload (file stem before the first dot), minus tests and EXCLUDED."""
    names = set(sys.builtin_module_names)
    dynload = Path(sysconfig.get_paths()["platstdlib"], "lib-dynload")
    if not dynload.is_dir():
        dynload = Path(sysconfig.get_paths()["stdlib"], "lib-dynload")
    if dynload.is_dir():
        names.update(p.name.split(".")[0] for p in dynload.iterdir() if p.suffix in (".so", ".pyd"))
    return {n for n in names if n not in EXCLUDED and not n.startswith("_test") and n.isidentifier()}


def _params(obj: object, bound: bool) -> list[Param] | None:
    try:
        sig = inspect.signature(obj)  # type: ignore[arg-type]
    except (TypeError, ValueError, AttributeError):
        # no __text_signature__, or one inspect cannot evaluate (text_signature). AttributeError: CPython
        # 3.13's inspect evaluates a default named in the text signature (select.epoll.register's
        # `eventmask=select.EPOLLIN | ...`) against the wrong object; before, the whole python-env source
        # failed to load on 3.13
        return text_signature(getattr(obj, "__text_signature__", None))
    out = []
    for i, p in enumerate(sig.parameters.values()):
        if bound and i == 0 and p.name in ("self", "cls", "type", "module", "$self"):
            continue
        default = None
        if p.default is not inspect.Parameter.empty:
            default = repr(p.default)
            default = (
                default if len(default) <= MAX_DEFAULT_CHARS else default[: MAX_DEFAULT_CHARS - 3] + "..."
            )
        out.append(Param(p.name, _KINDS[p.kind], default))
    return out


#: A default Argument Clinic cannot show as Python (``dict.pop(key, default=<unrepresentable>, /)``).
_UNREPRESENTABLE = "<unrepresentable>"


def _default_text(node: ast.expr | None) -> str | None:
    if node is None:
        return None
    if isinstance(node, ast.Constant) and node.value is Ellipsis:
        return "optional"  # <unrepresentable>: has a default the signature cannot write
    text = ast.unparse(node)
    return text if len(text) <= MAX_DEFAULT_CHARS else text[: MAX_DEFAULT_CHARS - 3] + "..."


def text_signature(text: object) -> list[Param] | None:
    """Parameters of a C callable's ``__text_signature__`` that inspect.signature refuses, or None when
    `text` is no signature Python's parser reads. inspect evaluates each default and gives up on one that
    is a name of the C module (``sqlite3.connect(database, ..., factory=ConnectionType, ...)``) or
    ``<unrepresentable>`` (``dict.pop``, ``os.utime``, ``binascii.hexlify``, ``cmath.log``: 36 callables
    of CPython 3.11's compiled modules), so their docs had no parameters and filling none to fill. Read
    here with ast, never evaluated: a default is kept as its source text, "optional" where the signature
    cannot write it; the bound first parameter (``$module``, ``$self``, ``$type``) is left out, as
    inspect leaves it out of a bound callable."""
    if not isinstance(text, str) or not text.startswith("("):
        return None
    source = re.sub(r"^\(\s*\$\w+", "(_bound_", text).replace(_UNREPRESENTABLE, "...")
    try:
        node = ast.parse(f"def f{source}: pass").body[0]
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if not isinstance(node, ast.FunctionDef):
        return None
    a = node.args
    ordered = [*a.posonlyargs, *a.args]
    defaults: list[ast.expr | None] = [None] * (len(ordered) - len(a.defaults)) + list(a.defaults)
    out = [
        Param(arg.arg, "posonly" if i < len(a.posonlyargs) else "poskw", _default_text(default))
        for i, (arg, default) in enumerate(zip(ordered, defaults, strict=True))
    ]
    if a.vararg is not None:
        out.append(Param(a.vararg.arg, "var"))
    out += [
        Param(x.arg, "kwonly", _default_text(d)) for x, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)
    ]
    if a.kwarg is not None:
        out.append(Param(a.kwarg.arg, "varkw"))
    return [p for p in out if p.name != "_bound_"]


_OPTIONAL_START = re.compile(r"\[")


def _form(inside: str) -> tuple[list[Param], bool]:
    """(parameters, all readable) of the text between one signature line's parentheses (doc_signature).
    The numbered names just before "..." (``v1, v2, ...``) are examples of a variadic list: optional."""
    params: list[Param] = []
    readable = True
    cut = inside.find("[")
    parts = inside.split(",")
    offset = 0
    for part in parts:
        token = part.replace("[", "").replace("]", "").strip()
        ident = re.match(r"(\*{0,2})([A-Za-z_]\w*)\s*(=\s*(.*))?$", token)
        if not ident:
            readable = readable and not token
            if token.startswith("..."):
                for p in reversed(params):
                    if p.kind != "poskw" or not re.fullmatch(r"[A-Za-z_]+\d+", p.name):
                        break
                    p.default = p.default or "optional"
        else:
            stars, pname, _, default = ident.groups()
            if stars:
                params.append(Param(pname, "var" if stars == "*" else "varkw"))
            elif default is not None or (cut != -1 and offset + part.find(token[:1]) > cut):
                params.append(Param(pname, "poskw", default if default is not None else "optional"))
            else:
                params.append(Param(pname, "poskw"))
        offset += len(part) + 1
    return params, readable


def doc_signature(name: str, doc: str) -> tuple[list[Param], str]:
    """Parameters from a docstring that starts with its own signature (C functions without a text
    signature: ``sleep(seconds)``, ``reader(iterable [, dialect='excel'])``, or qualified by its module,
    ``csv_writer = csv.writer(fileobj [, dialect='excel'] ...)``) and the docstring without its first line.

    Names after the first "[" or with "=" are optional; ``*args`` / ``**kw`` are variadic. No signature
    line: ([], doc). When the docstring shows more than one form (``range(stop)`` then ``range(start,
    stop[, step])``) or a parameter it cannot read (``filter(function or None, iterable)``, ``pack(format,
    v1, v2, ...)``), the C function parses its arguments itself: the first form's parameters are kept, as
    many of them required as the form with the fewest required ones has (``bytearray()`` is a form too;
    ``v1, v2`` before "..." are optional), and ``*args`` and ``**kwargs`` end the list, so the checker
    (check/imports.py argument_errors) counts no argument against the first form.
    """
    line = rf"\s*(?:\w+\s*=\s*)?(?:[A-Za-z_][\w.]*\.)?{re.escape(name)}\((.*?)\)[^\n]*\n?"
    m = re.match(line, doc, re.DOTALL)
    if not m:
        return [], doc
    params, open_ended = _form(m.group(1))
    open_ended = not open_ended
    rest = doc[m.end() :]
    fewest = sum(p.kind == "poskw" and p.required for p in params)
    later, pos = re.match(line, rest), 0
    while later is not None:  # the other forms, one a line
        open_ended = True
        form, _readable = _form(later.group(1))
        fewest = min(fewest, sum(p.kind == "poskw" and p.required for p in form))
        pos += later.end()
        later = re.match(line, rest[pos:])
    if open_ended:
        required = [p for p in params if p.kind == "poskw" and p.required]
        for p in required[fewest:]:
            p.default = "optional"
        params += [
            Param(n, k) for n, k in (("args", "var"), ("kwargs", "varkw")) if all(p.kind != k for p in params)
        ]
    return params, rest


def _function(name: str, value: object) -> FuncDef:
    params = _params(value, bound=False)
    doc = _doc(value)
    known = params is not None
    if params is None or _refused(value):  # the docstring's own signature line is no description either
        line, rest = doc_signature(name, doc)  # (cmath.log: "log(z[, base]) -> the logarithm of z ...")
        if params is None:
            params = line
            known = bool(params) or rest != doc  # a signature line, even "getcwd()": else unknown
        said = _SAID_AFTER.match(doc) if not rest.strip() else None
        doc = said.group(1) if said else rest
    return FuncDef(name, params, doc, params_known=known)


#: What a one-line C docstring says after its signature and a colon (faulthandler's ``enable(file=sys.
#: stderr, all_threads=True): enable the fault handler``, ``is_enabled()->bool: check if ...``): group 1.
_SAID_AFTER = re.compile(r"[^\n]*?\)(?:\s*->\s*\w+)?\s*:\s+(\S[^\n]*)\s*$")


def _refused(obj: object) -> bool:
    """Whether inspect.signature refuses `obj` (its parameters, if any, are text_signature's)."""
    try:
        inspect.signature(obj)  # type: ignore[arg-type]
    except (TypeError, ValueError, AttributeError):
        return True
    return False


def _doc(obj: object) -> str:
    doc = getattr(obj, "__doc__", None)
    return doc if isinstance(doc, str) else ""


def read_compiled(name: str) -> ModuleInfo | None:
    """A ModuleInfo for compiled standard-library module `name`, or None when it cannot be imported.

    Importing a compiled standard-library module runs no Python source (it is the interpreter's own C
    code); the Python source of the library and of distributions is only ever parsed
    (pool/pyenv/module_api.py).
    Functions without a text signature get an empty parameter list (their arguments are unknown).
    """
    try:
        with warnings.catch_warnings():  # PEP 594 modules warn on import (audioop, nis, ...)
            warnings.simplefilter("ignore", DeprecationWarning)
            mod = importlib.import_module(name)
    except Exception:  # noqa: BLE001 - any import failure just leaves the module out
        return None
    info = ModuleInfo(name=name, doc=_doc(mod))
    public = getattr(mod, "__all__", None)
    info.all_names = [n for n in public if isinstance(n, str)] if isinstance(public, (list, tuple)) else None
    for attr, value in sorted(_module_vars(mod).items()):
        if attr.startswith("__"):
            continue
        if inspect.isbuiltin(value) or inspect.isfunction(value):
            info.defs[attr] = _function(attr, value)
        elif inspect.isclass(value) and (value.__module__ != "builtins" or name == "builtins"):
            info.defs[attr] = _class(attr, value)
        else:
            info.assigned.add(attr)
            kind = type(value)
            if isinstance(value, _StreamType):
                kind = value.cls
            if not attr.startswith("_") and kind not in _PLAIN and not inspect.ismodule(value):
                info.objects[attr] = _class(kind.__name__, kind, inherited=True)  # sys.stdout: TextIOWrapper
    return info


class _StreamType:
    """Stands for a module-level object of class `cls` (a standard stream as the interpreter makes it)."""

    def __init__(self, cls: type) -> None:
        self.cls = cls


def _module_vars(mod: object) -> dict[str, object]:
    """vars(mod), with sys's rebindable attributes as the interpreter sets them (_SYS_ORIGINALS)."""
    values = dict(vars(mod))
    if getattr(mod, "__name__", "") == "sys":
        for attr, original in _SYS_ORIGINALS.items():
            if attr not in values:
                continue
            if isinstance(original, type):
                values[attr] = _StreamType(original)
            elif getattr(mod, original, None) is not None:
                values[attr] = getattr(mod, original)
    return values


def _class(attr: str, cls: type, inherited: bool = False) -> ClassDef:
    """A ClassDef from a runtime class; inherited=True also takes its bases' methods (object excluded)."""
    init = _params(cls, bound=False)
    doc = _doc(cls)
    if init is None:
        init, doc = doc_signature(attr, doc)
    out = ClassDef(attr, doc, attributes=frozenset(n for n in dir(cls) if not n.startswith("_")))
    out.init = FuncDef("__init__", init, "")
    members: dict[str, object] = {}
    for klass in reversed(cls.__mro__[:-1] if inherited else (cls,)):
        members.update(vars(klass))
    for mname, member in sorted(members.items()):
        if mname.startswith("_"):
            continue
        if inspect.ismethoddescriptor(member) or inspect.isbuiltin(member):
            kind = "classmethod" if type(member).__name__ == "classmethod_descriptor" else "method"
            params = _params(member, bound=True)
            if params is None:  # ``B.count(sub[, start[, end]]) -> int``; the docstring is kept whole
                params = doc_signature(mname, _doc(member))[0] or None
            doc = _doc(member) or description(mname, inherited := _inherited_doc(cls, mname)) or inherited
            out.methods.append(FuncDef(mname, params or [], doc, kind=kind, params_known=params is not None))
        elif isinstance(member, staticmethod):
            params = _params(member.__func__, False)
            out.methods.append(
                FuncDef(mname, params or [], _doc(member), "staticmethod", params_known=params is not None)
            )
    return out


def _inherited_doc(cls: type, name: str) -> str:
    """The docstring of method `name` of compiled class `cls` from the first class of its MRO that has one,
    as inspect.getdoc finds it (``io.BufferedRWPair.close`` has none, ``_io._IOBase.close`` has "Flush and
    close the IO object."); every class there is the interpreter's, so nothing is imported or run."""
    for klass in cls.__mro__:
        doc = _doc(vars(klass).get(name))
        if doc.strip():
            return doc
    return ""
