"""Whether a call of a checked file sits under a version, platform or existence guard (check/judged.py
rule 3): such code runs only where the name exists, so a name this Python lacks is no finding there.

Guards read (tree-sitter, the node of the call and its ancestors): an ``if`` / ``elif`` / ``while`` / a
conditional expression whose condition tests the version, platform or ``hasattr``, and the ``else`` of
such an ``if``; a decorator with such a condition (``@skipUnless(hasattr(select, "devpoll"))``); a ``try``
whose handlers catch AttributeError, ImportError, NameError or TypeError; and (break-it round 31, F13) an
earlier statement of an enclosing block that leaves it when the test fails (``if sys.version_info <
(3, 12): raise RuntimeError(...)`` / ``return``), and a name the file assigns such a test to
(``PY312 = sys.version_info >= (3, 12)``, then ``if not PY312: return``). `type_ignored` says when the
line of a call tells type checkers an attribute may be missing there (``platform.ios_ver()  # type:
ignore[attr-defined]`` in packaging/tags.py: 3.13's, reached on iOS only).
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node

#: A condition that makes code depend on the Python version or platform (PEP 484 TYPE_CHECKING too).
GUARD = re.compile(
    r"version_info|sys\.version|sys\.platform|os\.name|platform\.|hasattr\(|TYPE_CHECKING|PY[23]"
    r"|WINDOWS|win32|darwin|cygwin|MACOS|is_apple|is_android|is_wasi|is_emscripten"
)
#: Exceptions whose handler means "this name or keyword may not exist here".
_CAUGHT = re.compile(r"\b(AttributeError|ImportError|ModuleNotFoundError|NameError|TypeError|Exception)\b")
#: Statements that leave a block (an early exit: the code after them runs only when the test fails).
_EXITS = frozenset({"return_statement", "raise_statement", "continue_statement", "break_statement"})
#: ``NAME = <guard test>`` at the start of a line: a flag of the version or platform.
_FLAG = re.compile(r"^[ \t]*([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=[ \t]*([^=\n][^\n]*)$", re.MULTILINE)


def _text(node: Node | None) -> str:
    return (node.text or b"").decode("utf-8", "replace") if node is not None else ""


@functools.lru_cache(maxsize=8)  # asked for each unjudged candidate call of one file
def _flags(source: bytes) -> re.Pattern[str] | None:
    """The names `source` assigns a guard test to (``PY312 = sys.version_info >= (3, 12)``) as one
    pattern, or None when there are none."""
    text = source.decode("utf-8", "replace")
    names = {m.group(1) for m in _FLAG.finditer(text) if GUARD.search(m.group(2))}
    return re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, names))) + r")\b") if names else None


def _test(text: str, flags: re.Pattern[str] | None) -> bool:
    return bool(GUARD.search(text) or (flags is not None and flags.search(text)))


def _exits_early(statement: Node, flags: re.Pattern[str] | None) -> bool:
    """True when `statement` is an ``if`` testing a guard whose body ends by leaving the block."""
    if statement.type != "if_statement" or not _test(
        _text(statement.child_by_field_name("condition")), flags
    ):
        return False
    body = statement.child_by_field_name("consequence")
    last = body.named_children[-1] if body is not None and body.named_children else None
    return last is not None and last.type in _EXITS


def guarded(node: Node | None) -> bool:
    """True when `node` (a call's) is under a guard of the module doc: a condition, a decorator, a try
    whose handlers catch the errors of a missing name, or an early exit on a guard before it in a block."""
    top = node
    while top is not None and top.parent is not None:
        top = top.parent
    flags = _flags(top.text or b"") if top is not None else None
    while node is not None:
        parent = node.parent
        if parent is None:
            return False
        if parent.type in ("if_statement", "elif_clause", "conditional_expression", "while_statement"):
            cond = parent.child_by_field_name("condition")
            texts = [cond] if cond is not None else list(parent.named_children)
            if parent.type == "conditional_expression":
                texts = list(parent.named_children)
            if any(_test(_text(t), flags) for t in texts):
                return True
        if (
            parent.type == "else_clause"
            and parent.parent is not None
            and parent.parent.type == "if_statement"
        ):
            if _test(_text(parent.parent.child_by_field_name("condition")), flags):
                return True
        if parent.type == "decorated_definition" and any(
            d.type == "decorator" and _test(_text(d), flags) for d in parent.named_children
        ):  # @unittest.skipUnless(hasattr(select, "devpoll"), ...), @skipIf(sys.platform == ...)
            return True
        if parent.type == "try_statement" and node.type == "block":
            handlers = [
                c for c in parent.named_children if c.type in ("except_clause", "except_group_clause")
            ]
            heads = [_text(h).split(":", 1)[0] for h in handlers]
            if any(_CAUGHT.search(h) or h.strip() == "except" for h in heads):
                return True
        if parent.type in ("block", "module"):
            before = node.prev_named_sibling
            while before is not None:
                if _exits_early(before, flags):
                    return True
                before = before.prev_named_sibling
        node = parent
    return False


#: A comment telling type checkers an attribute may not exist (mypy's attr-defined, a bare ignore, pyright's).
_IGNORED = re.compile(
    r"#\s*(?:type:\s*ignore(?!\[(?![^\]]*attr-defined))|pyright:\s*ignore\[[^\]]*reportAttributeAccessIssue)"
)


def type_ignored(node: Node | None) -> bool:
    """True when a line of `node` (a call's) carries ``# type: ignore`` (bare or naming attr-defined) or
    pyright's reportAttributeAccessIssue ignore: the file's author knows the name may be missing on the
    Python a type checker assumes, so a name this Python lacks there is no finding."""
    if node is None:
        return False
    top = node
    while top.parent is not None:
        top = top.parent
    lines = (top.text or b"").split(b"\n")
    first, last = node.start_point[0], node.end_point[0]
    text = b"\n".join(lines[first : last + 1]).decode("utf-8", "replace")
    return _IGNORED.search(text) is not None
