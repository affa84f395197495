"""A complete call's example values replaced by the task's own (issue 37).

Some sources write each entry's call with made-up values (APIZoo: ``service.users().settings().sendAs()
.delete(userId='user_id', sendAsEmail='alias@example.com').execute()``): the call is complete, so filling had
no parameter to fill and the proposal kept 'alias@example.com' for "send an email to bob@example.com". A
source says so in its manifest (``example_values = true``, index/apizoo.toml); the APIBench hubs do not:
their values name the model (``torch.hub.load('pytorch/vision', 'resnet50', pretrained=True)``) and stay.

The rule, without the model: each string value of the call (a keyword's, or a literal dict's entry under a
string key: ``body={'sendAsEmail': ...}``) has a shape, an e-mail address, a URL, a path or file name, or
an ISO 8601 date (shape_of); the task's values of one shape (fill/values.py strings: atomic values) replace
the call's values of that shape in order, the first of the task's for the first of the call's. Every
other literal keyword value is kept and listed with origin "doc" ("from the doc"), never as the task's.
"""

from __future__ import annotations

import ast
from typing import Any

from gorilla_tui.fill.candidate import literal
from gorilla_tui.fill.values import strings
from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.examples import shape_of
from gorilla_tui.pool.manifest import EXAMPLE_VALUES, packaged_values
from gorilla_tui.types import Argument


def has_examples(doc: ApiDoc) -> bool:
    """Whether `doc`'s source writes calls with example values (its packaged manifest's EXAMPLE_VALUES, as
    the checker reads it: pool/manifest.py packaged_values)."""
    return bool(packaged_values(EXAMPLE_VALUES).get(doc.source))


def _slots(tree: ast.AST) -> list[tuple[str, ast.Constant]]:
    """(name, value node) of each literal value of the calls in `tree` that a name labels: a keyword
    argument's, and a dict literal's entry under a string key inside one, in source order."""
    out: list[tuple[str, ast.Constant]] = []

    def visit(name: str, node: ast.expr) -> None:
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float)):
            out.append((name, node))
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    visit(key.value, value)

    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg is not None:
                    visit(kw.arg, kw.value)
    return sorted(out, key=lambda s: (s[1].lineno, s[1].col_offset))


def replace_examples(doc: ApiDoc, task: str) -> tuple[str, list[Argument]] | None:
    """`doc`'s call with the task's values in place of its example values of the same shape, and an
    Argument per labelled literal value (origin "task" where replaced, "doc" where kept), or None when the
    doc's source writes no example values (has_examples), its call is no Python Python's parser reads
    (a REST line), or it has no labelled literal value. Never evaluated: values are read with ast and
    written as literals. Shapes: shape_of; the task's values: fill/values.py strings (atomic ones)."""
    if not has_examples(doc):
        return None
    call = doc.call.strip()
    try:
        tree = ast.parse(call, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    slots = _slots(tree)
    if not slots:
        return None
    offered: dict[str, list[str]] = {}
    for c in strings(task):
        shape = shape_of(c.value) if c.atomic and isinstance(c.value, str) else ""
        if shape and c.value not in offered.setdefault(shape, []):
            offered[shape].append(c.value)
    lines = call.splitlines(keepends=True)
    starts = [sum(len(x) for x in lines[:i]) for i in range(len(lines))]
    edits: list[tuple[int, int, str]] = []
    arguments = []
    for name, node in slots:
        shape = shape_of(node.value) if isinstance(node.value, str) else ""
        values = offered.get(shape, [])
        if values:
            new = literal(values.pop(0))
            begin = starts[node.lineno - 1] + _char_offset(lines[node.lineno - 1], node.col_offset)
            end = starts[node.end_lineno - 1] + _char_offset(lines[node.end_lineno - 1], node.end_col_offset)
            edits.append((begin, end, new))
            arguments.append(Argument(name, new, "task"))
        else:
            arguments.append(Argument(name, _source(node.value), "doc"))
    for begin, end, new in sorted(edits, reverse=True):
        call = call[:begin] + new + call[end:]
    return call, arguments


def _char_offset(line: str, byte_offset: int | None) -> int:
    """ast's column (UTF-8 bytes) as a character offset into `line`."""
    return len(line.encode("utf-8")[: byte_offset or 0].decode("utf-8", errors="ignore"))


def _source(value: Any) -> str:
    try:
        return literal(value)
    except TypeError:  # pragma: no cover - _slots keeps str, int and float only
        return repr(value)
