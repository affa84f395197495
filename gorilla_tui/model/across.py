"""The choice across sources: a hit of another source than the chosen one takes its place when the model
reads the task clearly likelier after it (issue 38, "across sources by meaning, not by shared words").

With every source in one index, source routing (retrieve/routing.py) orders the sources by how much of the
task their best doc matches in words, and a close second source gets one place among the hits
(ROUTING_MARGIN). The rules that follow the retrieval rank (model/choice.py RANK_RULES, and "first" when hit
1 is clearly better than the other hits of its own source, choice.guarded_rule) then keep the routed source's
hit even when the task is about something else: "shorten a long news article into a couple of sentences"
went to yfinance's News API (hit 1, its source won routing on the word "news") over the summarisation model
at hit 2, which the model reads the task 6 nats likelier after. Within one source LM_MARGIN (12 nats) stands;
across sources the retrievers' ranks do not compare (each pool is ranked alone), so the model's likelihood is
the one score both hits share.
"""

from __future__ import annotations

from collections.abc import Sequence

from gorilla_tui.model.choice import RANK_RULES, VOTE_RULES, choose

#: Nats by which the likeliest hit of another source must exceed the chosen hit's log p(task | doc) to take
#: its place (across_sources). Chosen on the dev halves' recorded scores (bench/everyday.py --results, the
#: margins applied offline; default index with APIZoo's hand-written questions): bench/everyday_tasks.toml
#: (112 tasks) 99 right at any margin of 6 to 12 nats, 100 at 2 to 5 (pw-hf-summary turned right, none turned
#: wrong); bench/data/literal_tasks.toml (47) 40 at every margin. 5: the largest of that plateau, so the
#: fewest choices move (on the earlier index's scores 2 to 4 also moved s6-zoo-subscribe, wrong to wrong).
CROSS_SOURCE_MARGIN = 5.0
#: The rules after which across_sources looks at the other sources: those that follow the retrieval rank
#: (RANK_RULES), "first" (guarded_rule's clearly better hit 1, judged within its own source only) and the
#: domain votes (VOTE_RULES), which vote among the hits of hit 1's routing unit only (vote_within) and
#: leave a hit of another unit to this margin (the pipeline passes routing units, not sources, for them).
ACROSS_RULES = RANK_RULES | {"first"} | VOTE_RULES


def vote_within(
    lm: Sequence[float],
    free: Sequence[float | None] | None,
    rule: str,
    groups: Sequence[str],
    temperature: float | None,
    units: Sequence[str],
) -> int:
    """Index of the hit a voting rule (VOTE_RULES; choice.choose) picks among the hits of hit 1's routing
    unit alone (`units`: each hit's unit, retrieval order: a source, or the model hubs' group name).

    Why: a close second unit's best hit gets one place among the hits (retrieve/routing.py ROUTING_MARGIN),
    and its log p(task | doc) and content-free score come from another kind of doc (a standard-library
    function against model cards): in the vote it is a domain of its own, and calibrated it could outvote
    every model of the routed hubs ("summarize this paragraph: ..." -> textwrap.fill over three summarisers,
    bench/data/payload_tasks.toml dev). A hit of another unit is then taken only by across_sources' margin
    on the raw likelihood, as after the other rules.

    Args:
        lm, free, groups, temperature: as choice.choose takes them (free may be None: uncalibrated rules).
        rule: one of choice.VOTE_RULES.
        units: each hit's routing unit, same length as `lm`.

    Raises:
        ValueError: lengths that differ, no hits, or what choice.choose raises.
    """
    if len(units) != len(lm) or len(groups) != len(lm) or not lm:
        raise ValueError("vote_within needs one unit and one group per score, and at least one")
    own = [i for i, u in enumerate(units) if u == units[0]]
    sub_free = None if free is None else [free[i] for i in own]
    picked = choose([lm[i] for i in own], sub_free, rule, [groups[i] for i in own], temperature)
    return own[picked]


def across_sources(
    lm: Sequence[float | None],
    sources: Sequence[str],
    chosen: int,
    rule: str,
    margin: float | None = None,
) -> int:
    """Index of the hit to propose: `chosen`, or the likeliest hit of another source when its
    log p(task | doc) exceeds the chosen hit's by more than `margin` nats (None: CROSS_SOURCE_MARGIN) and
    `rule` (the rule that picked `chosen`) is one of ACROSS_RULES.

    Args:
        lm: log p(task | doc) per hit, nats, retrieval order (None: not scored; then `chosen` stands).
        sources: each hit's source, same length.
        chosen: index the choice rule picked.
        rule: the rule applied (after choice.guarded_rule).
        margin: nats; None for CROSS_SOURCE_MARGIN.

    Raises:
        ValueError: lengths that differ, or `chosen` outside the hits.
    """
    if len(lm) != len(sources) or not 0 <= chosen < len(lm):
        raise ValueError("across_sources needs one source per score and a chosen hit among them")
    base = lm[chosen]
    if rule not in ACROSS_RULES or base is None:
        return chosen
    m = CROSS_SOURCE_MARGIN if margin is None else margin
    others = [i for i, s in enumerate(sources) if s != sources[chosen] and lm[i] is not None]
    if not others:
        return chosen
    best = max(others, key=lambda i: (lm[i], -i))
    score = lm[best]
    assert score is not None
    return best if score - base > m else chosen
