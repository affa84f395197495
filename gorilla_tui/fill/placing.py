"""How many of the values a task marks a pool entry's call can take: `placed`, read by the choice
(pipeline_choose.py) where the model's likelihoods leave two hits close.

Retrieval and the model's choice read the task's intent; the values decide nothing there (issue 37).
But a call that has no parameter for them cannot be the call the task asks for: "pick a random number
from 1 to 100" is no ``random.sample(population, k)`` (population takes a sequence: typeshed's
``Sequence[_T]``), it is ``random.randint(a, b)``; "which of ['apple', 'ample'] are spelled close to
'appel'" is no ``select.epoll().close()``. A value counts when a distinct fillable parameter admits its kind
(pool/stub_cache.py kinds for python-env, the declared type for a function-calling source).
"""

from __future__ import annotations

import re

from gorilla_tui.fill.call_grammar import FILLABLE, TaskValues
from gorilla_tui.fill.candidate import Candidate
from gorilla_tui.fill.kinds import with_forwarded
from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.params import Param, params_of
from gorilla_tui.pool.stub_cache import kinds
from gorilla_tui.pool.stub_params import ANY

#: Param.type -> the kinds of value (pool/stub_params.py KINDS) it admits.
_DECLARED = {
    "string": frozenset({"string"}),
    "integer": frozenset({"number"}),
    "number": frozenset({"number"}),
    "boolean": frozenset({"boolean"}),
    "array": frozenset({"array"}),
    "object": frozenset({"object"}),
}


def marked_values(values: TaskValues) -> list[Candidate]:
    """The values a task marks as values, each once: its numbers (a percentage once; not the word "one", a
    determiner far more often than a value: "sort a list of dictionaries by the value of one key", "flatten a
    list of lists into one list" moved the everyday dev tasks py-sort-dicts and s6-flatten from sorted and
    itertools.chain.from_iterable to dict and list.append; nor a number inside a list or a quoted text), the
    strings it writes whole (quoted text, paths, URLs, e-mail addresses) and its lists and dicts; not its
    runs of words."""
    numbers = [c for c in values.numbers if c.percent != "fraction" and c.start >= 0
               and values.text[c.start : c.end].strip().lower() != "one"]  # fmt: skip
    strings = [c for c in values.strings if c.atomic]
    lists = [c for c in values.lists if c.kind in ("list", "dict")]
    # a number inside a list or quoted text is part of that one value: "turn '05/01/2024 10:30' into a
    # datetime" marks one string, not five numbers (fromtimestamp(10) had taken more of them than strptime)
    inside = [(c.start, c.end) for c in [*lists, *strings]]
    numbers = [c for c in numbers if not any(s <= c.start < e for s, e in inside)]
    return numbers + strings + lists


def _kind(c: Candidate) -> str:
    return {"number": "number", "list": "array", "dict": "object"}.get(c.kind, "string")


def _admitted(doc: ApiDoc, params: list[Param]) -> list[frozenset[str]]:
    """The kinds each fillable parameter of `doc` admits: a python-env doc's by its stub (a parameter with a
    default of a known type by that type, else ANY), a function-calling source's by its declared type."""
    stub = kinds(doc.api_name) if doc.source == "python-env" else {}
    out = []
    for p in params:
        if p.kind not in FILLABLE:
            continue
        if p.name in stub:
            out.append(stub[p.name])
        else:
            out.append(_DECLARED.get(p.type, ANY))
    return out


#: A method's call on an instance made by its class: ``pathlib.Path().iterdir()``, ``select.epoll().close()``.
_ON_INSTANCE = re.compile(r"^[\w.]+\([^()]*\)\.\w+\(")


def placed(doc: ApiDoc, values: TaskValues) -> int:
    """How many of the task's marked values (marked_values) distinct parameters of `doc` can take by kind: a
    matching found by augmenting paths (each value to one parameter that admits its kind); a method called on
    an instance (_ON_INSTANCE) takes one more value of any kind, its receiver's (``pathlib.Path('/var/log')
    .iterdir()``, fill/receivers.py), ``*args`` any number, and the keywords a ``**kwargs`` passes on count
    (fill/kinds.py with_forwarded: check_output's cwd). 0 for a doc with no parameters (a hub's complete
    call)."""
    params = with_forwarded(doc, params_of(doc))
    slots = _admitted(doc, params)
    if _ON_INSTANCE.match(doc.call.strip()):
        slots.append(ANY)
    if any(p.kind == "var" for p in params):  # *args takes the values left: os.path.join('a', 'b', 'c')
        slots += [ANY] * len(marked_values(values))
    wanted = [_kind(c) for c in marked_values(values)]
    owner: dict[int, int] = {}  # slot -> value

    def take(v: int, seen: set[int]) -> bool:
        for s, admits in enumerate(slots):
            if wanted[v] in admits and s not in seen:
                seen.add(s)
                if s not in owner or take(owner[s], seen):
                    owner[s] = v
                    return True
        return False

    return sum(1 for v in range(len(wanted)) if take(v, set()))


#: Nats by which a hit that takes more of the task's values may be less likely than the chosen one and still
#: take its place (`by_values`). Chosen on the dev half of bench/data/literal_tasks.toml (83 tasks, each hit's
#: log p(task | doc) recorded, the rule applied offline): right API 64 -> 66 at every margin from 0 to 15
#: (val-close-matches, s7fill-sqlite-quoted turned right, none wrong; 4 moves at 0, 6 from 3 on); 0, the
#: fewest moves: only a hit the model reads the task at least as likely after.
VALUES_MARGIN = 0.0


def by_values(docs: list[ApiDoc], scores: list[float], chosen: int, task: str) -> int:
    """The index of the doc to propose: `chosen`, or the hit that takes the most of the task's marked values
    (`placed`, then the first in retrieval order) among those that take more than the chosen one and whose
    log p(task | doc) (`scores`) is within VALUES_MARGIN of its: "which of ['apple', 'ample'] are spelled
    close to 'appel'" is ``difflib.get_close_matches`` (takes the word and the list), not
    ``select.epoll().close()``, where the model reads both alike. A task that marks no value keeps `chosen`.

    Of hits that take as many values the retrieval order decides, as the "margin" rule does within a source
    (model/choice.py): the model reads such hits a nat or two apart. Session 16, bench/choice_replay.py on the
    recorded dev hits of bench/filling.py (98 tasks): the likelier of two hits taking both numbers moved
    "pick a random number from 1 to 100 for my guessing game" to ``random.Random().uniform`` (hit 4, 1.5 nats
    likelier) past ``random.randint`` (hit 2); the first in retrieval order turned it right, none wrong."""
    values = TaskValues.of(task)
    if not marked_values(values) or not 0 <= chosen < len(docs):
        return chosen
    counts = [placed(d, values) for d in docs]
    better = [(counts[i], -i) for i in range(len(docs))
              if counts[i] > counts[chosen] and scores[i] >= scores[chosen] - VALUES_MARGIN]  # fmt: skip
    return -max(better)[1] if better else chosen
