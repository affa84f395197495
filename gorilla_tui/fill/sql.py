"""An SQL statement a task writes without quotes, as one value: "open notes.db and run SELECT * FROM notes"
gives ``'SELECT * FROM notes'`` (fill/values.py reads it as one atom; fill/chains.py passes it to
``execute``), not the words "SELECT", "FROM" and "notes" apart.

A statement starts with its verb in capitals (STATEMENTS, as SQL is written in prose and in the SQLite and
PostgreSQL manuals), holds another keyword in capitals, and goes on while each word follows a keyword or
an operator, or is a keyword itself (a word in capitals); a word in lower case right after an operand ends
it: "run SELECT * FROM users on shop.db" is ``SELECT * FROM users``. Quoted text inside it is part of it
(``WHERE name = 'bob'``).
"""

from __future__ import annotations

import re

#: The verbs a statement starts with.
STATEMENTS = ("SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "ALTER", "REPLACE")
_START = re.compile(rf"\b(?:{'|'.join(STATEMENTS)})\b")
_TOKEN = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"|[\w.]+|[^\w\s]")
#: Operators and punctuation after which an operand follows (``*`` is an operand: ``SELECT *``).
_OPERATORS = frozenset("= < > ! , ( + - / %".split()) | {"<=", ">=", "<>", "!="}


def _keyword(word: str) -> bool:
    return len(word) > 1 and word.isupper() and word.isalpha()


def statements(task: str) -> list[tuple[int, int]]:
    """Spans of the SQL statements `task` writes (the rule in this module's docstring), in order; one with
    fewer than two keywords is none ("DROP the table" is words: SQL says DROP TABLE)."""
    out: list[tuple[int, int]] = []
    pos = 0
    while (m := _START.search(task, pos)) is not None:
        end, want, keywords = m.end(), True, 1  # want: an operand may follow (after a keyword or an operator)
        for t in _TOKEN.finditer(task, m.end()):
            word = t.group()
            if word == ";":
                break
            if _keyword(word) or word in _OPERATORS:
                want, keywords = True, keywords + _keyword(word)
            elif want or word in (")", "*"):
                want = False
            else:
                break
            end = t.end() - (len(word) - len(word.rstrip(".")))  # "... FROM notes." ends before the stop
            if word.endswith(".") and word != ".":
                break
        if keywords >= 2:
            out.append((m.start(), end))
        pos = max(end, m.end())
    return out
