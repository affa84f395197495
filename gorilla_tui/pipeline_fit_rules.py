"""The answer's rules on the fit judge() gave (pipeline_fit.py): what the proposed call does with the task's
values moves a "fits" or a "nothing" (answer_fit: values_unplaced, the check's cannot_bind, object_dropped,
short_task). Pipeline.ask calls answer_fit after the choice, the filling and the check."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gorilla_tui.pipeline_choose import cannot_bind
from gorilla_tui.pool.apidoc import MODEL_HUBS, ApiDoc
from gorilla_tui.retrieve.fit_request import plain_number, request_words
from gorilla_tui.types import Argument, Proposal


def values_unplaced(fit: str, arguments: Sequence[Argument], unused: Sequence[str],
                    signals: dict[str, Any] | None = None, doc: ApiDoc | None = None) -> str:  # fmt: skip
    """`fit` ("fits", "unsure", "nothing" or "") with a "fits" lowered to "unsure" when the task's values
    have no place in the call: it holds none of them (no argument of origin "task") and fill/unused.py
    left_out lists some (`unused`, Proposal.unused). "how many days between 2024-01-01 and 2024-03-15"
    answered `datetime.timedelta()` (both dates unused) read "fits" (session 13): the API is real and near,
    but a call that takes none of the values the task states does not do that task as asked. This holds
    for a complete call filling did not fill as for a filled one: 'post the json {"name": "test"} to
    https://httpbin.org/post' answered APIZoo's `youtube.tests().insert(part=part).execute()`, both values
    unused, "fits" (break-it round 31, finding 8). Not for a model hub's doc (`doc`, the chosen one, of
    MODEL_HUBS): its call loads a model, and its `unused` are the inputs its example code has no slot for
    (fill/example_input.py), not values the call should take. Only "fits" moves; "unsure" and "nothing"
    stay as judged. `signals` (Proposal.fit_signals), when not empty, gets "values_unplaced": whether this
    lowered the fit."""
    hub = doc is not None and doc.source in MODEL_HUBS
    lowered = fit == "fits" and not hub and bool(unused) and not any(a.origin == "task" for a in arguments)
    if signals:
        signals["values_unplaced"] = lowered
    return "unsure" if lowered else fit


#: A task with at most this many request words (retrieve/fit_request.py request_words: values and stop words
#: left out) is short: its signals read that word alone. Judged "nothing" while the nearest call takes every
#: value it states, it is "unsure" (short_task): "read notes.txt" -> open('notes.txt') (break-it round 32,
#: item 4). Of the dev tasks no out-of-pool one (bench/data/out_of_pool_tasks.toml,
#: fit_out_of_pool_tasks.toml: 70) has fewer than 3 and no BFCL irrelevance question (120) fewer than 2 (2:
#: 8 of them, "Find the integral of x^3 from 1 to 5"); 7 of the 98 of bench/data/literal_tasks.toml have 1.
SHORT_REQUEST_WORDS = 1


def short_task(fit: str, task: str, arguments: Sequence[Argument], unused: Sequence[str]) -> tuple[str, str]:
    """(`fit` moved for a short task, why: "" when it did not move). A task of one request word
    (request_words) whose call takes none of its values is not "fits" on the signals of that word alone:
    "unsure" ('read `' fitted a Kubernetes REST call with coverage 1.0, break-it round 32, item 5). A task
    of at most SHORT_REQUEST_WORDS request words judged "nothing" is "unsure" when the call takes at least
    one of its values and leaves none out (fill/unused.py left_out: `unused`)."""
    words = len(request_words(task))
    takes = any(a.origin == "task" for a in arguments)
    if fit == "fits" and words <= 1 and not takes:
        return "unsure", "one_word"
    if fit == "nothing" and words <= SHORT_REQUEST_WORDS and takes and not unused:
        return "unsure", "short_taken"
    return fit, ""


def object_dropped(fit: str, unused: Sequence[str], doc: ApiDoc | None) -> bool:
    """Whether a "fits" is to read "unsure" because the call leaves out a value of the task that is not a
    plain number (`unused`, fill/unused.py left_out; retrieve/fit_request.py plain_number): a date, a path,
    a file name, quoted text, a URL is what the task is about, while a count or an amount may be a default
    the call keeps. "add 90 days to 2026-12-07" answered ``datetime.timedelta(90)``, the date unused, and
    read "fits" (break-it round 32, item 3). Not for a model hub's doc (values_unplaced: its unused are
    inputs its example code has no slot for)."""
    hub = doc is not None and doc.source in MODEL_HUBS
    return fit == "fits" and not hub and any(not plain_number(v) for v in unused)


def answer_fit(proposal: Proposal, doc: ApiDoc | None) -> str:
    """Proposal.fit for the call select mode proposed of `doc` (the chosen one): its judged fit with a "fits"
    lowered to "unsure" when the call takes none of the task's values (values_unplaced), drops one that is
    not a plain number (object_dropped), or the check finds that it cannot bind the values it took
    (pipeline_choose.cannot_bind: it raises at once, and rebinding found no other hit that takes them):
    ``asyncio.run('main()')`` for "run the coroutine `main()` until it finishes" is wrong_args:wrong_type and
    read "fits" (break-it round 31, finding 8); and moved for a short task (short_task). Proposal.fit_signals,
    when not empty, get "judged" (the fit before these rules), "values_unplaced", "unbound", "dropped" and
    "short" (short_task's why)."""
    p = proposal
    judged = p.fit
    fit = values_unplaced(p.fit, p.arguments, p.unused, p.fit_signals, doc)
    unbound = fit == "fits" and cannot_bind(p.verdict, doc)
    fit = "unsure" if unbound else fit
    dropped = object_dropped(fit, p.unused, doc)
    fit, short = short_task("unsure" if dropped else fit, p.task, p.arguments, p.unused)
    if p.fit_signals:
        p.fit_signals.update(judged=judged, unbound=unbound, dropped=dropped, short=short)
    return fit
