"""Methods called on a literal of a builtin type: ``','.join(parts)``, ``'{}'.format(x)``,
``b'abc'.decode()``, ``f'{x}'.upper()``, ``[1, 2].append(3)``, ``{}.get('k')``, ``(1, 2).count(1)``,
``(1).to_bytes(2, 'big')``.

A literal is an instance of its builtin type whatever the code binds (``str = 3`` does not change what
``'a'`` is), so callnodes.callee_of spells the receiver as that type's constructor call: ``','.join`` is
``str().join``, the callee under which the python-env docs hold str's methods (``str().join(iterable)``).
The method is then checked as that doc's call (exists, arguments). A method the type lacks
(``','.jion(x)``) is a hallucination whose did-you-mean is read from the type itself (builtin_method,
missing_method); this holds for a constructor call's result too (``str(x).jion()``).
"""

from __future__ import annotations

import difflib
import re

#: tree-sitter-python node type of a literal -> the builtin type it makes ("string": str or bytes by its
#: prefix, see literal_type). Comprehensions make their container's type.
LITERAL_NODES = {
    "string": "str",
    "concatenated_string": "str",
    "list": "list",
    "list_comprehension": "list",
    "dictionary": "dict",
    "dictionary_comprehension": "dict",
    "set": "set",
    "set_comprehension": "set",
    "tuple": "tuple",
    "integer": "int",
    "float": "float",
}

#: The builtin types whose methods are judged on ``T().method`` callees (literals above, constructor calls).
TYPES: dict[str, type] = {
    "str": str,
    "bytes": bytes,
    "bytearray": bytearray,
    "list": list,
    "dict": dict,
    "set": set,
    "frozenset": frozenset,
    "tuple": tuple,
    "int": int,
    "float": float,
}

_METHOD = re.compile(r"(" + "|".join(TYPES) + r")\(\)\.([A-Za-z_]\w*)")
#: difflib ratio a did-you-mean method needs (difflib.get_close_matches' default: ``jion`` -> ``join``).
_CUTOFF = 0.6


def literal_type(node_type: str, prefix: str = "") -> str | None:
    """The builtin type a literal node of tree-sitter type `node_type` makes, or None for other nodes.

    Args:
        node_type: the node's type (``string``, ``list``, ``dictionary``...).
        prefix: for a string, its prefix letters as written (``b``, ``rb``, ``f``): a ``b`` makes bytes;
            for a number, its text: a ``j`` suffix makes a complex number (no type here).

    Returns:
        "str", "bytes", "list", "dict", "set", "tuple", "int" or "float" (``(1).to_bytes``: break-it
        round 32); None when the node is no literal of those.
    """
    found = LITERAL_NODES.get(node_type)
    if found == "str" and "b" in prefix.lower():
        return "bytes"
    if found in ("int", "float") and prefix.lower().endswith("j"):
        return None  # 1j is a complex number
    return found


def builtin_method(callee: str) -> tuple[str, str] | None:
    """(type name, method name) of a callee ``T().method`` whose receiver is a builtin type of TYPES
    (``str().join`` -> ("str", "join")), else None (``str.join``, ``str().join().x``, ``os.path.join``)."""
    m = _METHOD.fullmatch(callee)
    return (m.group(1), m.group(2)) if m else None


#: A method called on the result of a builtin type's method calls: ``str().join().jion`` (group 1 the
#: type, group 2 the calls, group 3 the last method).
_CHAIN = re.compile(r"(" + "|".join(TYPES) + r")\(\)((?:\.[A-Za-z_]\w*\(\))+)\.([A-Za-z_]\w*)")


def through_returns(callee: str) -> str:
    """`callee` with a chain of builtin-type method calls read through their return types (R26-4):
    ``str().join().jion`` is ``str().jion`` (typeshed: ``str.join -> str``), ``bytes().join().decode`` is
    ``bytes().decode``, ``str().split().append`` is ``list().append``, so the last method is judged on
    the type it is called on as ``','.jion(x)`` is. Unchanged when a return type is not one builtin type
    of TYPES for sure (pool/stub_cache.py method_returns: an overload returning another type, Any)."""
    m = _CHAIN.fullmatch(callee)
    if m is None:
        return callee
    from gorilla_tui.pool.stub_cache import method_returns  # deferred: only for such a chain

    owner = f"builtins.{m.group(1)}"
    for name in re.findall(r"\.([A-Za-z_]\w*)\(\)", m.group(2))[:16]:
        owner = method_returns(owner, name)
        if owner.removeprefix("builtins.") not in TYPES:
            return callee
    return f"{owner.removeprefix('builtins.')}().{m.group(3)}"


def has_method(type_name: str, method: str) -> bool:
    """True when builtin type `type_name` (a key of TYPES) has attribute `method` in the running Python."""
    return hasattr(TYPES[type_name], method)


def missing_method(type_name: str, method: str) -> list[str]:
    """Did-you-mean callees for a method type `type_name` lacks: its public attributes nearest by difflib
    ratio (cutoff 0.6, difflib's default), best first, spelled as callees (``str().join``); at most 3."""
    names = [n for n in dir(TYPES[type_name]) if not n.startswith("_")]
    return [f"{type_name}().{n}" for n in difflib.get_close_matches(method, names, n=3, cutoff=_CUTOFF)]
