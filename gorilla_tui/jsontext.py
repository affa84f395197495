"""JSON read from stored or untrusted text (history rows, caches, the index's lookup, source and eval
files), one way: text that is no JSON, a number longer than Python converts and JSON nested deeper than
Python's recursion limit are all ValueError.

A JSON integer of more than sys.get_int_max_str_digits() digits (4,300) made json.loads raise a plain
ValueError ("Exceeds the limit (4300 digits) for integer string conversion"), which loaders that caught
json.JSONDecodeError let through as "internal error" (break-it round 7: a tools file, an OpenAPI document, a
JSON Lines pool). decode() raises it as json.JSONDecodeError at the number's position.

json.loads raises RecursionError for ``{"a":{"a":...}}`` nested some thousands deep (the C decoder follows
the interpreter's recursion limit); callers that caught ValueError alone crashed on it (break-it pass 4: a
history row's proposal nested 5,000 deep crashed the history screen with a traceback).
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

#: The message of the ValueError for JSON nested deeper than json.loads can follow.
TOO_DEEP = "JSON nested deeper than Python's recursion limit"


def decode(data: str | bytes | bytearray, **kwargs: Any) -> Any:
    """json.loads(data, **kwargs), with a number longer than Python converts raised as
    json.JSONDecodeError ("a number of more than N digits") like any other text that is no JSON.
    RecursionError (JSON nested deeper than Python's recursion limit) is left to the caller; loads() makes
    it a ValueError. Raises TypeError for data that is not text or bytes."""
    try:
        return json.loads(data, **kwargs)
    except json.JSONDecodeError:
        raise
    except ValueError as e:
        if "integer string conversion" not in str(e):
            raise
        limit = sys.get_int_max_str_digits()
        text = data if isinstance(data, str) else bytes(data).decode("utf-8", "replace")
        found = re.search(rf"\d{{{limit + 1},}}", text)
        msg = f"a number of more than {limit} digits"
        raise json.JSONDecodeError(msg, text, found.start() if found else 0) from None


def loads(data: str | bytes | bytearray) -> Any:
    """decode(data). Raises ValueError (json.JSONDecodeError for text that is no JSON or a number longer
    than Python converts, a plain ValueError with TOO_DEEP for JSON nested deeper than Python's recursion
    limit) and TypeError for data that is not text or bytes."""
    try:
        return decode(data)
    except RecursionError:
        raise ValueError(TOO_DEEP) from None
