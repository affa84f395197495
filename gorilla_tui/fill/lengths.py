"""A length the task gives in characters for a function that takes bytes and writes each as more than one
character: ``secrets.token_hex`` writes 2 hex digits a byte, ``secrets.token_urlsafe`` Base64, 4 characters
each 3 bytes (the secrets docs). "make a 32 character random hex token" is ``token_hex(16)``, not
``token_hex(32)``, 64 characters (break-it round 32); "a password of 12 characters": ``token_urlsafe(9)``."""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable

from gorilla_tui.fill.call_grammar import Slot
from gorilla_tui.fill.candidate import Candidate, literal


def _hex_bytes(chars: int) -> int | None:
    return chars // 2 if chars % 2 == 0 else None


def _base64_bytes(chars: int) -> int | None:
    n = chars * 3 // 4  # token_urlsafe strips the padding: n bytes are ceil(4n / 3) characters
    return n if math.ceil(4 * n / 3) == chars else None


#: api_name -> (its byte-count parameter, the bytes that make a given count of characters, or None where
#: no count does: 13 Base64 characters).
CHARACTERS_OF: dict[str, tuple[str, Callable[[int], int | None]]] = {
    "secrets.token_hex": ("nbytes", _hex_bytes),
    "secrets.token_urlsafe": ("nbytes", _base64_bytes),
}
#: A count of characters: the number's next word.
_CHARACTERS = re.compile(r"\s*-?\s*(?:characters?|chars?|letters?|digits?|symbols?)\b", re.IGNORECASE)


def with_character_counts(api_name: str, offered: list[Slot], task: str) -> list[Slot]:
    """`offered` where a byte count of a function that writes each byte as several characters (CHARACTERS_OF)
    takes the bytes that make the count of characters the task gives ("32 character hex": 16) in place of
    that number; a count no number of bytes makes exactly is left as the task writes it, as is every
    count of bytes ("16 bytes in hex": 16)."""
    if api_name not in CHARACTERS_OF:
        return offered
    name, to_bytes = CHARACTERS_OF[api_name]
    out = []
    for slot in offered:
        if slot.param.name == name:
            values = {}
            for text, c in slot.values.items():
                n = to_bytes(c.value) if isinstance(c.value, int) and c.start >= 0 else None
                if n is not None and n > 0 and _CHARACTERS.match(task, c.end):
                    c = dataclasses.replace(c, text=literal(n), value=n)
                    text = c.text
                values[text] = c
            slot = dataclasses.replace(slot, values=values)
        out.append(slot)
    return out


def character_counts(numbers: list[Candidate], task: str, call: str) -> list[Candidate]:
    """The counts of characters among `numbers` (the task's) as the bytes a function of CHARACTERS_OF that
    `call` (a filled call's source) calls takes for them, each over the count's span: what fill/unused.py
    finds in ``secrets.token_hex(16)`` for "a 32 character hex token"."""
    out = []
    for api_name, (_name, to_bytes) in CHARACTERS_OF.items():
        if api_name.rpartition(".")[2] + "(" not in call:
            continue
        for c in numbers:
            n = to_bytes(c.value) if isinstance(c.value, int) and c.start >= 0 else None
            if n is not None and n > 0 and _CHARACTERS.match(task, c.end):
                out.append(dataclasses.replace(c, text=literal(n), value=n))
    return out
