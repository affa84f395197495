"""The string values a function's type stub lists for a parameter: its ``Literal[...]`` types.

typeshed writes the values some parameters take as literal types, often through aliases: builtins.open's
``mode: OpenTextMode`` is ``OpenTextModeUpdating | OpenTextModeWriting | OpenTextModeReading``, each a
``Literal["w", "wt", ..., "a", ...]`` (stdlib/_typeshed/__init__.pyi). `literal_values` gathers them over
every overload, so a value read elsewhere (fill/documented.py: a docstring's table of modes) can be held
to what the function takes: open's docstring lists 'b' ("binary mode"), but no overload takes 'b' alone.
"""

from __future__ import annotations

import ast
import functools

from gorilla_tui.pool.stub_params import _alias, _definitions

#: Most type aliases followed in a row (as pool/stub_params.py follows them).
MAX_ALIASES = 8


def _literals(node: ast.expr | None, module: str, depth: int = 0) -> frozenset[str]:
    """The strings of the ``Literal[...]`` types annotation `node` is a union of, aliases followed (in
    `module`'s stub); other members of the union add none."""
    if node is None or depth > MAX_ALIASES:
        return frozenset()
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _literals(node.left, module, depth) | _literals(node.right, module, depth)
    if isinstance(node, ast.Subscript):
        head = ast.unparse(node.value).rpartition(".")[2]
        inner = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if head == "Literal":
            return frozenset(n.value for n in inner if isinstance(getattr(n, "value", None), str))
        if head in ("Optional", "Union"):
            return frozenset().union(*(_literals(n, module, depth) for n in inner))
        return frozenset()
    if isinstance(node, (ast.Name, ast.Attribute)) and module:
        alias = _alias(module, ast.unparse(node))
        if alias is not None:
            return _literals(alias[1], alias[0], depth + 1)
    return frozenset()


@functools.lru_cache(maxsize=256)
def literal_values(function: str, name: str) -> frozenset[str]:
    """The strings `function`'s stub lists for parameter `name` as literal types, over all its overloads
    (``open``'s mode: 'r', 'w', 'a', 'rb', 'wb', ..., no 'b'); empty where no stub has the function or
    the parameter, or the stub types it with no literal."""
    module, defs = _definitions(function)
    out: frozenset[str] = frozenset()
    for d in defs:
        a = d.args
        for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs]:
            if arg.arg == name:
                out |= _literals(arg.annotation, module)
    return out
