"""How well the API pool fits a task (out-of-pool detection), from what an ask already computes: the best
normalised BM25 score over the sources (retrieve/routing.py source_scores), the share of the task's words
the index knows, the dense side's cosines (the best, and its margin over the mean of the top FIT_DEPTH),
and select mode's log p(task | doc) per task token (passed in: model/likelihood.py computes it).

match_label turns them into Proposal.match ("weak" / "ok" / "", types.MATCHES): "book a flight" style tasks
that no doc of the pool serves are told so (types.WEAK_MATCH_LINE) instead of being shown a confident
neighbour; the verdict is never changed. bench/out_of_pool.py measured each signal and fitted the rule
(docs/benchmarks.md, "Out-of-pool detection"): on the test halves the shipped rule flags 25 of 35
out-of-pool tasks and 1 of 65 in-pool tasks (dev: 24 of 35, 4 of 159), and none of 10 in-pool tasks in other
languages."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

import numpy as np

from gorilla_tui.retrieve import routing
from gorilla_tui.retrieve.embed import DEFAULT_EMBEDDER
from gorilla_tui.retrieve.protocols import RoutedIndex
from gorilla_tui.retrieve.query.handover import SINGLE_QUOTED, request_text
from gorilla_tui.retrieve.query.literals import intent_text
from gorilla_tui.retrieve.tokenize import doc_text, name_words, tokenize

if TYPE_CHECKING:
    from collections.abc import Sequence

    from gorilla_tui.pool.apidoc import ApiDoc
    from gorilla_tui.types import Hit

#: Docs whose mean cosine the best cosine is compared with (the dense margin).
FIT_DEPTH = 50
#: The embedder whose cosines FIT_MODELS were fitted on (retrieve/embed.py spec). An index embedded by
#: another one (`index --refresh --embedder SPEC`) has no dense_top, so its tasks are not assessed.
FIT_EMBEDDER = DEFAULT_EMBEDDER
#: The model whose log p(task | doc) per token FIT_MODELS' first model was fitted on (model/registry.py
#: EMBEDDED); with another model Pipeline.match leaves lm_tok out and the second model decides.
FIT_MODEL = "gemma3-270m"


def retrieval_signals(index: RoutedIndex, query: str) -> dict[str, float | None]:
    """The retrieval side's fit signals of `query` over every source of `index`.

    Returns:
        {"bm25_norm": the best source_scores value (0..1: the share of the task's BM25 information the best
        doc of the best source matches; -2..0 when the task is routed by the dense side, another language),
        "known": routing.known_share (0..1), "english": 1.0 / 0.0 whether is_english says the task is
        English, only for a task routed by the dense side (known < routing.ROUTING_MIN_KNOWN) in an index
        with vectors (else None),
        "dense_top": the best cosine over the docs with a vector,
        "dense_margin": dense_top minus the mean cosine of the FIT_DEPTH best}; the two dense values are
        None when the index has no usable vectors (BM25 alone) or was embedded by another embedder than
        FIT_EMBEDDER.
    """
    best = routing.source_scores(index, query)
    known = routing.known_share(index, query)
    out: dict[str, float | None] = {
        "bm25_norm": float(max(best.values())) if best else 0.0,
        "known": known,
        "english": None,
        "dense_top": None,
        "dense_margin": None,
    }
    assert index.dense is not None
    rows = np.arange(len(index.docs))
    # the rule's weights are in the packaged embedder's cosines: another embedder's scale would misread them
    fitted = index.dense.info.get("embedder", DEFAULT_EMBEDDER) == FIT_EMBEDDER
    scored = index.dense.scores(query, rows) if len(rows) and fitted else None
    if scored is not None:
        cos = scored[0][scored[1]]
        if len(cos):
            top = np.sort(cos)[::-1][:FIT_DEPTH]
            out["dense_top"] = float(top[0])
            out["dense_margin"] = float(top[0] - top.mean())
    if known < routing.ROUTING_MIN_KNOWN and out["dense_top"] is not None:  # only where match_label asks
        out["english"] = float(is_english(query))
    return out


def source_cosine(index: RoutedIndex, query: str, source: str) -> float | None:
    """The best dense cosine of `query` over the docs of `source` (-1..1; the query's vector is cached, so
    after retrieval_signals this costs one matrix product over the index's vectors), or None without
    usable vectors, for an index embedded by another embedder than FIT_EMBEDDER, or for a source the
    index lacks. A signal of the fit judgment (pipeline_fit.py dense_z: calibrated per source there)."""
    codes, names = index.source_codes, index.sources
    if index.dense is None or codes is None or source not in names:
        return None
    if index.dense.info.get("embedder", DEFAULT_EMBEDDER) != FIT_EMBEDDER:
        return None
    rows = np.flatnonzero(codes == names.index(source))
    scored = index.dense.scores(query, rows) if len(rows) else None
    if scored is None or not scored[1].any():
        return None
    return float(scored[0][scored[1]].max())


def is_english(text: str) -> bool:
    """Whether `text` is English by py3langid (langid.py, Lui & Baldwin 2012: a naive Bayes classifier over
    byte n-grams of 97 languages, shipped inside the package; ~1 s to load the first time, then ~0.1 ms).

    On the tasks routed by the dense side in bench/out_of_pool.py it told the English ones ("book a flight
    from Berlin to Rome", 14 of 16) from the 10 in-pool tasks in German, French, Spanish, Chinese and Japanese
    of bench/data/multilingual_tasks.toml (all 10)."""
    import py3langid  # deferred: loads its model (~1 s) and is needed only for tasks routed by the dense side

    return py3langid.classify(text)[0] == "en"


#: A task is put into English before it is searched (model/translate.py, pipeline.py) when less than this
#: share of its BM25 terms occur in the index (routing.known_share) and py3langid gives English little
#: probability (TRANSLATE_MAX_ENGLISH). Of the hand-written English tasks (bench/everyday_tasks.toml,
#: bench/data/hub_dev_tasks.toml, tests/data/stdlib_tasks.toml, bench/data/apizoo_dev_tasks.toml: 544)
#: py3langid calls 4 short ones something else ("parse a JSON string": es), each with a share of 0.86 or
#: more; the 73 tasks in other languages (bench/data/everyday_translated_tasks.toml,
#: bench/data/multilingual_tasks.toml) have 0.67 at most (Spanish and French share "de", "la", "python",
#: "google" with the docs).
TRANSLATE_MAX_KNOWN = 0.75
#: ... and when py3langid gives English less than this probability (english_probability). On a short task
#: py3langid's first language is a guess: of 54 short English tasks typed by hand 10 were not called English
#: and had a share under TRANSLATE_MAX_KNOWN ("sign jwt": mt, "resize jpeg": tr, "barcode scanner": it), and
#: the model then "translated" them ("sign jwt" -> "sign the token") with a note saying so. English kept
#: 0.01 to 0.2 in 7 of them; the 73 tasks in other languages give it 7e-8 at most. (A language it calls
#: first has at least 1/97 > 0.01: the rule flags a subset of what `not is_english` flags.)
TRANSLATE_MAX_ENGLISH = 0.01


#: A span of code in backticks ("sum `v0` and `v1`"), as Markdown and StackOverflow titles write it.
_CODE_SPAN = re.compile(r"`[^`\n]*`")


def needs_translation(index: RoutedIndex, query: str) -> bool:
    """Whether `query` is to be put into English before it is searched (TRANSLATE_MAX_KNOWN,
    TRANSLATE_MAX_ENGLISH), judged on its request (request_text: an English request about a quoted French
    text is English): the share of its terms the index knows first (cheap), then py3langid's probability
    of English (its model loads once, ~1 s). Of the APIBench eval tasks, 10 Hugging Face tasks quote text
    in another language; none is translated. Code in backticks (a variable's name, `[1, 2]`) is no word of
    any language and is left out of both tests: "sum" and 30 backticked names read as another language and
    were "translated" into themselves (break-it round 29, F13); a request that is only code is English."""
    request = _CODE_SPAN.sub(" ", request_text(query))
    if not request.strip():
        return False
    return (
        routing.known_share(index, request) < TRANSLATE_MAX_KNOWN
        and english_probability(request) < TRANSLATE_MAX_ENGLISH
    )


def english_probability(text: str) -> float:
    """The probability py3langid gives English for `text` (0..1), its scores over its 97 languages
    normalised (as py3langid's own norm_probs does: the softmax of its log-probabilities)."""
    import py3langid  # deferred: loads its model (~1 s); see is_english

    ranked = py3langid.rank(text)
    top = max(score for _, score in ranked)
    weights = {lang: math.exp(score - top) for lang, score in ranked}
    return weights.get("en", 0.0) / sum(weights.values())


#: The fit models: (features, bias, weights); a task's score is bias + sum(weight * feature), "weak" below
#: its MATCH_THRESHOLDS value. Logistic regressions fitted by bench/out_of_pool.py on the dev halves only
#: (in-pool: the dev half of bench/everyday_tasks.toml, bench/data/hub_dev_tasks.toml,
#: bench/data/apizoo_dev_tasks.toml, tests/data/stdlib_tasks.toml, 30 Torch Hub training questions;
#: out-of-pool: the dev half of bench/data/out_of_pool_tasks.toml), over the tasks the rule assesses
#: (match_label); the first model whose features are all known is used ("lm_tok" is unknown when select
#: mode did not score the hits).
FIT_MODELS: tuple[tuple[tuple[str, ...], float, tuple[float, ...]], ...] = (
    (("bm25_norm", "dense_top", "lm_tok"), -58.797871, (10.131811, 73.256031, 0.66699)),
    (("bm25_norm", "dense_top"), -65.772819, (11.744989, 76.471463)),
)
#: The score below which a task is "weak": per model, the threshold that flags at most 3 % of the in-pool
#: dev tasks (bench/out_of_pool.py; docs/benchmarks.md, "Out-of-pool detection").
MATCH_THRESHOLDS: tuple[float, ...] = (0.139285, -0.060612)


def match_score(
    signals: dict[str, float | None], min_known: float = routing.ROUTING_MIN_KNOWN
) -> float | None:
    """The score of the first model of FIT_MODELS whose features `signals` all has, minus its
    MATCH_THRESHOLDS value (below 0: match_label's "weak"), or None where match_label says "" (not
    assessed)."""
    if signals.get("dense_top") is None:
        return None
    if (signals.get("known") or 0.0) < min_known and not signals.get("english"):
        return None
    for (features, bias, weights), threshold in zip(FIT_MODELS, MATCH_THRESHOLDS, strict=True):
        values = [signals.get(f) for f in features]
        if any(v is None for v in values):
            continue
        score = bias + sum(w * float(v) for w, v in zip(weights, values, strict=True))  # type: ignore[arg-type]
        return score - threshold
    return None


def coverage(task: str, doc: ApiDoc) -> float:
    """The share (0..1) of the task's words (its literal values replaced by their kind's word as the search
    reads it: literals.intent_text; stop words left out) that the doc's indexed text holds
    (tokenize.doc_text): a word counts when any of its BM25 terms occurs ("videos" by "video"). 1.0 for a
    task with no such word.
    A signal of the fit judgment (pipeline_fit.py)."""
    words = [set(tokenize(w)) for w in intent_text(task).split()]
    words = [w for w in words if w]
    if not words:
        return 1.0
    held = set(tokenize(doc_text(doc)))
    return sum(bool(w & held) for w in words) / len(words)


_GROUP = re.compile(r"\([^()]*\)")


def callee(call: str) -> str:
    """The dotted name a call calls, its argument lists taken out: "tkinter.PhotoImage().copy()" ->
    "tkinter.PhotoImage.copy"."""
    text, last = call.strip(), None
    while text != last:
        last, text = text, _GROUP.sub("", text)
    return "".join(text.split())


#: Words of API names that say how, not what (get_, calculate_, find_...): name_coverage leaves them out.
GENERIC_NAME_WORDS = frozenset(
    tokenize(
        "get set find calculate calc compute determine retrieve fetch search lookup query information info "
        "data details value number total list create generate make check"
    )
)


def name_coverage(task: str, doc: ApiDoc) -> float | None:
    """The share (0..1) of the words of the doc's API name (its last dotted part split at underscores and
    camelCase, run-together words split by tokenize.name_words; GENERIC_NAME_WORDS left out) that the
    task's terms hold:
    "determine_body_mass_index" asked for a triangle's area has none. 0.5 for a name with no word left; None
    when the API name is not the function the doc's call calls (a hub's model id such as "slow_r50" beside
    torch.hub.load, an APIZoo title): its words say nothing of the task then.
    A signal of the fit judgment (pipeline_fit.py): on BFCL's dev items it told the ground-truth functions
    from the irrelevance category's better than coverage (ROC AUC 0.96 against 0.91, bench/fit.py)."""
    name = doc.api_name or doc.call.split("(", 1)[0]
    last = name.split(".")[-1].strip()
    if not last or not callee(doc.call).endswith(last):
        return None  # the name is not the function called (a hub's model id, an APIZoo title)
    parts = re.split(r"[\W_]+", name.split(".")[-1])
    words = set(tokenize(" ".join(name_words(p) or p for p in parts if p))) - GENERIC_NAME_WORDS
    # a camelCase word's whole term beside its parts ("photoimage" beside "photo", "image") is left out
    words = {w for w in words if not any(w != a and w.startswith(a) and w[len(a) :] in words for a in words)}
    if not words:
        return 0.5
    return len(words & set(tokenize(intent_text(task)))) / len(words)


def param_coverage(task: str, doc: ApiDoc) -> float | None:
    """The share (0..1) of the parameters of the doc's parameters schema (its top-level properties) whose
    name has a word (split as name_coverage splits an API name; GENERIC_NAME_WORDS left out) that the task's
    terms hold: determine_body_mass_index(weight, height) asked for a triangle's area with a base and a
    height has 1 of 2. None for a doc without a parameters schema (only function-calling sources have one:
    BFCL, OpenAI tools, MCP, OpenAPI) or whose parameters have no such word.
    A signal of the fit judgment (pipeline_fit.py): on BFCL's dev items asked end to end it told the
    functions that answer right from the irrelevance category's with ROC AUC 0.74 (bench/fit.py), and with
    coverage, name_coverage and the parameters filling left unfilled it says "nothing fits" to 41 of 68
    irrelevance questions with a hit against 33 without it (1 of 51 right answers flagged)."""
    schema = doc.parameters
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(props, dict):
        return None
    terms = set(tokenize(intent_text(task)))
    held = []
    for name in props:
        parts = [p for p in re.split(r"[\W_]+", str(name)) if p]
        words = set(tokenize(" ".join(name_words(p) or p for p in parts))) | set(tokenize(str(name)))
        words -= GENERIC_NAME_WORDS
        if words:
            held.append(bool(words & terms))
    return sum(held) / len(held) if held else None


#: A name inside a sentence: a capitalised word ("Spotify", "GitLab", "WhatsApp"), not all capitals (JSON,
#: CSV: formats the docs name in their own case) and not a sentence's first word.
_NAME = re.compile(r"[A-Z][a-z]+(?:[A-Z][a-z]*)*")
_SENTENCE_END = re.compile(r"[.!?:;]$")
#: Words after which the task gives a name of its own ("a form called Party RSVP", "a playlist named Road
#: Trip"): the capitalised words that follow are a value, not a service the index may lack.
_NAMING = frozenset({"called", "named", "titled", "entitled", "labelled", "labeled"})


def names_missed(task: str, doc: ApiDoc) -> float:
    """1.0 when the task's request (request_text: what it quotes left out) names something (_NAME: a
    capitalised word past its sentence's first) that the doc's indexed text (tokenize.doc_text) holds no
    BM25 term of, else 0.0: "send a message to my team's Slack channel" answered with Gmail's send.
    A signal of the fit judgment (pipeline_fit.py): of the default index's dev tasks with no hub named
    (bench/fit.py) it is 1 for 20 of the 59 out-of-pool tasks (a service no source serves: Slack, Discord,
    Todoist) and for none of the 65 answered right; on the test half 19 of 59 and 1 of 45 ("make a new
    google form called Party RSVP": a title the task gives is capitalised too). The capitalised words
    right after a naming word (_NAMING: called, named, titled) are such a title and not read (the lead's
    hand trial of that task, 2026-12-06), and so is single-quoted text (SINGLE_QUOTED: a value, "convert
    'Hello World' to lowercase" was told nothing fits; the lead's hand trial, 2026-12-07)."""
    held: set[str] | None = None
    first, naming = True, False
    for raw in SINGLE_QUOTED.sub(" ", request_text(task)).split():
        word = raw.strip("\"'()[],.!?:;")
        capitalised = bool(_NAME.fullmatch(word))
        naming = capitalised and naming  # "called Party RSVP": the run of capitalised words is a title
        if not first and capitalised and not naming:
            held = set(tokenize(doc_text(doc))) if held is None else held
            if not set(tokenize(word)) & held:
                return 1.0
        first = bool(_SENTENCE_END.search(raw))
        naming = naming or word.lower() in _NAMING
    return 0.0


def rivals(hits: Sequence[Hit], doc: ApiDoc) -> list[Hit]:
    """The hits the chosen `doc` is weighed against by the fit judgment's doubt: those of doc's source that
    do another thing, another API (api_name)."""
    return [h for h in hits if h.doc.source == doc.source and h.doc.api_name != doc.api_name]


def dense_disagreement(hits: Sequence[Hit], doc: ApiDoc) -> tuple[float | None, float | None]:
    """Whether the dense side and BM25 agree on `doc`, chosen among `hits` (retrieval order), against its
    rivals (rivals(hits, doc)):

    Returns:
        (cos_gap, bm25_ratio): the best Hit.dense (the task's cosine) of the rivals minus doc's own (above 0:
        the dense side ranks a rival above the chosen one), and doc's plain BM25 score (Hit.score) over
        the best of theirs (None when they score 0: only the dense side found them, BM25 prefers none of them
        to doc). (None, None) when doc is not among the hits, has no rival, or a hit has no cosine (BM25
        alone).

    A signal of the fit judgment (pipeline_fit.py DOUBT_COS_GAP): on CoNaLa's dev half (StackOverflow
    intents, bench/conala.py) the answers that were not the oracle API mostly had another hit the dense side
    preferred while BM25 did not clearly prefer theirs; the oracle answers rarely did."""
    own = next((h for h in hits if h.doc is doc), None)
    others = rivals(hits, doc)
    if own is None or not others or own.dense is None or any(h.dense is None for h in others):
        return None, None
    cos_gap = max(float(h.dense) for h in others) - float(own.dense)  # type: ignore[arg-type]
    best = max(h.score for h in others)
    return cos_gap, (own.score / best if best > 0 else None)


def match_label(signals: dict[str, float | None], min_known: float = routing.ROUTING_MIN_KNOWN) -> str:
    """ "weak", "ok" or "" (not assessed; types.MATCHES) for a task's fit signals.

    Args:
        signals: retrieval_signals' dict plus "lm_tok": the best log p(task | doc) in nats of the hits select
            mode scored, divided by the task's token count (model/likelihood.py query_likelihoods), or None
            when the hits were not scored (grammar or generate mode, a single distinct call).
        min_known: the share of the task's words the index must know for it to be assessed.

    Returns:
        "weak" when the first model of FIT_MODELS whose features are all known scores the task below its
        MATCH_THRESHOLDS value (with lm_tok: 0.1393 on -58.80 + 10.13 * bm25_norm + 73.26 * dense_top
        + 0.6670 * lm_tok; without: -0.0606 on -65.77 + 11.74 * bm25_norm + 76.47 * dense_top), else "ok".
        "" without dense vectors, and for a task in another language: less than `min_known` of its words
        occur in the index (routing.ROUTING_MIN_KNOWN: the search routes it by the dense side) and
        signals["english"] is not true (is_english). The signals alone cannot tell "flight", an English
        word no doc uses, from German words: without the language check the rule flagged 9 of 10 in-pool
        tasks in other languages (bench/data/multilingual_tasks.toml).

    Source: logistic regressions fitted by bench/out_of_pool.py on the dev halves only, each threshold the
    one that flags at most 3 % of the in-pool dev tasks; docs/benchmarks.md, "Out-of-pool detection".
    """
    if signals.get("dense_top") is None:
        return ""
    if (signals.get("known") or 0.0) < min_known and not signals.get("english"):
        return ""
    for (features, bias, weights), threshold in zip(FIT_MODELS, MATCH_THRESHOLDS, strict=True):
        values = [signals.get(f) for f in features]
        if any(v is None for v in values):
            continue
        score = bias + sum(w * float(v) for w, v in zip(weights, values, strict=True))  # type: ignore[arg-type]
        return "weak" if score < threshold else "ok"
    return ""
