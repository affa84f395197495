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
expected_to_fail() says which, or "".
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
#: Nested functions followed (rule 4): one level, so a file is read a bounded number of times per call.
_DEPTH = 1


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


def expected_to_fail(node: Node | None, depth: int = 0) -> str:
    """Why the call at tree-sitter node `node` (any node inside the call) is expected to fail (module doc
    rules 1-4), e.g. "inside `with self.assertRaises(...)`", or "" when it is not (or node is None)."""
    child, parent = node, node.parent if node is not None else None
    while child is not None and parent is not None:
        kind = parent.type
        if kind == "with_statement" and child == parent.child_by_field_name("body"):
            found = _with_raises(parent)
            if found:
                return f"inside `with {found}(...)`: expected to fail"
        elif kind == "argument_list" and _raises_call(parent.parent):
            return f"passed to {_raises_call(parent.parent)}: expected to fail"
        elif kind == "try_statement" and child == parent.child_by_field_name("body"):
            head = _catches(parent)
            if head:
                return f"inside a try whose `{head}` handles its failure"
        elif kind == "function_definition" and depth < _DEPTH:
            why = _nested_uses_fail(parent, depth)
            if why:
                return why
        child, parent = parent, parent.parent
    return ""


def _nested_uses_fail(function: Node, depth: int) -> str:
    """Rule 4 for function_definition `function`: its name is used in the function around it, and every
    use is expected to fail; else ""."""
    name = _text(function.child_by_field_name("name"))
    outer = function.parent
    while outer is not None and outer.type not in ("function_definition", "module"):
        outer = outer.parent
    if not name or outer is None or outer.type != "function_definition":
        return ""  # a module-level def is used from anywhere (other files, tests)
    uses = []
    stack = [outer.child_by_field_name("body")]
    while stack:
        n = stack.pop()
        if n is None:
            continue
        if n.type == "identifier" and _text(n) == name and n != function.child_by_field_name("name"):
            uses.append(n)
        stack.extend(n.children)
    if uses and all(expected_to_fail(u, depth + 1) for u in uses):
        return f"in {name}(), whose every use is expected to fail"
    return ""
