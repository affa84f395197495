"""The model writes a call's arguments, and further calls, one step at a time (fill/filler.py fill uses it).

Each step offers the texts the call may go on with (``name=value`` of the next slots, ``)``, ``; callee(``)
to a model.constrained.Chooser, which picks the likeliest under small biases (fill/biases.py: values read
on in the task's order, values an earlier call used, going on with another call, a value beside its
parameter's name, a further call's values after its previous call's, a function the task names by its own
words; fill/roles.py, fill/units.py, fill/requests.py, fill/series.py: the others).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from gorilla_tui.fill import biases
from gorilla_tui.fill.biases import (
    BESIDE_OTHER_BIAS,
    CALL_BIAS,
    JOIN_BIAS,
    MENTION_BIAS,
    NEAR_BIAS,
    NEXT_NAMED_BIAS,
    ON_BIAS,
    PLAN_BIAS,
    PLAN_CALL_BIAS,
    REUSE_BIAS,
)
from gorilla_tui.fill.call_grammar import Slot, TaskValues
from gorilla_tui.fill.candidate import Candidate
from gorilla_tui.fill.chains import onward
from gorilla_tui.fill.naming import mentioned_functions, named_after, named_again, named_at
from gorilla_tui.fill.requests import clause_bias, request_starts, requests, share_optionals
from gorilla_tui.fill.roles import container_starts, word_bias
from gorilla_tui.fill.series import Plan, Progress, plan, series
from gorilla_tui.fill.target import Target
from gorilla_tui.fill.units import unit_bias

#: Most calls one task gets.
MAX_CALLS = 8


Written = list[tuple["Target", dict[str, tuple[str, str]]]]


def write_calls(backend: Any, prompt: str, targets: Sequence[Target], prefix: str = "",
                cancel: threading.Event | None = None, task: str = "",
                chained: dict[str, list[Target]] | None = None) -> Written:  # fmt: skip
    """The calls the model writes with backend.chooser: the first target's arguments, then, while the model
    goes on with "; callee(" rather than ending the line, another call of any target (at most MAX_CALLS):
    one with a value left for it (_fresh), or one not called yet while the task makes more requests
    (requests.requests) than functions were called, or calls were made. A value an earlier call used may be
    used again, at REUSE_BIAS; a further call that uses no value of the task no earlier call used is
    dropped, and ends the calls. A call's values are kept to one request of the task and an optional value
    one call took goes to the others that offer it (fill/requests.py). `prefix`: the fixed start of `prompt`
    whose KV cache the backend keeps between calls (LlamaBackend.chooser); `task`: the task as typed (what
    joins a list's items, the enum members it names). `chained`: callee -> the Targets of methods called on
    its call's result (fill/chains.py links), offered as ``.method(`` after that call while the task has a
    value left for one (_fresh), at CHAIN_BIAS; the call and its method become one written call, and the
    calls end. Returns (target, name -> (value
    source, origin)) per call, in order. Raises what backend.chooser raises."""
    out: Written = []
    before: list[tuple[int, int]] = []
    asks = requests(task)
    prior: dict[str, dict[str, Candidate]] = {}  # callee -> parameter -> the value its last call gave
    mentioned = mentioned_functions(targets, task) if asks > 1 else set()
    enumerated = series(TaskValues.of(task)) if task else []
    plans = {t.callee: plan(enumerated, t.offered, len(targets) > 1) for t in targets} if enumerated else {}
    progress: dict[str, Progress] = {t.callee: Progress() for t in targets}  # what calls did with the series
    at = request_starts(task) if asks > 1 else [0]  # where each request starts
    with backend.chooser(prompt, cancel, prefix=prefix) as chooser:
        target = targets[0]
        while True:
            earlier = list(before)
            spans: dict[str, Candidate] = {}
            last = prior.get(target.callee)
            calls_of = sum(1 for t, _g in out if t.callee == target.callee)
            given = _arguments_stepwise(
                chooser,
                target.offered,
                before,
                task,
                last,
                spans,
                (plans.get(target.callee, Plan()), progress.setdefault(target.callee, Progress())),
                (at, named_at(target.callee, targets, task, _next_request(at, before))),
            )
            if any(t.callee == target.callee and g == given for t, g in out):
                break  # the same call again: the task asks for no more
            if calls_of < plans.get(target.callee, Plan()).wanted(progress[target.callee]):
                pass  # a call the task's series ask for, though it reuses earlier values
            elif (
                any(t.callee == target.callee for t, _g in out)
                and before[len(earlier) :]
                and all(any(s < e2 and s2 < e for s2, e2 in earlier) for s, e in before[len(earlier) :])
            ):
                break  # a call of values earlier calls used only (36 and 60 of "36 and 48, 60 and 96")
            out.append((target, given))
            prior[target.callee] = spans
            if target.callee in plans:
                plans[target.callee].record(spans, progress.setdefault(target.callee, Progress()))
            if len(out) >= MAX_CALLS:
                break
            # another function only among tools the source describes (a schema); an API of a library is
            # called again only itself ("delete a.txt and b.txt"), never a neighbour hit (textwrap.shorten
            # after textwrap.wrap)
            # a function not called yet, while the task makes more requests than functions were called
            # or any function while the task makes more requests than calls were made ("... and then
            # find four more restaurants in Los Angeles"), or one the task names (naming.mentioned_functions)
            called = {t.callee for t, _g in out}
            more = len(called) < asks
            count = {c: sum(1 for t, _g in out if t.callee == c) for c in called}
            fresh = [
                t for t in targets if (t is targets[0] or t.doc.parameters is not None)
                and (_fresh(t, before) or more and t.callee not in called or len(out) < asks
                     or t.callee in mentioned and t.callee not in called
                     or 0 < count.get(t.callee, 0) < plans.get(t.callee, Plan()).wanted(progress[t.callee]))
            ]  # fmt: skip
            ways = onward((chained or {}).get(target.callee, ()), before, task)
            if not fresh and not ways:
                break
            uncalled = [t for t in fresh if t.callee not in called]
            end = max((e for _s, e in before), default=-1)
            named_next = named_after(uncalled, fresh, task, end)
            again, at_again = named_again(fresh, called, task, end, at, lambda t, lo, hi: any(
                biases.marked(c, sl) and lo <= c.start < hi and not biases.overlaps(c, before)
                for sl in t.offered if sl.param.required for c in sl.values.values()))  # fmt: skip
            if again and (not named_next or at_again < named_at(named_next, fresh, task, end)):
                named_next = again  # named again before the next function not called yet
            bias = [CALL_BIAS + (MENTION_BIAS if t.callee in mentioned and t.callee not in called else 0.0)
                    + (NEXT_NAMED_BIAS if t.callee == named_next else 0.0)
                    + PLAN_CALL_BIAS * plans.get(t.callee, Plan()).more(progress[t.callee])
                    for t in fresh]  # fmt: skip
            bias += [b for _t, b in ways]
            texts = [f"; {t.callee}(" for t in fresh] + [f".{t.callee.rsplit('.', 1)[1]}(" for t, _b in ways]
            pick = chooser.choose([*texts, "\n"], bias=bias)
            if len(fresh) <= pick < len(texts):  # sqlite3.connect('notes.db').execute(...): one call
                link = ways[pick - len(fresh)][0]
                out[-1] = (link, {**out[-1][1], **_arguments_stepwise(chooser, link.offered, before, task)})
                break
            if pick >= len(fresh):
                break
            target = fresh[pick]
    share_optionals(out)
    return out


def _arguments_stepwise(chooser: Any, offered: Sequence[Slot], before: list[tuple[int, int]],
                        task: str = "", prior: dict[str, Candidate] | None = None,
                        spans: dict[str, Candidate] | None = None,
                        planned: tuple[Plan, Progress] | None = None,
                        at: tuple[Sequence[int], int] = ((0,), -1)
                        ) -> dict[str, tuple[str, str]]:  # fmt: skip
    """name -> (value source, origin) of one call, written by the model one argument at a time (after
    ``callee(``, through the closing ")"): at each step the options are ``name=value`` of every slot up to
    and including the next required one (so optional slots may be skipped), or ")" once no required slot is
    left. A value of the task used by one argument is not offered to a later one of the same call (its
    span, fill/values.py); one an earlier call used (`before`, extended here) is, at REUSE_BIAS. A value
    beside a word of its parameter's name gets NEAR_BIAS; the first unused value after the one the previous
    call of this function gave the parameter (`prior`: name -> Candidate) gets ON_BIAS. `spans`, when
    given, gets name -> Candidate of each value of the task this call uses. `planned`: the function's Plan
    of the task's series and what its calls so far did (fill/series.py): PLAN_BIAS times Plan.favours.
    `at`: where the task's requests start and where it names this call's function (fill/requests.py
    clause_bias: a call's values kept to one request)."""
    given: dict[str, tuple[str, str]] = {}
    used: list[tuple[int, int]] = []
    i = 0
    while i < len(offered):
        sep = ", " if given else ""
        nxt = next((j for j in range(i, len(offered)) if offered[j].param.required), None)
        reach = offered[i : (nxt + 1 if nxt is not None else len(offered))]
        options: list[tuple[int, str, str]] = []  # (slot index, value source, origin)
        where: dict[tuple[int, str], Candidate] = {}  # a value the task writes twice: the unused place
        for k, slot in enumerate(reach, start=i):
            if slot.placeholder:
                options.append((k, slot.param.name, "missing"))
                continue
            for text, c in slot.values.items():
                c = where[k, text] = biases.located(c, [*used, *before], task)
                if c.start < 0 or not biases.overlaps(c, used):
                    options.append((k, text, "task"))
            if slot.param.required and not any(o[0] == k for o in options):
                options.append((k, slot.param.name, "missing"))  # every value is taken
        texts = [
            f"{sep}{offered[k].param.name}={'[' if offered[k].is_list and o == 'task' else ''}{v}"
            for k, v, o in options
        ]
        named = [biases.extra(offered[k], where[k, v], task, before) if o == "task" else 0.0
                 for k, v, o in options]  # fmt: skip
        if nxt is None:
            texts.append(")")
        starts = [c.start if (c := where.get((k, v))) is not None and c.start >= 0 else 1 << 30
                  for k, v, _o in options]  # fmt: skip
        # the order read on from the values used, not from what the call acts on: "replace `old` with `new`
        # in `line`" gives line to the receiver first, then old and new in the task's order
        acted = container_starts(task)
        bias = order = biases.order_bias(starts, [u for u in used if u[0] not in acted])

        def shared(k: int, c: Candidate) -> bool:
            return planned is not None and planned[0].shares(c, offered[k].param.name, planned[1])

        bias = [b + n + (REUSE_BIAS if o == "task" and biases.overlaps(where[k, v], before)
                         and not shared(k, where[k, v]) else 0.0)
                for b, n, (k, v, o) in zip(bias, named, options, strict=True)]  # fmt: skip
        bias = [b + w for b, w in zip(bias, word_bias(offered, options, where, task), strict=True)]
        cands = [where[k, v] if o == "task" else None for k, v, o in options]
        bias = [b + w for b, w in zip(bias, clause_bias(at[0], used, cands, at[1]), strict=True)]
        bias = [b + (NEAR_BIAS if o == "task" and biases.near(offered[k].param.name, where[k, v], task)
                     else -BESIDE_OTHER_BIAS if o == "task"
                     and biases.beside_other(k, offered, where[k, v], task, given)
                     else 0.0) for b, (k, v, o) in zip(bias, options, strict=True)]  # fmt: skip
        bias = [b + unit_bias([sl.param.name for sl in offered], k, where[k, v], task) if o == "task" else b
                for b, (k, v, o) in zip(bias, options, strict=True)]  # fmt: skip
        if (
            planned is not None and planned[0].parts
        ):  # a series' items by position ("Taylor Swift and Maroon 5")
            plan_of, done = planned
            bias = [b + PLAN_BIAS * plan_of.favours(where[k, v], offered[k].param.name, done)
                    if o == "task" and not offered[k].is_list else b
                    for b, (k, v, o) in zip(bias, options, strict=True)]  # fmt: skip
        for k in {k for k, _v, _o in options} if prior else ():
            name = offered[k].param.name
            last = prior.get(name)
            near = last is not None and biases.near(name, last, task)
            on = biases.reads_on(last, [
                (j, where[k, v]) for j, (k2, v, o) in enumerate(options) if k2 == k and o == "task"
                and not biases.overlaps(where[k, v], [*used, *before])
                and (not near or biases.near(name, where[k, v], task))
            ])  # fmt: skip
            if on is not None:  # the task's order of the previous call's values, not this call's, decides
                for j, (k2, _v, _o) in enumerate(options):
                    bias[j] -= order[j] if k2 == k else 0.0
                bias[on] += ON_BIAS
        pick = chooser.choose(texts, ends=(",", ")"), bias=bias)
        if pick >= len(options):  # ")" : no more optional arguments
            break
        k, value, origin = options[pick]
        slot = offered[k]
        if slot.is_list and origin == "task":
            value = _list_items(chooser, slot, value, used, task)
        elif (c := where.get((k, value))) is not None and c.start >= 0:
            used.append((c.start, c.end))
            if spans is not None:
                spans[slot.param.name] = c
        given[slot.param.name] = (value, origin)
        i = k + 1
    else:
        chooser.choose([")"])
    before.extend(used)
    return given


def _next_request(starts: Sequence[int], before: Sequence[tuple[int, int]]) -> int:
    """Where a further call's function is looked for by name (naming.named_at): the start of the request
    after the one the values used so far end in (the first call: -1, the whole task). "... ATP in the
    mitochondria and does it have a specific function ...? Also, ... DNA": the second call's request is
    the second, not the first one's "specific function"."""
    if not before:
        return -1
    end = max(e for _s, e in before)
    return next((s for s in starts if s >= end), 1 << 30)


def _fresh(target: Target, before: Sequence[tuple[int, int]]) -> bool:
    """True when `target` can be called again with a value no call used yet: a required slot that takes
    numbers or values the task writes whole (paths, URLs, quoted text, dates, digits) has one whose span is
    still unused
    ("20 minutes and 15 minutes": 15 is left for a second call). Runs of words are always left over, so
    they do not count."""
    marked = [
        sl for sl in target.offered
        if sl.param.required and any(biases.marked(c, sl) for c in sl.values.values())
    ]  # fmt: skip
    return bool(marked) and any(
        biases.marked(c, sl) and not biases.overlaps(c, before) for sl in marked for c in sl.values.values()
    )  # fmt: skip


def _use(slot: Slot, value: str, used: list[tuple[int, int]]) -> None:
    """Mark the span of the task `value` came from as used (a declared value has none)."""
    c = slot.values.get(value)
    if c is not None and c.start >= 0:
        used.append((c.start, c.end))


def _list_items(chooser: Any, slot: Slot, first: str, used: list[tuple[int, int]], task: str = "") -> str:
    """The list literal of an array slot whose first item `first` was chosen: further items (", item", each
    value of the task once) until the model closes it with "]"; an item the task joins to the previous one
    ("Personal Info and Job History": _JOIN) gets JOIN_BIAS."""
    items = [first]
    _use(slot, first, used)
    while len(items) < 50:
        rest = [t for t, c in slot.values.items() if t not in items and not any(
            s < c.end and c.start < e for s, e in used)]  # fmt: skip
        last = slot.values[items[-1]].end
        bias = [JOIN_BIAS if biases.joined(task, last, slot.values[t]) else 0.0 for t in rest]
        pick = chooser.choose([f", {t}" for t in rest] + ["]"], ends=(",", ")"), bias=bias)
        if pick >= len(rest):
            break
        items.append(rest[pick])
        _use(slot, rest[pick], used)
    else:
        chooser.choose(["]"])
    return "[" + ", ".join(items) + "]"
