"""How much a task asks beside its values, and which of its values are plain numbers: what the fit judgment
(pipeline_fit_rules.py answer_fit) reads where its signals alone mislead on a short task.

A task of one word ("read `") covers every word of a doc that holds that word: coverage 1.0, and a
Kubernetes REST call "fitted" it (break-it round 32, item 5). A task that is mostly values ("read
notes.txt", 'rename "old name.txt" to "new name.txt"') has so few request words that its signals sit low:
"nothing fits" while the nearest call took every value and was the answer (item 4). request_words counts
what such a task asks; plain_number tells the values a call may leave out without losing the task's object
(a count, an amount) from those it may not (a date, a path, quoted text: item 3).
"""

from __future__ import annotations

import re

from gorilla_tui.retrieve.query.handover import request_text
from gorilla_tui.retrieve.tokenize import tokenize

#: Quoted text of any length: a value, not a request word ("rename "old name.txt" to ...").
_QUOTED = re.compile(r"\"[^\"\n]*\"|`[^`\n]*`|(?<!\w)'[^'\n]*'(?!\w)")
#: A word that holds a value's mark: a digit (numbers, dates, versions, "latin-1"), or a path's, address's or
#: literal's character (notes.txt, ~/x, a@b.org, 10:30, {...}, [...]).
_VALUE_MARK = re.compile(r"[\d./@:\\~{}\[\]]")
#: A number as a task writes one: sign, digits with separators, a decimal part, an exponent, a percent sign.
_NUMBER = re.compile(r"[-+]?(?:\d[\d_,]*)?\.?\d+(?:[eE][-+]?\d+)?%?")


def request_words(task: str) -> list[str]:
    """The words of `task`'s request (handover.request_text) that are neither a value nor a stop word:
    quoted text left out, and every word holding a value's mark (_VALUE_MARK: a digit, ".", "/", "@", ":",
    brackets). "read notes.txt" -> ["read"]; "encode 'héllo' as latin-1" -> ["encode"]; "read `" ->
    ["read"]; "add 90 days to 2026-12-07" -> ["add", "days"]. Each word as typed; a word counts when
    tokenize gives it a BM25 term (stop words give none)."""
    text = _QUOTED.sub(" ", request_text(task))
    return [w for w in text.split() if not _VALUE_MARK.search(w) and tokenize(w)]


def plain_number(value: str) -> bool:
    """Whether `value` (a value of the task as it writes it: fill/unused.py left_out) is a bare number
    ("90", "-5", "2.5", "1e309", "15%"), not a date, a path, a name or quoted text."""
    return bool(_NUMBER.fullmatch(value.strip()))
