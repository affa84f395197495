"""JSON read from stored or untrusted text (history rows, caches, the index's lookup), one way: text that is
no JSON and JSON nested deeper than Python's recursion limit are both ValueError.

json.loads raises RecursionError for ``{"a":{"a":...}}`` nested some thousands deep (the C decoder follows
the interpreter's recursion limit); callers that caught ValueError alone crashed on it (break-it pass 4: a
history row's proposal nested 5,000 deep crashed the history screen with a traceback).
"""

from __future__ import annotations

import json
from typing import Any

#: The message of the ValueError for JSON nested deeper than json.loads can follow.
TOO_DEEP = "JSON nested deeper than Python's recursion limit"


def loads(data: str | bytes | bytearray) -> Any:
    """json.loads(data). Raises ValueError (json.JSONDecodeError for text that is no JSON, a plain
    ValueError with TOO_DEEP for JSON nested deeper than Python's recursion limit) and TypeError for data
    that is not text or bytes."""
    try:
        return json.loads(data)
    except RecursionError:
        raise ValueError(TOO_DEEP) from None


def split_json_lines(text: str) -> list[str]:
    """The lines of JSON Lines `text`: split at "\\n" alone, a "\\r" before it dropped (JSON Lines end each
    value with LF, jsonlines.org). str.splitlines() also splits at U+2028, U+2029 and U+0085, which JSON
    holds raw inside a string (json.dumps(ensure_ascii=False) writes U+2028 as it is): a model answer with
    U+2028 made `eval run`'s own answers file unreadable to it ("not JSON Lines"), and a tools file with one
    in a description lost its lines (break-it round 7). The last element is "" when `text` ends with a
    newline; blank lines are the caller's to skip."""
    return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]
