"""Shared tree-sitter Python parser (lazy: loading the grammar costs ~5 ms, done once per process), and the
one bracket scanner over plain text (close_bracket) that check/extract.py and pool/repair.py use."""

from __future__ import annotations

import ast
import re
import threading

import tree_sitter_python
from tree_sitter import Language, Node, Parser, Query, QueryCursor, Tree

_local = threading.local()
#: A one-line string literal in single or double quotes, backslash escapes honoured (what close_bracket
#: skips; a quote not closed on its line matches nothing).
QUOTED = re.compile(r"""'(?:\\.|[^\\'\n])*'|"(?:\\.|[^\\"\n])*\"""")


def parser() -> Parser:
    """A tree-sitter Parser for Python, one per thread (Parser objects are not thread-safe)."""
    p = getattr(_local, "parser", None)
    if p is None:
        p = Parser(Language(tree_sitter_python.language()))
        _local.parser = p
    return p


#: Compiled tree-sitter queries by pattern text (captures()); a Query is read-only once built.
_QUERIES: dict[str, Query] = {}


def captures(node: Node, pattern: str) -> dict[str, list[Node]]:
    """Capture name -> the nodes under `node` that tree-sitter query `pattern` captures (in C: no Python
    walk over every node). The pattern is compiled once per process. Raises tree_sitter.QueryError for a
    pattern the Python grammar cannot hold."""
    query = _QUERIES.get(pattern)
    if query is None:
        query = _QUERIES[pattern] = Query(Language(tree_sitter_python.language()), pattern)
    return QueryCursor(query).captures(node)


def parse(code: str | bytes) -> Tree:
    """Parse Python source text (str is UTF-8 encoded; NUL bytes are fine) into a tree-sitter Tree.

    The last tree of this thread is kept and given again for the same text (trees are never edited
    here): `check` of a file scans its calls (callsite.scan), then reads its imports (imports.py), and
    parsed each file twice (issue 39)."""
    data = code.encode("utf-8", "surrogatepass") if isinstance(code, str) else code
    last = getattr(_local, "last", None)
    if last is not None and last[0] == data:
        return last[1]
    tree = parser().parse(data)
    _local.last = (data, tree)
    return tree


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


def close_bracket(text: str, open_at: int, max_chars: int | None = None) -> int | None:
    """Index just past the bracket that closes the one at `open_at` ((, [ or {), counting all three kinds
    and skipping one-line quoted strings (QUOTED), in plain text that need not parse (prose, pool entries).

    Args:
        text: the text; text[open_at] is the opening bracket.
        open_at: index of the opening bracket.
        max_chars: scan at most this many characters from open_at (None: to the end of the text).

    Returns:
        The index after the closing bracket, or None when it is not closed within max_chars or a quote is
        not closed on its line. The closing bracket's kind is not checked (``f(a]`` closes at the "]"):
        callers that need a ")" look at text[end - 1].
    """
    depth, i = 0, open_at
    stop = len(text) if max_chars is None else min(len(text), open_at + max_chars)
    while i < stop:
        c = text[i]
        if c in "'\"":
            m = QUOTED.match(text, i)
            if m is None:
                return None
            i = m.end()
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def python_parses(code: str) -> bool:
    """True when the running Python compiles `code` as a module (``ast.parse``; nothing is executed); False
    for a syntax error, NUL bytes, or code too deep or too large for Python's parser."""
    try:
        ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True
