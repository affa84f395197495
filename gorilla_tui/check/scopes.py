"""Which of a file's imported names each call sees as the import, by Python's scopes (break-it round 31, F5).

A name a file both imports and binds another way (``import socket`` and a method's parameter ``socket``,
a class attribute ``socket = None``) was taken as the file's own name in every call: pip's vendored
urllib3 (``from socket import error as SocketError`` beside ``def __init__(self, connection, socket)``)
had three false alarms, and a misspelt ``socket.eror`` in a method went unjudged. Python's rule (the
language reference, "Resolution of names"): a name bound anywhere in a function body (parameter,
assignment, ``for``/``with``/``except`` target, def, class, import) is local to that function and seen by
the functions nested in it; a class body's names are seen by the statements directly in it, never by its
methods; a comprehension's targets are its own; ``global x`` in a function binds the module's ``x``.

`ScopeTracker` follows the pre-order walk callsite.scan already makes (tree-sitter), so the scopes cost no
second parse. Libraries were measured for this on the same machine (2026-12-07): beniget 0.5.0 (def-use
chains over gast) 0.07 s to import and 0.17 s for Lib/logging/__init__.py, libcst 1.9.0's ScopeProvider
0.51 s to import and 1.40 s for that file, and jedi (scope.py) slower still; `check` has 0.25 s for a whole
cold file (bench/check_speed.py), and all three parse again with Python's ast, whose nodes would then be
matched to tree-sitter's call sites. So this is our own, read from the walk `check` makes anyway.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gorilla_tui.check.callnodes import name_text

if TYPE_CHECKING:
    from collections.abc import Iterable

    from tree_sitter import Node

#: Nodes that open a scope of their own (tree-sitter-python's names).
SCOPE_NODES = frozenset({
    "function_definition", "lambda", "class_definition", "list_comprehension", "set_comprehension",
    "dictionary_comprehension", "generator_expression",
})  # fmt: skip
_COMPREHENSIONS = frozenset(
    {"list_comprehension", "set_comprehension", "dictionary_comprehension", "generator_expression"}
)
#: Free names of a call: span -> the imported names it sees as their import (ScopeTracker.free).
Free = dict[tuple[int, int], frozenset[str]]


@dataclass(eq=False)
class _Scope:
    kind: str  # "module" or one of SCOPE_NODES
    end: int  # its node's end byte
    parent: _Scope | None
    names: set[str] = field(default_factory=set)  # bound here by anything but an import
    declared_global: set[str] = field(default_factory=set)


class ScopeTracker:
    """The scopes of one file, filled during a pre-order walk of its tree-sitter tree: call `enter` for
    every node first, then `bind`, `imported`, `declare_global` and `call` as the node asks, then `open`
    for a node of SCOPE_NODES (after its own name is bound: a def's name belongs to the enclosing scope);
    `free` at the end. end: the byte length of the code (the module scope's end)."""

    def __init__(self, end: int) -> None:
        self.module = _Scope("module", end, None)
        self._stack = [self.module]
        self._scopes = [self.module]
        self._imported: set[str] = set()
        self._calls: list[tuple[tuple[int, int], _Scope]] = []

    def enter(self, node: Node) -> None:
        """Leave the scopes that ended before `node` starts (pre-order: a scope's nodes come before the
        first node after it)."""
        start = node.start_byte
        while len(self._stack) > 1 and self._stack[-1].end <= start:
            self._stack.pop()

    def open(self, node: Node) -> None:
        """`node` (of SCOPE_NODES) opens a scope: the nodes under it bind names there."""
        scope = _Scope(node.type, node.end_byte, self._stack[-1])
        self._stack.append(scope)
        self._scopes.append(scope)

    def bind(self, names: Iterable[str], walrus: bool = False) -> None:
        """`names` are bound in the current scope (walrus: ``(x := ...)``, in the nearest scope that is no
        comprehension, PEP 572)."""
        scope = self._stack[-1]
        while walrus and scope.kind in _COMPREHENSIONS and scope.parent is not None:
            scope = scope.parent
        scope.names.update(names)

    def imported(self, node: Node) -> None:
        """Record the names an import statement `node` binds (``import a.b`` binds a; ``import a as b``,
        ``from a import c as b`` bind b)."""
        for c in node.named_children:
            if c.type == "aliased_import":
                self._imported.add(name_text(c.child_by_field_name("alias")))
            elif c.type == "dotted_name" and c != node.child_by_field_name("module_name"):
                self._imported.add(name_text(c).split(".")[0])

    def declare_global(self, node: Node) -> None:
        """``global a, b`` (`node`): in the current function, a and b are the module's."""
        self._stack[-1].declared_global.update(
            name_text(c) for c in node.named_children if c.type == "identifier"
        )

    def call(self, node: Node) -> None:
        """A call `node` (its span as CallSite.span) is made in the current scope."""
        self._calls.append(((node.start_byte, node.end_byte), self._stack[-1]))

    def free(self) -> tuple[frozenset[str], Free]:
        """(shadowable, free): the imported names the file also binds another way somewhere, and for each
        call whose scopes do not bind some of them, those it sees as their import (only calls with any:
        most files have no shadowable name and an empty map). A call not recorded sees none (callers
        stay as conservative as before: the name is the file's own)."""
        for scope in self._scopes:
            self.module.names.update(scope.names & scope.declared_global)
        bound = set().union(*(s.names for s in self._scopes))
        shadowable = frozenset(self._imported & bound)
        if not shadowable:
            return shadowable, {}
        seen: dict[int, frozenset[str]] = {}
        out: Free = {}
        for span, scope in self._calls:
            free = seen.get(id(scope))
            if free is None:
                free = seen[id(scope)] = frozenset(n for n in shadowable if not _visible(n, scope))
            if free:
                out[span] = free
        return shadowable, out


def _visible(name: str, scope: _Scope) -> bool:
    """True when `name` is bound in `scope` or a scope it sees: its enclosing functions, lambdas and
    comprehensions, and the module; an enclosing class body only when it is `scope` itself."""
    current: _Scope | None = scope
    while current is not None:
        if (current is scope or current.kind != "class_definition") and name in current.names:
            return True
        current = current.parent
    return False
