"""The choice among the hits: the rules that pick one hit from the retrieval order and the model's scores.

log p(task | doc) (model/likelihood.py) is not comparable across docs of different styles and lengths once
every source shares one index: the raw argmax left a clearly right first hit for a doc the model merely
reads more easily (issue 18). `choose` implements the rules compared on the dev splits (bench/everyday.py's
dev half, bench/choice_dev.py on the Torch Hub training split); CHOICE_RULE is the one the numbers chose.
Which rule a source uses comes from its manifest (`choice_rule`, `vote_temperature`), checked at refresh
(check_choice_settings).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from gorilla_tui.errors import UsageError
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.pool.manifest import Manifest, shipped_values, shown_value

#: Reciprocal rank fusion constant (Cormack et al. 2009).
RRF_K = 60
#: Temperature of domain_vote: each hit's log p(task | doc) is divided by it before the sum per domain
#: (1: the posterior mass of each domain; higher: how many hits share a domain counts more, one doc the
#: model reads easily less). A source's manifest may set its own (VOTE_TEMPERATURE_KEY).
VOTE_TEMPERATURE = 1.0
#: Manifest key (index/*.toml) with the vote temperature of a source's docs (vote_temperature_for): a
#: finite number > 0, chosen on the source's dev split (tensorflowhub: 3, bench/hub_dev.py).
VOTE_TEMPERATURE_KEY = "vote_temperature"
#: Choice rules compared on the dev splits (bench/everyday.py, bench/rerank_dev.py):
#: first: the retriever's first hit, no model; likelihood: argmax log p(task | doc); calibrated: argmax
#: log p(task | doc) - log p("N/A" | doc); rrf: reciprocal rank fusion of the retrieval rank and
#: the likelihood rank; rrf-calibrated: the same with the calibrated rank; domain-vote: domain_vote over
#: log p(task | doc); domain-vote-calibrated: domain_vote over the calibrated scores; margin: the
#: retrieval rank, unless the model reads the task more than LM_MARGIN nats more likely after another hit
#: (margin_choice).
CHOICE_RULES = (
    "first", "likelihood", "calibrated", "rrf", "rrf-calibrated", "domain-vote", "domain-vote-calibrated",
    "margin",
)  # fmt: skip
#: The rule select by likelihood uses when the first hit's source names none (python-env, APIZoo, a user's own
#: sources): "margin", the retrieval rank unless the model clearly prefers another hit (or breaks a tie,
#: TIE_GAP). The hits' scores of one run recorded and every rule applied to them: on the dev halves of
#: bench/everyday.py (77 tasks) and of
#: bench/filling.py's tasks with values (32 of 35 recorded) it chose right for 84.4 / 78.1 % against
#: 77.9 / 62.5 % for "rrf", which let a nat or two of log p(task | doc) overturn a right hit 1 (json.dumps
#: for "parse the json text", csv.reader for "rename report_old.csv to report.csv"); test halves 78.9 / 75.0
#: against 75.4 / 75.0 %. The pipeline's own runs: docs/benchmarks.md, "Everyday tasks (default setting)".
CHOICE_RULE = "margin"
#: The rule for a doc expanded with training questions of a source that names its own rule (the APIBench
#: hubs: Torch Hub's training split): "rrf", the best of the rules on the Torch Hub dev split with the docs
#: expanded (api@1 / domain@1 18.7 / 93.3 % against 18.2 / 90.9 % for the retrieval rank alone:
#: docs/benchmarks.md, "Choice rule, dev splits").
EXPANDED_RULE = "rrf"
#: Nats by which another hit's log p(task | doc) must exceed hit 1's for the "margin" rule to leave hit 1
#: (margin_choice). Chosen on the same dev halves: 3, 4, 5, 6, 8, 12 nats gave 80.5, 81.8, 83.1, 83.1, 84.4,
#: 84.4 % (everyday) and 59.4, 65.6, 68.8, 75.0, 75.0, 78.1 % (with values); no larger margin did better, and
#: none of these dev tasks had a right hit more than 12 nats above hit 1: the embedded model's likelihood
#: adds little to the hybrid retrieval rank on these sources, and only a gap this large moves the choice.
LM_MARGIN = 12.0
#: Largest relative gap of fused retrieval score (Hit.fused) at which a hit of hit 1's source ties with hit
#: 1 (retrieval_ties); the "margin" rule lets the model break such a tie (margin_choice). Two hits whose BM25
#: and dense ranks are swapped (BM25 1st and dense 3rd against BM25 2nd and dense 1st) differ by 0.017 % of
#: the fusion (the dense weight 0.5 of python-env): the retrievers disagree and the fusion's arithmetic, not
#: the task, puts one first; one rank step on either side is about 0.5 %. On the recorded dev hits of
#: bench/everyday.py and of bench/data/literal_tasks.toml (83 tasks led by python-env or APIZoo, the
#: sources that choose by "margin"), any gap from 0.05 to 0.3 % changed one choice, a right one
#: (lit-mtime: os.path.getmtime over os.path.basename, 5 nats likelier) and no other; exact ties alone
#: changed none; 0.5 % also took lit-shell, 0.75 % turned lit-json-string wrong, 1 % zoo-sheet-read.
TIE_GAP = 0.001
#: Manifest key (index/*.toml) of a source's own rule for its docs that carry no training questions, one of
#: CHOICE_RULES (rule_for). The APIBench hubs use "domain-vote": on the Torch Hub dev split with its docs
#: *not* expanded (the stand-in for the hubs without a training split here) the model's argmax beat rrf at
#: hit 1, and summing it per domain (domain_vote) kept api@1 and raised domain@1 (418 tasks: 18.4 / 87.8 % ->
#: 18.4 / 89.0 %; docs/benchmarks.md, "Choice rule, dev splits").
CHOICE_RULE_KEY = "choice_rule"
#: Each rule of CHOICE_RULES in plain words, as the answer's choice note names it ("chosen by WORDS among N
#: hits"); tests/tui/test_likelihood.py fails on a rule of CHOICE_RULES without words.
RULE_WORDS = {
    "first": "retrieval rank alone",
    "likelihood": "model likelihood",
    "calibrated": "calibrated model likelihood",
    "rrf": "retrieval rank + model likelihood (RRF)",
    "rrf-calibrated": "retrieval rank + calibrated model likelihood (RRF)",
    "domain-vote": "model likelihood summed per domain",
    "domain-vote-calibrated": "calibrated model likelihood summed per domain",
    "margin": "retrieval rank unless the model clearly prefers another hit (ties: the model)",
}


def rule_words(rule: str) -> str:
    """Rule `rule` (one of CHOICE_RULES; choose applies it) in plain words, for the line that says how a hit
    was chosen: "rrf" -> "retrieval rank + model likelihood (RRF)". Raises ValueError for a rule not in
    CHOICE_RULES or one RULE_WORDS does not name."""
    if rule not in CHOICE_RULES or rule not in RULE_WORDS:
        raise ValueError(f"no words for choice rule {rule!r} (CHOICE_RULES: {', '.join(CHOICE_RULES)})")
    return RULE_WORDS[rule]


#: Rules that need log p(likelihood.CONTENT_FREE_TASK | doc).
NEEDS_FREE = frozenset({"calibrated", "rrf-calibrated", "domain-vote-calibrated"})
#: The rules that vote per domain (domain_vote), on log p(task | doc) or on the calibrated scores.
VOTE_RULES = frozenset({"domain-vote", "domain-vote-calibrated"})


def choice_rules() -> dict[str, str]:
    """Source name -> its CHOICE_RULE_KEY from its shipped manifest (index/*.toml, read once per process:
    pool/manifest.py shipped_values), for the sources that set a known rule (one of CHOICE_RULES)."""
    return {name: rule for name, rule in shipped_values(CHOICE_RULE_KEY).items() if rule in CHOICE_RULES}


def rule_for(docs: Sequence[ApiDoc], rules: dict[str, str] | None = None) -> str:
    """The choice rule for hits `docs` (retrieval order), decided by the first hit (with every source in one
    index, hit 1's source is the routed one: retrieve/routing.py):

    - a doc expanded with questions (ApiDoc.questions) of a source that names its own rule (the APIBench
      hubs, expanded with their training questions) gets EXPANDED_RULE: rrf won on the Torch Hub dev split
      with the docs expanded;
    - otherwise the rule of the doc's source in `rules` (default: choice_rules(), the manifests), else
      CHOICE_RULE (python-env's docs with hand-written questions too).

    Returns one of CHOICE_RULES; CHOICE_RULE for no docs.
    """
    if not docs:
        return CHOICE_RULE
    rules = choice_rules() if rules is None else rules
    own = rules.get(docs[0].source)
    if own is not None and docs[0].questions:
        return EXPANDED_RULE
    return own or CHOICE_RULE


def vote_temperature(value: object) -> float | None:
    """A VOTE_TEMPERATURE_KEY value as a temperature: an int or float (not a bool), finite and > 0; else
    None (the source then votes at VOTE_TEMPERATURE, as a source with an unknown choice_rule gets
    CHOICE_RULE)."""
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value > 0:
        return float(value)
    return None


def check_choice_settings(manifest: Manifest) -> None:
    """Refuse a manifest whose choice settings a choice would silently ignore: CHOICE_RULE_KEY not one of
    CHOICE_RULES (choice_rules dropped it and the source got CHOICE_RULE), VOTE_TEMPERATURE_KEY not a finite
    number > 0 (vote_temperature: the source voted at VOTE_TEMPERATURE). Absent keys are fine. A refresh
    calls it for every manifest (build.refresh's check_manifest, passed by the CLI and the TUI: retrieve
    never imports model), as build.plan.check_settings for the retrieval settings.

    Raises:
        UsageError: one line naming the manifest file (or source), the key and the value.
    """
    where = manifest.origin or manifest.name
    extra = manifest.extra
    if CHOICE_RULE_KEY in extra and extra[CHOICE_RULE_KEY] not in CHOICE_RULES:
        raise UsageError(
            f"{where}: `{CHOICE_RULE_KEY}` must be one of {', '.join(map(repr, CHOICE_RULES))}, not "
            f"{shown_value(extra[CHOICE_RULE_KEY])}"
        )
    if VOTE_TEMPERATURE_KEY in extra and vote_temperature(extra[VOTE_TEMPERATURE_KEY]) is None:
        raise UsageError(
            f"{where}: `{VOTE_TEMPERATURE_KEY}` must be a finite number > 0, not "
            f"{shown_value(extra[VOTE_TEMPERATURE_KEY])}"
        )


def vote_temperatures() -> dict[str, float]:
    """Source name -> the VOTE_TEMPERATURE_KEY of its shipped manifest (index/*.toml, read once per process:
    pool/manifest.py shipped_values), for the sources that set one vote_temperature reads."""
    read = {name: vote_temperature(v) for name, v in shipped_values(VOTE_TEMPERATURE_KEY).items()}
    return {name: t for name, t in read.items() if t is not None}


def vote_temperature_for(docs: Sequence[ApiDoc], temperatures: dict[str, float] | None = None) -> float:
    """The domain_vote temperature for hits `docs` (retrieval order), decided by the first hit as rule_for
    decides the rule: its source's temperature in `temperatures` (default: vote_temperatures(), the
    manifests), else VOTE_TEMPERATURE (also for no docs)."""
    if not docs:
        return VOTE_TEMPERATURE
    temperatures = vote_temperatures() if temperatures is None else temperatures
    return temperatures.get(docs[0].source, VOTE_TEMPERATURE)


def _ranks(scores: Sequence[float]) -> list[int]:
    """0-based rank of each score, best first; ties keep the earlier (better retrieved) one first."""
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    ranks = [0] * len(scores)
    for r, i in enumerate(order):
        ranks[i] = r
    return ranks


#: A first hit whose BM25 score is at least CLEAR_MARGIN times that of every other hit of its source is
#: clearly better: the rules that fuse the retrieval rank (RANK_RULES) keep it (guarded_rule). On the everyday
#: dev split (bench/everyday.py, dev half, the recorded scores) every margin from 1.25 to 3 gave 81.8 % right
#: against 80.0 % without the guard, the test half unchanged; 1.5 is taken because the break-it example
#: "make a nested directory path in one go" (os.makedirs at BM25 26.9, the others 13.7 and below: 1.96x) had
#: lost its hit 1 to RRF, and 2 would still lose it.
CLEAR_MARGIN = 1.5
#: The rules that fuse the retrieval rank with the model's (the domain vote of the hubs is left alone: on
#: their dev split a margin fallback gained nothing, bench/hub_dev.py).
RANK_RULES = frozenset({"rrf", "rrf-calibrated", "margin"})


def clear_first(retrieval: Sequence[float], sources: Sequence[str]) -> bool:
    """Whether hit 1 is clearly better than every other hit of its source: the best BM25 score among those
    is > 0 (a doc only the dense side found scores 0) and hit 1's is at least CLEAR_MARGIN times it. Hits
    of other sources are left out (BM25 scores of different pools do not compare). retrieval: each hit's
    plain BM25 score (Hit.score), retrieval order; sources: each hit's source, same length. False when hit
    1's source has no other hit."""
    others = [r for r, s in zip(retrieval[1:], sources[1:], strict=False) if sources and s == sources[0]]
    if not retrieval or not others or max(others) <= 0:
        return False
    return retrieval[0] >= CLEAR_MARGIN * max(others)


def guarded_rule(rule: str, retrieval: Sequence[float], sources: Sequence[str]) -> str:
    """The rule to apply: "first" when `rule` fuses the retrieval rank (RANK_RULES) and hit 1 is clearly
    better (clear_first on each hit's BM25 score `retrieval` and `sources`, retrieval order), else `rule`.
    Decided before any content-free score is computed, and named in the choice note."""
    return "first" if rule in RANK_RULES and clear_first(retrieval, sources) else rule


def retrieval_ties(fused: Sequence[float | None], sources: Sequence[str]) -> list[int]:
    """Indexes of the hits tied with hit 1 on the retrieval score (hit 1 included): the hits of hit 1's
    source whose fused score (Hit.fused, retrieval order) is within TIE_GAP of hit 1's, relative to it.
    [0] when hit 1 has no fused score (a hit not ranked by ApiIndex.search) or none ties; [] for no hits.
    Scores of other sources' pools do not compare (their fusion ranks another pool); a hit scored above
    hit 1 (a reorder after the search: the constraints met first, constraints/rank.py) is tied only within
    the gap too."""
    if not fused:
        return []
    first = fused[0]
    if first is None or first <= 0:
        return [0]
    return [0] + [
        i
        for i in range(1, len(fused))
        if (f := fused[i]) is not None and i < len(sources) and sources[i] == sources[0]
        and abs(first - f) <= TIE_GAP * first
    ]  # fmt: skip


def choose(
    lm: Sequence[float],
    free: Sequence[float | None] | None,
    rule: str,
    groups: Sequence[str] | None = None,
    temperature: float | None = None,
    ties: Sequence[int] = (),
) -> int:
    """Index of the chosen hit among hits given in retrieval order.

    Args:
        lm: log p(task | doc) per hit, nats.
        free: log p(likelihood.CONTENT_FREE_TASK | doc) per hit (nats); needed by the calibrated rules only
            (NEEDS_FREE: the calibrated score is lm - free, contextual calibration, arXiv 2102.09690).
        rule: one of CHOICE_RULES.
        groups: each hit's domain (ApiDoc.domain); needed by the voting rules only (VOTE_RULES, domain_vote).
        temperature: domain_vote's temperature (None: VOTE_TEMPERATURE); voting rules only.
        ties: the hits tied with hit 1 on the retrieval score (retrieval_ties); the "margin" rule only.

    Raises:
        ValueError: an unknown rule, no hits, a calibrated rule without `free` scores, or a voting rule
            without one group per hit.
    """
    if not lm:
        raise ValueError("no scores")
    if rule not in CHOICE_RULES:
        raise ValueError(f"unknown choice rule {rule!r}")
    if rule == "first":
        return 0
    if rule in VOTE_RULES and (groups is None or len(groups) != len(lm)):
        raise ValueError(f"rule {rule!r} needs a domain per hit")
    if rule in NEEDS_FREE:
        if free is None or len(free) != len(lm) or any(f is None for f in free):
            raise ValueError(f"rule {rule!r} needs a content-free score per hit")
        lm = [a - b for a, b in zip(lm, free, strict=True)]  # type: ignore[operator]
    if rule in VOTE_RULES:
        assert groups is not None
        return domain_vote(lm, groups, temperature)
    if rule in ("likelihood", "calibrated"):
        return best(lm)
    if rule == "margin":
        return margin_choice(lm, ties=ties)
    return best(_fused(_ranks(lm)))  # rrf, rrf-calibrated


def margin_choice(lm: Sequence[float], margin: float | None = None, ties: Sequence[int] = ()) -> int:
    """Index of the chosen hit: hit 1 (the retrieval rank), unless the most likely hit's log p(task | doc)
    exceeds hit 1's by more than `margin` nats (None: LM_MARGIN); equal likelihoods go to the better
    retrieval rank. Among the hits `ties` names (retrieval_ties: tied with hit 1 on the retrieval score)
    the most likely stands in for hit 1: where the retrievers do not decide, the model does
    ("when was report.pdf last modified": os.path.getmtime and os.path.basename tied, getmtime 5 nats
    likelier).

    Why: the embedded model's log p(task | doc) differs by a nat or two between hits that all share the
    task's words (json.loads / json.dumps, shutil.rmtree / mailbox.MH.remove_folder), and the rank fusion
    (rrf) let such a difference overturn a right hit 1; a clear difference (summarise a news article: the
    summarisation model 6 nats above a finance API that shares the word "news") still moves the choice.
    Raises ValueError for no scores."""
    if not lm:
        raise ValueError("no scores")
    m = LM_MARGIN if margin is None else margin
    top = best(lm)
    if lm[top] - lm[0] > m:
        return top
    tied = sorted({0, *(i for i in ties if 0 <= i < len(lm))})
    return max(tied, key=lambda i: (lm[i], -i))


def domain_groups(docs: Sequence[ApiDoc]) -> list[str]:
    """The group of each doc for domain_vote: its source and domain; a doc without a domain is a group of
    its own (nothing says it shares an intent with another doc)."""
    return [
        f"{d.source}/{d.domain.strip()}" if d.domain.strip() else f"{d.source}#{i}"
        for i, d in enumerate(docs)
    ]


def domain_vote(lm: Sequence[float], groups: Sequence[str], temperature: float | None = None) -> int:
    """Index of the most likely hit within the most likely group: each group (a domain) scores
    log sum exp of its hits' log p(task | doc), the posterior mass of the group under a uniform prior over
    the hits (marginalising over the retrieved docs as RAG does, Lewis et al. 2020, arXiv 2005.11401), and
    its best hit is chosen. Ties go to the group, then the hit, that comes first in retrieval order.

    Why: several docs of one domain among the hits are several readings of the same intent, and a single
    doc the model reads easily should not outvote them (an "identify the car model in a photo" task left
    three image-classification hits for one object-detection doc). On the Torch Hub dev split with the
    docs not expanded (418 tasks, bench/choice_dev.py) it kept api@1 and raised domain@1 over "likelihood".

    Tempering (log p / `temperature` before the sum) makes how many hits share a domain count more. On the
    hand-written dev split (bench/hub_dev.py, hits at the shipped fusion) it helps TensorFlow Hub, whose
    docs of one model family differ mostly by domain (T = 3: domain@1 69.0 -> 71.0 %, api@1 68.5 -> 69.5 %)
    and hurts Hugging Face (66.0 -> 64.0 %), so it is per source (VOTE_TEMPERATURE_KEY; tensorflowhub 3,
    every other source VOTE_TEMPERATURE, 1). An earlier stop had kept T = 1 everywhere from the recorded
    eval answers, before the hubs had a dev split of their own; that was the wrong set to choose on.

    Args:
        lm: log p(task | doc) per hit, nats, retrieval order.
        groups: the hits' domains, same length.
        temperature: > 0 and finite; None: VOTE_TEMPERATURE.

    Raises:
        ValueError: no hits, lengths that differ, or a temperature that is not a finite number > 0.
    """
    if not lm or len(groups) != len(lm):
        raise ValueError("domain_vote needs one group per score, and at least one")
    mass: dict[str, float] = {}
    t = VOTE_TEMPERATURE if temperature is None else temperature
    if not (math.isfinite(t) and t > 0):
        raise ValueError(f"bad vote temperature {t!r}: a positive number")
    for g, s in zip(groups, (x / t for x in lm), strict=True):
        mass[g] = s if g not in mass else max(mass[g], s) + math.log1p(math.exp(-abs(mass[g] - s)))
    first = {g: groups.index(g) for g in mass}
    top = max(mass, key=lambda g: (mass[g], -first[g]))
    return best([s if g == top else -math.inf for g, s in zip(groups, lm, strict=True)])


def _fused(ranks: Sequence[int]) -> list[float]:
    """Reciprocal rank fusion of the retrieval rank (the list position) and `ranks` (0-based)."""
    return [1 / (RRF_K + i + 1) + 1 / (RRF_K + r + 1) for i, r in enumerate(ranks)]


def best(scores: Sequence[float]) -> int:
    """Index of the highest score; ties go to the earlier index (the better BM25 rank). Raises ValueError
    for an empty sequence."""
    if not scores:
        raise ValueError("no scores")
    return max(range(len(scores)), key=lambda i: (scores[i], -i))


def call_reading(docs: Sequence[ApiDoc], picked: int) -> int:
    """Index of the doc that stands for the call docs[picked] makes: `picked`, unless more of the docs with
    the same call (whitespace aside) give another domain than the picked doc's; then the first of that
    domain (retrieval order). Docs without a domain do not count.

    Why: APIBench's TensorFlow Hub pool has 696 docs for 80 calls, and one call is often described under
    several domains ("turn sentences into vectors": universal-sentence-encoder/4 at hit 1 as "Text
    preprocessing", four "Text embedding" docs of the same call after it). The call is the answer either way;
    the doc is what the answer says about it (its domain, description, example) and what the fit judgment
    reads, and the reading most of the call's docs give is the likelier one (as a call many docs share is
    the likelier answer: docs/benchmarks.md, "One hit per call").
    Raises IndexError for `picked` outside `docs`."""
    chosen = docs[picked]
    call = "".join(chosen.call.split())
    same = [i for i, d in enumerate(docs) if "".join(d.call.split()) == call and d.domain.strip()]
    counts: dict[str, int] = {}
    for i in same:
        counts[docs[i].domain.strip()] = counts.get(docs[i].domain.strip(), 0) + 1
    if not counts:
        return picked
    top = max(counts, key=lambda g: counts[g])
    if counts[top] <= counts.get(chosen.domain.strip(), 0):
        return picked
    return next(i for i in same if docs[i].domain.strip() == top)
