"""Whether a literal argument's class fits a type stub's annotation, only where it is certain (break-it
round 30, F-H5; read by pool/stub_bind.py): a str, bytes, int, float, bool, list, dict, set or tuple literal
against an annotation none of whose classes can take it, nominally by the stubs' bases and confirmed by the
running class where its module is loaded; a protocol only when the literal's class lacks one of its
members, in the stub and at run time (str has no ``__buffer__``: ReadableBuffer); ``Literal[...]`` by the
values' types (by value when a call chain picks an overload); a str's items against ``Sequence[tuple[...]]``
(``urlencode('a b&c=d')``). A type variable, Any, a name the stubs cannot resolve, an ABC the running class
cannot confirm: accepted (None, "cannot say").
"""

from __future__ import annotations

import ast
import builtins
import functools
import sys
import warnings
from typing import NamedTuple

from gorilla_tui.pool.stub_members import _member, _name, stub_class
from gorilla_tui.pool.typeshed import _defined


class Arg(NamedTuple):
    """One argument as binding reads it: cls, the builtin class of a literal (``builtins.str``), else "";
    value: the literal's Python value where it is known whole (Literal[...] by value), else None."""

    cls: str = ""
    value: object = None


#: The classes a literal of another class is taken for (PEP 484's numeric promotions; a flag typed bool
#: takes 0 and 1 at run time: ``inspect.getclasstree(classes, 1)`` in pydoc, ``xmlrpc.client.dumps(...,
#: allow_none=1)`` in multiprocessing).
_PROMOTED = {
    "builtins.float": ("builtins.int",),
    "builtins.complex": ("builtins.int", "builtins.float"),
    "builtins.bool": ("builtins.int",),
}
#: (literal class, stub class) pairs the running function may convert though the stub does not say so:
#: a C function parsing its argument with "s*" / "s#" takes a str where the stub says bytes
#: (``fcntl.ioctl(fd, I_PUSH, 'ptem')`` in pty.py), one with a file-system path converter bytes where it
#: says str (``symtable.symtable(src, b'x', 'exec')``).
_CONVERTED = frozenset({("builtins.str", "builtins.bytes"), ("builtins.bytes", "builtins.str")})
#: Annotation names that take anything.
_ANY = frozenset({"Any", "object", "Incomplete", "Self", "MaybeNone", "Unused", "builtins.object"})
#: The generic containers whose one parameter is an item's type (a str literal's items are str).
_ITEMS = frozenset({"typing.Iterable", "typing.Sequence", "typing.Collection", "typing.Reversible"})
_DEPTH = 10


def literal_arg(text: str, is_str: bool) -> Arg:
    """The Arg of an argument written as `text` (check/callnodes.py Value: a plain str literal's content
    when `is_str`, else its source with whitespace removed); Arg() when it is no literal (a name, a call,
    an f-string's parts unknown are still a str)."""
    if is_str:
        return Arg("builtins.str", text)
    try:
        with warnings.catch_warnings():  # whitespace removed: ``1if x else 2`` warns of a decimal literal
            warnings.simplefilter("ignore")
            node = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Arg()
    kinds = {ast.List: "list", ast.ListComp: "list", ast.Dict: "dict", ast.DictComp: "dict",
             ast.Set: "set", ast.SetComp: "set", ast.Tuple: "tuple", ast.JoinedStr: "str"}  # fmt: skip
    if type(node) in kinds:
        return Arg(f"builtins.{kinds[type(node)]}")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        node = node.operand if isinstance(node.operand, ast.Constant) else node
    if isinstance(node, ast.Constant) and node.value is not None and node.value is not Ellipsis:
        value = node.value
        return Arg(f"builtins.{type(value).__name__}", value if not isinstance(value, str | bytes) else None)
    return Arg()


def accepts(
    annotation: ast.expr, module: str, arg: Arg, by_value: bool = False, depth: int = 0, strict: bool = True
) -> bool | None:
    """Whether stub annotation `annotation` (written in stub module `module`) takes literal `arg`: True for
    sure, False for sure (the module doc's cases), None when the stubs cannot say; not strict: False only
    where a container is wanted (bind_problem)."""
    if depth > _DEPTH:
        return None
    node = annotation
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(node, ast.Constant) and node.value is None:
        return False  # a literal is never None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _any([accepts(s, module, arg, by_value, depth + 1, strict) for s in (node.left, node.right)])
    if isinstance(node, ast.Subscript):
        return _subscript(node, module, arg, by_value, depth, strict)
    written = _name(node)
    if not written or written.rsplit(".", 1)[-1] in _ANY:
        return None if not written else True
    if written.rsplit(".", 1)[-1] == "LiteralString":  # a str (PEP 675): an int never is (','.split(1))
        if arg.cls in ("builtins.str", "builtins.bytes"):  # bytes: a C function may convert it (_CONVERTED)
            return True if arg.cls == "builtins.str" else None
        return False if strict and arg.cls.startswith("builtins.") else None
    return _named(written, module, arg, by_value, depth, strict)


def _any(results: list[bool | None]) -> bool | None:
    return True if True in results else None if None in results else False


def _subscript(
    node: ast.Subscript, module: str, arg: Arg, by_value: bool, depth: int, strict: bool
) -> bool | None:
    head = _name(node.value).rsplit(".", 1)[-1]
    items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if head in ("Union", "Optional"):
        return _any([accepts(i, module, arg, by_value, depth + 1, strict) for i in items])
    if head == "Annotated":
        return accepts(items[0], module, arg, by_value, depth + 1, strict)
    if head == "Literal":
        values = [i.value for i in items if isinstance(i, ast.Constant)]
        if len(values) != len(items):
            return None
        kinds = {"int", "bool"} if arg.cls == "builtins.bool" else {arg.cls.split(".")[-1]}
        same = [v for v in values if type(v).__name__ in kinds]
        if not same:
            return False if strict else None  # True where the stub says Literal['r', 'w']
        if by_value and arg.value is not None:
            return True if arg.value in same else False
        return None
    outer = accepts(node.value, module, arg, by_value, depth + 1, strict)
    if outer is False or arg.cls not in ("builtins.str", "builtins.bytes") or len(items) != 1:
        return outer
    cls = stub_class(module, _name(node.value)) if _name(node.value) else None
    if cls is None or cls[0] not in _ITEMS:
        return outer
    item = Arg("builtins.str" if arg.cls == "builtins.str" else "builtins.int")
    inner = accepts(items[0], module, item, False, depth + 1)  # 'a b&c=d' is a Sequence of str, not of pairs
    return False if inner is False else outer


def _named(written: str, module: str, arg: Arg, by_value: bool, depth: int, strict: bool) -> bool | None:
    """accepts() for a name: a class, or a type alias followed to its value (a TypeVar: None)."""
    found = _defined(written) if "." in written else None
    found = found or _defined(f"{module}.{written}") or _defined(f"builtins.{written}")
    if found is None:
        return None
    where, node = found
    if isinstance(node, ast.ClassDef):
        taken = _class_takes((f"{where}.{node.name}", node), arg)
        return taken if strict or taken is not False or _container(f"{where}.{node.name}") else None
    value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
    if isinstance(node, ast.AnnAssign) and _name(node.annotation).rsplit(".", 1)[-1] != "TypeAlias":
        return None
    if value is None or isinstance(value, ast.Call):
        return None  # TypeVar(...), NewType(...), a value
    return accepts(value, where, arg, by_value, depth + 1, strict)


def _container(dotted: str) -> bool:
    """Whether stub class `dotted` is a container a scalar literal never is: a builtin collection, or an
    abstract collection of typing / collections.abc (Mapping, Sequence...)."""
    module = dotted.rpartition(".")[0]
    return dotted in _COLLECTIONS or module in ("typing", "collections.abc", "_collections_abc")


_COLLECTIONS = frozenset(f"builtins.{n}" for n in ("tuple", "list", "dict", "set", "frozenset"))


@functools.lru_cache(maxsize=4096)
def _ancestors(dotted: str) -> frozenset[str] | None:
    """The dotted names of stub class `dotted` and all its bases; None when a base cannot be resolved."""
    module, _, short = dotted.rpartition(".")
    cls = stub_class(module, short)
    if cls is None:
        return None
    out, todo, seen = {cls[0]}, [cls], 0
    while todo and seen < 64:
        (owner, node), seen = todo.pop(), seen + 1
        for base in node.bases:
            written = _name(base.value if isinstance(base, ast.Subscript) else base)
            if written.rsplit(".", 1)[-1] in ("Generic", "Protocol", "object"):
                continue
            found = stub_class(owner.rsplit(".", 1)[0], written) if written else None
            if found is None:
                return None
            if found[0] not in out:
                out.add(found[0])
                todo.append(found)
    return frozenset(out)


def _class_takes(cls: tuple[str, ast.ClassDef], arg: Arg) -> bool | None:
    """Whether stub class `cls` takes a literal of class arg.cls (see the module doc)."""
    dotted, node = cls
    if dotted in ("builtins.object",):
        return True
    ancestors = _ancestors(arg.cls)
    if ancestors is None:
        return None
    promoted = _PROMOTED.get(dotted, ())
    if dotted in ancestors or arg.cls in promoted or any(a in promoted for a in ancestors):
        return True  # a bool is an int, so a float's too: ``timedelta(days=True)`` runs (break-it round 31)
    if (arg.cls, dotted) in _CONVERTED:
        return None
    literal_type = getattr(builtins, arg.cls.split(".")[-1], None)
    if not isinstance(literal_type, type):
        return None
    if any(_name(b.value if isinstance(b, ast.Subscript) else b).endswith("Protocol") for b in node.bases):
        return _protocol_takes(cls, arg.cls, literal_type)
    running = _running_class(dotted)
    if running is None:
        return False if dotted.startswith("builtins.") else None
    try:
        return True if issubclass(literal_type, running) else False
    except TypeError:
        return None


def _protocol_takes(cls: tuple[str, ast.ClassDef], literal: str, literal_type: type) -> bool | None:
    """False when protocol `cls` has a member the literal's class lacks in its stub and at run time."""
    owner = stub_class(*literal.rsplit(".", 1))
    if owner is None:
        return None
    for item in cls[1].body:
        name = item.name if isinstance(item, ast.FunctionDef) else None
        if name is None or name in ("__init__", "__new__", "__class_getitem__"):
            continue
        found = _member("builtins", owner[1], name)
        if found is not None and not found[1] and not hasattr(literal_type, name):
            return False
    return None


def _running_class(dotted: str) -> type | None:
    """The running Python's class of stub class `dotted`, only from a module already imported (nothing is
    imported for it); typing's aliases of collections.abc read as those."""
    module, _, short = dotted.rpartition(".")
    for home in (module, module.lstrip("_"), "collections.abc" if module == "typing" else ""):
        found = getattr(sys.modules.get(home), short, None) if home else None
        if isinstance(found, type):
            return found
    return None
