"""The APIBench AST metric exactly as Gorilla's released scripts (ast_eval_th/tf/hf.py) compute it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gorilla_tui.parsing import parse

if TYPE_CHECKING:
    from tree_sitter import Node

#: Hub names this metric knows, and the released script each one follows.
HUBS = ("torchhub", "tensorflowhub", "huggingface")


@dataclass(frozen=True)
class PoolTree:
    """One pool entry prepared for the metric: its index in the pool file (0-based, file order), the callee
    text (api_name) and the identifying argument values, single quotes already stripped.
    Entries the scripts skip (no call children, no identifying argument) are not built at all."""

    index: int
    api_name: bytes
    args: tuple[str, ...]


def _text(node: Node) -> bytes:
    return node.text or b""


def _arg_values(call: Node, hub: str) -> list[bytes]:
    """Identifying argument texts of a pool call node, per hub (GORILLA_METRIC.md section 1)."""
    if call.child_count < 2:
        return []
    out: list[bytes] = []
    for child in call.children[1].children:
        if child.type in ("(", ")", ","):
            continue
        text = child.text.decode("utf-8", "replace") if child.text else ""
        value = child.children[2] if child.child_count > 2 else None
        if hub == "torchhub":
            if ("repo_or_dir" in text or "model" in text) and value is not None:
                out.append(_text(value))
        elif hub == "tensorflowhub":
            is_model = "model=" in text or "model =" in text
            out.append(_text(value) if is_model and value is not None else _text(child))
        else:
            out.append(_text(value) if "=" in text and value is not None else _text(child))
    return out


def _strip_quotes(arg: bytes) -> str:
    return arg.decode("utf-8", "replace").lstrip("'").rstrip("'")


def prepare_pool(api_calls: Sequence[str], hub: str) -> list[PoolTree]:
    """Parse the pool's api_calls (in file order) into PoolTree entries, skipping what the scripts skip.

    Raises ValueError for a hub not in HUBS.
    """
    if hub not in HUBS:
        raise ValueError(f"unknown hub {hub!r} (expected one of {', '.join(HUBS)})")
    trees: list[PoolTree] = []
    for index, api_call in enumerate(api_calls):
        root = parse(api_call).root_node
        if root.child_count == 0 or root.children[0].child_count == 0:
            continue
        call = root.children[0].children[0]
        if call.child_count == 0:
            continue
        args = tuple(_strip_quotes(a) for a in _arg_values(call, hub))
        if not args:
            continue
        trees.append(PoolTree(index, _text(call.children[0]), args))
    return trees


def response_call(text: str, hub: str) -> str | None:
    """The call text the scripts cut out of a response (GORILLA_METRIC.md section 2), or None when Torch Hub
    would count the response as an error (no "api_call" in it). No unescaping, on purpose."""
    parts = text.split("api_call")
    if len(parts) == 1:
        return None if hub == "torchhub" else text
    part = parts[1].split("api_provider")[0]
    start = part.index(":") if ":" in part else 0
    end = part.rindex(")") if ")" in part else -2
    return part[start + 2 : end + 1]


def sub_trees(code: str) -> list[tuple[Node, bytes | None]]:
    """Candidate sub-trees in the scripts' stack order: (node, first child's text or None). Iterative."""
    root = parse(code).root_node
    out: list[tuple[Node, bytes | None]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        out.append((node, _text(node.children[0]) if node.child_count else None))
        stack.extend(c for c in node.children if c.child_count)
    return out


def match(code: str, pool: Sequence[PoolTree]) -> int:
    """Pool file index of the first matching entry (GORILLA_METRIC.md section 4), or -1 for no match."""
    return _match(sub_trees(code), pool)


def _match(candidates: list[tuple[Node, bytes | None]], pool: Sequence[PoolTree]) -> int:
    texts: dict[int, str] = {}
    for entry in pool:
        chosen = len(candidates) - 1
        for i, (_, first) in enumerate(candidates):
            if first == entry.api_name:
                chosen = i
                break
        if chosen not in texts:
            texts[chosen] = _text(candidates[chosen][0]).decode("utf-8", "replace")
        text = texts[chosen]
        if all(arg in text for arg in entry.args):
            return entry.index
    return -1


def pool_callee(candidates: list[tuple[Node, bytes | None]], pool: Sequence[PoolTree]) -> bool | None:
    """Whether a response's candidate sub-trees hold a call whose callee is a pool api_name (True), only
    other calls (False), or no call at all (None). Not part of the released metric: it feeds the
    wrong-hub warning of evaluate.hub_mismatch."""
    names = {entry.api_name for entry in pool}
    calls = [first for node, first in candidates if node.type == "call"]
    if not calls:
        return None
    return any(first in names for first in calls)


@dataclass(frozen=True)
class GorillaOutcome:
    """Per-response result: status "correct", "hallucination" or "error"; matched is the pool file index
    of the winning entry (or -1); callee: pool_callee() of the cut-out call (None when nothing was cut
    out or it holds no call)."""

    status: str
    matched: int = -1
    callee: bool | None = None


def score_response(
    response: dict[str, Any],
    hub: str,
    pool_trees: Sequence[PoolTree],
    pool_domains: Sequence[str],
    domain: str,
) -> GorillaOutcome:
    """Score one response line ({"question_id", "text"}) against the eval item's domain (section 5)."""
    text = response.get("text")
    if not isinstance(text, str):
        return GorillaOutcome("error")
    call = response_call(text, hub)
    if call is None:
        return GorillaOutcome("error")
    candidates = sub_trees(call)
    callee = pool_callee(candidates, pool_trees)
    index = _match(candidates, pool_trees)
    if index == -1:
        return GorillaOutcome("hallucination", callee=callee)
    return GorillaOutcome("correct" if pool_domains[index] == domain else "error", index, callee)
