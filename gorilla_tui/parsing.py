"""Shared tree-sitter Python parser (lazy: loading the grammar costs ~5 ms, done once per process)."""

from __future__ import annotations

import threading

import tree_sitter_python
from tree_sitter import Language, Node, Parser, Tree

_local = threading.local()


def parser() -> Parser:
    """A tree-sitter Parser for Python, one per thread (Parser objects are not thread-safe)."""
    p = getattr(_local, "parser", None)
    if p is None:
        p = Parser(Language(tree_sitter_python.language()))
        _local.parser = p
    return p


def parse(code: str | bytes) -> Tree:
    """Parse Python source text (str is UTF-8 encoded; NUL bytes are fine) into a tree-sitter Tree."""
    data = code.encode("utf-8", "surrogatepass") if isinstance(code, str) else code
    return parser().parse(data)


def has_syntax_error(node: Node) -> bool:
    """True when the subtree holds an ERROR node or a MISSING node (tree-sitter's two error kinds).

    Iterative (no recursion limit on deeply nested input).
    """
    if node.has_error:
        return True
    stack = [node]
    while stack:
        n = stack.pop()
        if n.is_missing or n.type == "ERROR":
            return True
        stack.extend(n.children)
    return False


def syntax_problem(node: Node) -> str | None:
    """The first reason the subtree is not valid Python, as "line:col: what", or None.

    Covers tree-sitter's ERROR and MISSING nodes, and one rule the (permissive) grammar accepts but Python
    rejects: a positional argument after a keyword argument (APIBench Torch Hub has 7 such api_calls,
    e.g. ``torch.hub.load(repo_or_dir='szq0214/MEAL-V2', 'meal_v2', model=...)``). Iterative.
    """
    stack = [node]
    while stack:
        n = stack.pop()
        row, col = n.start_point
        if n.type == "ERROR":
            return f"{row + 1}:{col + 1}: syntax error"
        if n.is_missing:
            return f"{row + 1}:{col + 1}: missing {n.type!r}"
        if n.type == "argument_list":
            seen_keyword = False
            for child in n.named_children:
                if child.type in ("keyword_argument", "dictionary_splat"):
                    seen_keyword = True
                elif seen_keyword and child.type not in ("list_splat", "comment"):
                    r, c = child.start_point
                    return f"{r + 1}:{c + 1}: positional argument follows keyword argument"
        stack.extend(reversed(n.children))
    return None
