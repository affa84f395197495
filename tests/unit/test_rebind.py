"""A standard-library call that cannot take the task's values gives way (pipeline_choose.cannot_bind,
rebind_order; Pipeline._rebind): "url encode the string 'a b&c=d'" proposed
``urllib.parse.urlencode('a b&c=d')``, which raises TypeError (its stub wants a mapping or a sequence of
pairs: wrong_args:wrong_type), while ``urllib.parse.quote`` was among the hits. The real model fills the
calls, the real checker judges them, over the running Python's standard-library pool; the chooser is made
to choose urlencode, so the test does not depend on the model's choice."""

from __future__ import annotations

from gorilla_tui.config import Settings
from gorilla_tui.pipeline import Pipeline
from gorilla_tui.pipeline_choose import REBIND_TRIES, cannot_bind, rebind_order
from gorilla_tui.pipeline_types import Choice
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.types import Hit, Verdict

TASK = "url encode the string 'a b&c=d'"


def _ask(gemma_backend, docs):
    """Pipeline.ask over `docs` (k = their number) with the chooser choosing the first of them."""
    pipeline = Pipeline(Settings(mode="select", k=len(docs)), ApiIndex.build(list(docs)), gemma_backend)

    def choose(task, hits, usable, select_by, emit, cancel):
        chosen = next(d for d in usable if d is docs[0])
        return Choice(text=chosen.call.strip(), docs=list(usable), options=[d.call for d in usable],
                      doc=chosen, rule="likelihood"), "likelihood"  # fmt: skip

    pipeline.chooser.choose = choose
    return pipeline.ask(TASK)


def test_a_call_that_cannot_bind_gives_way_to_one_that_can(gemma_backend, docs) -> None:
    alone = _ask(gemma_backend, [docs["urllib.parse.urlencode"]])
    assert alone.api_call == "urllib.parse.urlencode('a b&c=d')"  # nothing else to propose: said as it is
    assert alone.verdict.reason == "wrong_args:wrong_type", alone.verdict
    rebound = _ask(gemma_backend, [docs["urllib.parse.urlencode"], docs["urllib.parse.quote"]])
    assert rebound.api_call == "urllib.parse.quote('a b&c=d')", rebound.api_call
    assert rebound.verdict.kind == "valid"
    assert any(w.startswith("urllib.parse.urlencode cannot take the task's values") for w in rebound.warnings)


def test_only_a_standard_library_call_that_cannot_bind_is_given_up(docs) -> None:
    unbound = Verdict("wrong_args", reason="wrong_args:wrong_type")
    assert cannot_bind(unbound, docs["urllib.parse.urlencode"])
    enum = Verdict("wrong_args", reason="wrong_args:not_in_enum")
    assert not cannot_bind(enum, docs["urllib.parse.urlencode"])
    assert not cannot_bind(Verdict("valid"), docs["urllib.parse.urlencode"])
    # a required argument the doc's example leaves to the person: the API may still be the right one
    missing = Verdict("wrong_args", reason="wrong_args:missing_argument")
    assert not cannot_bind(missing, docs["http.server.SimpleHTTPRequestHandler"])
    assert not cannot_bind(unbound, None)


def test_the_others_are_tried_likeliest_first(docs) -> None:
    chosen, a, b, c = (docs[n] for n in ("time.mktime", "time.gmtime", "time.localtime", "time.ctime"))
    scored = ((chosen, -10.0), (a, -30.0), (b, -20.0), (c, None))
    hits = [Hit(doc=d, score=1.0, rank=i + 1, lm_score=s) for i, (d, s) in enumerate(scored)]
    order = rebind_order(hits, [chosen, a, b, c], chosen)
    assert order == [b, a][:REBIND_TRIES]


def test_the_chosen_calls_module_is_tried_first(docs) -> None:
    # the choice read the task as about urllib.parse; only the value's type failed: str.encode, likelier
    # read, is tried after quote_plus
    names = ("urllib.parse.urlencode", "str.encode", "urllib.parse.quote_plus")
    chosen, encode, plus = (docs[n] for n in names)
    scored = ((chosen, -10.0), (encode, -11.0), (plus, -11.5))
    hits = [Hit(doc=d, score=1.0, rank=i + 1, lm_score=s) for i, (d, s) in enumerate(scored)]
    assert rebind_order(hits, [chosen, encode, plus], chosen)[0] is plus
    # within the module and outside it, the likeliest first
    other = docs["urllib.parse.quote"]
    hits.append(Hit(doc=other, score=1.0, rank=4, lm_score=-11.2))
    assert rebind_order(hits, [chosen, encode, plus, other], chosen)[:2] == [other, plus][:REBIND_TRIES]
