"""Two things a task asks of a call that the chosen hit may not do, read by the choice
(pipeline_choose.decide) after the model's likelihoods have picked a hit:

- a count the task states ("pick 5 random names from `names`", "the 3 largest numbers of `xs`"): a call
  with no parameter for a number cannot give that many; a hit of the same source that can takes its place
  (`past_countless`: ``random.sample(names, 5)``, not ``random.choice(names)`` with 5 left unused; break-it
  round 30, F-H4, and the CHANGELOG's own example);
- a plain task given a coroutine function (python-env's "async function" docs): ``asyncio.sleep(delay)``
  called without ``await`` returns a coroutine and does not sleep. Where the task does not say async, a hit
  of the same source and function name that is no coroutine takes its place (`past_async`:
  ``time.sleep``); where none is among the hits, the answer says the call must be awaited (ASYNC_NOTE).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gorilla_tui.fill.call_grammar import TaskValues
from gorilla_tui.fill.placing import marked_values, placed
from gorilla_tui.pool.apidoc import ApiDoc

#: Nats by which a hit that can take the count the task states may be less likely than the chosen one and
#: still take its place: pipeline_choose.UNPLACED_MARGIN's plateau (2 to 12 nats moved the same choices on
#: the dev halves' recorded scores), the same question: a call that cannot take the task's value.
COUNT_MARGIN = 5.0
#: A count a task states: a whole number, then at most two words, then a plural noun ("5 random names",
#: "the last 3 items", "3 largest numbers"); not a unit ("3 seconds", "5 minutes", "10 MB") nor a year.
_COUNT = re.compile(r"(?<![\w.,/:-])(\d{1,4})\s+(?:[A-Za-z]+\s+){0,2}?([A-Za-z]+s)\b")
_UNITS = frozenset(
    "seconds secs minutes mins hours hrs days weeks months years milliseconds microseconds nanoseconds ms "
    "bytes kilobytes megabytes gigabytes bits kbs mbs gbs times percent degrees radians pixels points "
    "spaces columns lines characters chars digits decimals places".split()
)
#: Words that say a task wants a coroutine: it may then be given one.
_ASYNC_WORDS = re.compile(r"\basync\w*|\bawait\w*|\bcoroutines?\b|\basyncio\b|\bevent loop\b", re.IGNORECASE)
#: What the answer says of a coroutine function proposed for a task that does not say async.
ASYNC_NOTE = "the call is a coroutine function: it does nothing until awaited (await it inside async code)"


def stated_count(task: str) -> int | None:
    """The count `task` states (_COUNT: "pick 5 random names" -> 5), None when it states none or the noun
    after the number is a unit (_UNITS: "sleep for 3 seconds")."""
    for m in _COUNT.finditer(task):
        if m.group(2).lower() not in _UNITS:
            return int(m.group(1))
    return None


def _takes_count(doc: ApiDoc, values: TaskValues, count: int) -> bool:
    """Whether a fillable parameter of `doc` admits the number `count` (placing.placed on it alone)."""
    numbers = [c for c in values.numbers if c.value == count]
    return bool(numbers) and placed(doc, TaskValues(numbers[:1], [], [], [], values.text)) > 0


def past_countless(docs: Sequence[ApiDoc], scores: Sequence[float], chosen: int, task: str) -> int:
    """The index of the doc to propose: `chosen`, or, when the task states a count (stated_count) that no
    parameter of the chosen doc can take, the first hit of its source in retrieval order that can take it
    and at least as many of the task's marked values (placing.placed), read at most COUNT_MARGIN nats less
    likely (`scores`, log p(task | doc)). Python docs only, as pipeline_choose.past_unplaced."""
    if not 0 <= chosen < len(docs) or len(scores) != len(docs) or docs[chosen].source != "python-env":
        return chosen
    count = stated_count(task)
    if count is None:
        return chosen
    values = TaskValues.of(task)
    if not marked_values(values) or _takes_count(docs[chosen], values, count):
        return chosen
    least = placed(docs[chosen], values)
    taking = (i for i, d in enumerate(docs) if i != chosen and d.source == docs[chosen].source
              and scores[i] >= scores[chosen] - COUNT_MARGIN and _takes_count(d, values, count)
              and placed(d, values) >= least)  # fmt: skip
    return next(taking, chosen)


def is_coroutine(doc: ApiDoc) -> bool:
    """Whether `doc` is a python-env coroutine function or method (pool/pyenv/names.py: functionality
    "async function in asyncio")."""
    return doc.source == "python-env" and doc.functionality.startswith("async ")


def past_async(docs: Sequence[ApiDoc], chosen: int, task: str) -> tuple[int, list[str]]:
    """(index of the doc to propose, notes): `chosen` when it is no coroutine (is_coroutine) or the task says
    async (_ASYNC_WORDS); else the first hit in retrieval order of the same source and function name (the
    last part of api_name: time.sleep for asyncio.sleep) that is no coroutine; else `chosen` with ASYNC_NOTE.
    Break-it round 30, F-H4: "sleep for `delay` seconds" was ``asyncio.sleep(delay)``, valid and never
    awaited."""
    if not 0 <= chosen < len(docs) or not is_coroutine(docs[chosen]) or _ASYNC_WORDS.search(task):
        return chosen, []
    name = docs[chosen].api_name.rsplit(".", 1)[-1]
    twin = next((i for i, d in enumerate(docs) if d.source == docs[chosen].source and not is_coroutine(d)
                 and d.api_name.rsplit(".", 1)[-1] == name), None)  # fmt: skip
    return (twin, []) if twin is not None else (chosen, [ASYNC_NOTE])
