"""Values a task says not to use: "delete old.log, not new.log", "remove old.txt but keep backup.txt",
"every .tmp file except keep.tmp", "copy a to b instead of c". Such a value is no value of the call: filling
never places it, the choice never counts it, and it is not said to be left out (break-it round 30: the call
acted on the very file the task said to keep: ``shutil.rmtree('new.log')``, ``os.replace('old report.txt',
'backup.txt')``).

A value is excluded when one of EXCLUDING's words stands within EXCLUDE_WORDS words before it, in its own
clause (after the last ",", ";", "(" or sentence end before it). A bound is no exclusion: "not more than 5",
"without exceeding 100" keep their number (BOUND_AFTER).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gorilla_tui.fill.candidate import Candidate

#: Words that set the value after them apart from the call's.
EXCLUDING = re.compile(
    r"\b(?:not|never|except|excluding|exclude|without|but\s+keep|keep(?:ing)?\s+only|instead\s+of|rather\s+than"
    r"|other\s+than|apart\s+from|but\s+leave)\b",
    re.IGNORECASE,
)
#: Words after "not" or "without" that make it a bound on the value, not its exclusion ("not more than 5",
#: "should not be more than 500 calories": BFCL parallel_multiple_124), or a doubt ("not sure if the 'King of
#: Hearts' is in the deck": parallel_multiple_191).
BOUND_AFTER = re.compile(
    r"\s+(?:(?:be|go|get|run|cost|take|weigh)\s+)?(?:more|less|fewer|greater|larger|smaller|higher|lower|over|under|above|below|beyond|exceed\w*|later"
    r"|earlier|before|after|longer|shorter|older|newer|to\s+exceed|bigger|sure|certain|know\w*)\b",
    re.IGNORECASE,
)
#: Most words between such a word and the value ("not the file new.log": 2).
EXCLUDE_WORDS = 3
_CLAUSE_END = re.compile(r"[,;(]|[.!?]\s")


def excluded(task: str, start: int) -> bool:
    """Whether the value of `task` that starts at character `start` is one the task says not to use (the
    module's rule)."""
    before = task[:start]
    ends = list(_CLAUSE_END.finditer(before))
    clause = before[ends[-1].end() :] if ends else before
    for m in EXCLUDING.finditer(clause):
        if BOUND_AFTER.match(clause, m.end()):
            continue
        if len(clause[m.end() :].split()) <= EXCLUDE_WORDS:
            return True
    return False


def kept(task: str, values: Sequence[Candidate]) -> list[Candidate]:
    """`values` without those the task says not to use (excluded); a value a parameter declares (start -1)
    stays."""
    return [c for c in values if c.start < 0 or not excluded(task, c.start)]
