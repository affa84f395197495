"""The shapes of the made-up example values some sources write in their calls (APIZoo's
``sendAsEmail='alias@example.com'``): an e-mail address, a URL, a date, a host name, a path. Filling
replaces a value of a shape with the task's value of that shape (fill/examples.py); the checker takes any
value where the pool's call has one (check/pool_index.py), and keeps every other value (a plain word such
as 'full' or 'draft_body', whose meaning only its parameter gives) as the entry's identity."""

from __future__ import annotations

import ast
import re

_SHAPES = (
    ("email", re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")),
    ("url", re.compile(r"(?:https?|ftp|s3|gs|file)://\S+")),
    ("date", re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?")),
    # a host name is no file name: 'smtp.example.com' keeps its value when the task names report.pdf
    ("host", re.compile(r"[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|io|edu|gov|dev|co|uk|de)", re.IGNORECASE)),
    ("path", re.compile(r"(?:~|\.{1,2})?/?[\w.-]+(?:/[\w.-]+)+/?|[\w-]+(?:\.[\w-]+)*\.[A-Za-z]\w{0,7}")),
)


def shape_of(value: str) -> str:
    """The shape of a string value as a whole: "email", "url", "date", "host" (smtp.example.com), "path",
    or "" (a plain word such as 'me' or 'user_id', whose meaning only the parameter's name gives)."""
    return next((name for name, rx in _SHAPES if rx.fullmatch(value.strip())), "")


def holds_shaped(text: str) -> bool:
    """Whether an argument's text (a string's value without quotes, or a dict or list literal's source)
    is, or holds, a string of a shape (shape_of). Read with ast, never evaluated."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return bool(shape_of(text))
    if not isinstance(node, (ast.Dict, ast.List, ast.Tuple, ast.Set)):
        return bool(shape_of(text))
    return any(
        isinstance(n, ast.Constant) and isinstance(n.value, str) and shape_of(n.value) for n in ast.walk(node)
    )
