"""Calls a file expects to fail: never findings of `check PATH` (issue 39).

Tests call APIs wrongly on purpose to test the error (``with self.assertRaises(TypeError): sorted(
iterable=[])``); a linter user does not want those reported, and they are the only wrong calls in the
interpreter's own Lib/test. A call is expected to fail when it is, lexically:
1. in the body of ``with X(...)`` where X is unittest's ``assertRaises`` / ``assertRaisesRegex`` (or
   the old ``assertRaisesRegexp`` / ``failUnlessRaises``) or pytest's ``raises``;
2. in the arguments of such a call (``self.assertRaises(TypeError, lambda: f(1, 2))``);
3. in the body of a ``try`` with a handler that names TypeError, AttributeError or ValueError (the
   errors a wrong call raises: the code handles that failure). A catch-all (``except Exception``, a bare
   ``except``) is a fallback, not an expectation: a made-up model id inside one is still a finding (a
   standard-library call under one is not judged: judged.py rule 3);
4. in a nested function whose every use in the function around it is expected to fail by 1-3
   (``async def too_many(): await aiter(gen(), 1)`` then ``with self.assertRaises(TypeError):
   loop.run_until_complete(too_many())``).
ExpectedFailures(root) reads a tree once, top down, and then says for any call which rule holds, or "".
Break-it round 7: the rules were read per call by walking up tree-sitter's parents, and a parent costs a
walk down from the root (the tree keeps no parent pointers), so 2,000 calls in one ``and`` chain took 119 s;
one pass over the tree keeps `check` linear in the file.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node

#: The last name of a callee that asserts the code in its body or arguments raises (unittest.TestCase
#: assertRaises / assertRaisesRegex, their old aliases; pytest.raises).
_RAISES = re.compile(r"(?:^|\.)(?:assertRaises|assertRaisesRegexp?|failUnlessRaises|raises)$")
#: Exceptions a wrong call raises (TypeError: arguments; AttributeError: a missing name; ValueError: a
#: wrong value), named by a handler that expects them.
_CAUGHT = re.compile(r"\b(?:TypeError|AttributeError|ValueError)\b")
#: A node's place in its tree: (start byte, end byte, kind id), the same for every Node object of it.
_Key = tuple[int, int, int]
#: Parents looked at from the node at a call's start to the call or identifier recorded for it.
_UP = 4


def _key(node: Node) -> _Key:
    return (node.start_byte, node.end_byte, node.kind_id)


def _text(node: Node | None) -> str:
    return (node.text or b"").decode("utf-8", "replace") if node is not None else ""


def _raises_call(node: Node | None) -> str:
    """The callee text of `node` when it is a call of an assert-raises function (_RAISES), else ""."""
    if node is None or node.type != "call":
        return ""
    callee = _text(node.child_by_field_name("function"))
    return callee if _RAISES.search(callee) else ""


def _with_raises(statement: Node) -> str:
    """The assert-raises callee among the items of with_statement `statement`, else ""."""
    for clause in statement.named_children:
        if clause.type != "with_clause":
            continue
        for item in clause.named_children:
            value = item.child_by_field_name("value") if item.type == "with_item" else item
            while value is not None and value.type == "as_pattern":  # `with raises(E) as cm`
                value = value.named_children[0] if value.named_children else None
            found = _raises_call(value)
            if found:
                return found
    return ""


def _catches(statement: Node) -> str:
    """The handler head of try_statement `statement` that catches a wrong call's error, else ""."""
    for handler in statement.named_children:
        if handler.type not in ("except_clause", "except_group_clause"):
            continue
        head = _text(handler).split(":", 1)[0].strip()
        if _CAUGHT.search(head):
            return head
    return ""


class ExpectedFailures:
    """Module doc rules 1-4 for every call and name of one tree, read in one pass (iterative, so any
    nesting depth): reason(node) is then a dict lookup (and, for rule 4, a look at the uses of the
    functions around the call).

    Args:
        root: the tree-sitter root node of the checked code.
    """

    def __init__(self, root: Node) -> None:
        #: node key -> (innermost rule 1-3 reason or "", its depth, the keys of the function_definitions
        #: around it, innermost last), for calls and identifiers
        self._at: dict[_Key, tuple[str, int, tuple[_Key, ...]]] = {}
        #: function_definition key -> (its node, its depth, the key of the function_definition around it)
        self._functions: dict[_Key, tuple[Node, int, _Key | None]] = {}
        #: identifier text -> keys of the identifiers with it (rule 4 looks a nested function's uses up)
        self._names: dict[str, list[_Key]] = {}
        self._rule4: dict[_Key, str] = {}
        stack: list[tuple[Node, str, int, tuple[_Key, ...], int]] = [(root, "", 0, (), 0)]
        while stack:
            node, why, why_depth, functions, depth = stack.pop()
            kind = node.type
            if kind in ("call", "identifier"):
                self._at[_key(node)] = (why, why_depth, functions)
                if kind == "identifier":
                    self._names.setdefault(_text(node), []).append(_key(node))
            inner: tuple[Node | None, str] = (None, "")  # the child that opens a rule 1-3 context, and why
            if kind == "with_statement":
                found = _with_raises(node)
                if found:
                    inner = (
                        node.child_by_field_name("body"),
                        f"inside `with {found}(...)`: expected to fail",
                    )
            elif kind == "try_statement":
                head = _catches(node)
                if head:
                    inner = (
                        node.child_by_field_name("body"),
                        f"inside a try whose `{head}` handles its failure",
                    )
            elif kind == "call" and _raises_call(node):
                why_args = f"passed to {_raises_call(node)}: expected to fail"
                inner = (node.child_by_field_name("arguments"), why_args)
            if kind == "function_definition":
                self._functions[_key(node)] = (node, depth, functions[-1] if functions else None)
                functions = (*functions, _key(node))
            for child in node.children:
                if inner[0] is not None and _key(child) == _key(inner[0]):
                    stack.append((child, inner[1], depth + 1, functions, depth + 1))
                else:
                    stack.append((child, why, why_depth, functions, depth + 1))

    def reason(self, node: Node | None) -> str:
        """Why the call at `node` (a call or identifier node of this tree; another node: its nearest
        recorded one is not looked for) is expected to fail, e.g. "inside `with self.assertRaises(...)`",
        or "" when it is not (or node is None or not in the tree)."""
        for _ in range(_UP):  # the node at a call's start may be a token of it ("(", a string's quote)
            if node is None or _key(node) in self._at:
                break
            node = node.parent
        at = self._at.get(_key(node)) if node is not None else None
        if at is None:
            return ""
        why, why_depth, functions = at
        for function_id in reversed(functions):  # innermost first, as a walk up the tree meets them
            function, depth, _ = self._functions[function_id]
            if why and why_depth > depth:  # a rule 1-3 context inside this function comes first
                return why
            found = self._nested_uses_fail(function_id)
            if found:
                return found
        return why

    def _nested_uses_fail(self, function_id: _Key) -> str:
        """Rule 4 for a function_definition: its name is used in the function around it, and every use
        is expected to fail by rules 1-3 (one level: a use inside another nested helper is not followed
        further); else "" (memoised per function)."""
        if function_id in self._rule4:
            return self._rule4[function_id]
        function, _, outer = self._functions[function_id]
        name_node = function.child_by_field_name("name")
        name = _text(name_node)
        found = ""
        if name and outer is not None:  # a module-level def is used from anywhere (other files, tests)
            uses = [
                self._at[i]
                for i in self._names.get(name, [])
                if (name_node is None or i != _key(name_node)) and outer in self._at[i][2]
            ]
            if uses and all(why for why, _, _ in uses):
                found = f"in {name}(), whose every use is expected to fail"
        self._rule4[function_id] = found
        return found
