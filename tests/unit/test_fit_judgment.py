"""The fit judgment (pipeline_fit.py, issue 38): its signals on real docs and the real tokenizer, the rule's
three values, what an answer says when nothing fits (Proposal.to_dict, history), and, with the real embedded
model, the signals it scores and the kept few-shot prefix beside fill's."""

from __future__ import annotations

import dataclasses

import pytest

from gorilla_tui import pipeline_fit
from gorilla_tui.config import Settings
from gorilla_tui.history_rows import HistoryEntry
from gorilla_tui.model.fit_question import FEW_SHOT, question_prompt, yes_no
from gorilla_tui.model.scripted import ScriptedBackend
from gorilla_tui.pipeline import Pipeline
from gorilla_tui.pool.functions import function_doc
from gorilla_tui.retrieve.fit import (
    FIT_MODEL,
    callee,
    coverage,
    dense_disagreement,
    name_coverage,
    names_missed,
    param_coverage,
    rivals,
)
from gorilla_tui.types import FIT_LINES, FITS, Hit, Proposal, Verdict

BMI = function_doc(
    {
        "name": "determine_body_mass_index",
        "description": "Calculate body mass index given weight and height.",
        "parameters": {
            "type": "dict",
            "properties": {
                "weight": {"type": "float", "description": "Weight of the person in kilograms."},
                "height": {"type": "float", "description": "Height of the person in meters."},
            },
            "required": ["weight", "height"],
        },
    },
    source="fn",
    index=1,
)
BMI_TASK = "What is the body mass index of someone who weighs 70 kg and is 1.75 m tall?"
TRIANGLE_TASK = "Calculate the area of a triangle with base 10 and height 5."


def test_coverage_and_name_coverage_tell_the_function_asked_for_from_another():
    assert coverage("body mass index from weight and height", BMI) == 1.0
    # a task's words the doc does not use ("weighs", "tall") lower coverage: the API name's words decide
    assert coverage(BMI_TASK, BMI) == pytest.approx(3 / 8)  # body, mass, index of 8 words
    assert coverage(TRIANGLE_TASK, BMI) == pytest.approx(2 / 5)  # calculate, height
    assert name_coverage(BMI_TASK, BMI) == 1.0  # body, mass, index ("determine" says how, not what)
    assert name_coverage(TRIANGLE_TASK, BMI) == 0.0
    # a name that is not the function called says nothing of the task (a hub's model id)
    hub = dataclasses.replace(BMI, api_name="slow_r50", api_call="torch.hub.load('x', 'slow_r50')")
    assert name_coverage("classify videos", hub) is None
    assert callee("tkinter.PhotoImage().copy()") == "tkinter.PhotoImage.copy"
    assert coverage("", BMI) == 1.0  # no terms: nothing to miss


def test_the_rule_gives_each_of_its_three_values_and_none_without_the_models_signals():
    assert set(FIT_LINES) == set(FITS) - {""}
    low, high = pipeline_fit.FIT_LOW[-1], pipeline_fit.FIT_HIGH[-1]
    assert low <= high
    features, bias, weights = pipeline_fit.FIT_MODELS[-1]
    # signals of a doc that the fitted rule scores far above and far below its thresholds
    fits = {f: (1.0 if w > 0 else -1.0) * 10 for f, w in zip(features, weights, strict=True)}
    none = {f: -v for f, v in fits.items()}
    assert pipeline_fit.label(fits) == "fits" and pipeline_fit.label(none) == "nothing"
    assert pipeline_fit.label({f: None for f in features}) == ""


def test_an_answer_where_nothing_fits_names_the_call_the_nearest_and_proposes_none():
    verdict = Verdict("valid", api_call="determine_body_mass_index(weight, height)")
    p = Proposal(task=TRIANGLE_TASK, api_call=verdict.api_call, code=verdict.api_call, verdict=verdict,
                 fit="nothing", fit_signals={"cov": 0.25})  # fmt: skip
    d = p.to_dict()
    assert d["fit"] == "nothing" and d["fit_line"] == FIT_LINES["nothing"]
    assert d["api_call"] == "" and d["code"] == "" and d["nearest_call"] == verdict.api_call
    assert d["verdict"]["of"] == "nearest_call"  # the verdict judges the nearest hit, not a proposal
    entry = HistoryEntry(1, 0.0, TRIANGLE_TASK, d)
    assert entry.fit == "nothing" and entry.api_call == verdict.api_call
    fits = Proposal(task=BMI_TASK, api_call=verdict.api_call, code="", verdict=verdict, fit="fits").to_dict()
    assert fits["api_call"] == verdict.api_call and fits["nearest_call"] == ""
    assert fits["verdict"]["of"] == "api_call"
    # saved before the judgment existed: the out-of-pool flag reads as unsure
    assert HistoryEntry(2, 0.0, "x", {"match": "weak"}).fit == "unsure"
    assert HistoryEntry(3, 0.0, "x", {"match": "ok"}).fit == ""


def test_parameter_coverage_counts_the_parameters_the_task_names():
    # the triangle's task names a height, not a weight; the BMI task names neither by its parameter's word
    assert param_coverage(TRIANGLE_TASK, BMI) == 0.5
    assert param_coverage("body mass index from weight and height", BMI) == 1.0
    assert param_coverage(BMI_TASK, BMI) == 0.0
    no_schema = dataclasses.replace(BMI, parameters=None)
    assert param_coverage(TRIANGLE_TASK, no_schema) is None


def test_the_chosen_docs_score_per_token_is_read_only_for_the_model_the_rule_was_fitted_with():
    fitted = ScriptedBackend(["x"], name=FIT_MODEL)
    assert pipeline_fit.lm_per_token(fitted, -30.0, 10) == -3.0
    assert pipeline_fit.lm_per_token(fitted, None, 10) is None
    assert pipeline_fit.lm_per_token(ScriptedBackend(["x"], name="another-model"), -30.0, 10) is None


def test_each_fit_model_has_its_thresholds_and_the_rule_falls_back_by_the_signals_known():
    n = len(pipeline_fit.FIT_MODELS)
    assert len(pipeline_fit.FIT_LOW) == len(pipeline_fit.FIT_HIGH) == n
    assert all(low <= high for low, high in zip(pipeline_fit.FIT_LOW, pipeline_fit.FIT_HIGH, strict=True))
    full = {"retrieval": 1.0, "cov": 0.8, "dense_z": 0.5, "lm_tok": -3.0, "names": 0.0, "name_cov": 1.0}
    assert pipeline_fit.fit_score(full)[1] == 0
    assert pipeline_fit.fit_score(dict(full, lm_tok=None))[1] == 1  # a single call: not scored
    assert pipeline_fit.fit_score(dict(full, retrieval=None))[1] == 2  # a hub named
    filled = {"cov": 0.8, "name_cov": 1.0, "missing": 0.0, "param_cov": 1.0}
    assert pipeline_fit.FIT_MODELS[pipeline_fit.fit_score(filled)[1]][0] == tuple(filled)


def test_an_answer_is_judged_from_the_docs_text_without_the_models_scores(small_index):
    """The shipped rule reads no model score (pipeline_fit.FIT_MODELS): a backend that cannot score text
    gets a judgment too; an answer with no chosen doc gets none."""
    task = "copy the file notes.txt to notes.bak"
    call = small_index.search(task, k=1)[0].doc.call.strip()
    assert call == "shutil.copyfile(src, dst)"
    backend = ScriptedBackend([" " + call])
    proposal = Pipeline(Settings(k=1, select_by="grammar"), small_index, backend).ask(task)
    assert proposal.api_call == call and proposal.fit in ("fits", "unsure", "nothing")
    assert proposal.fit_signals["pmi"] is None and proposal.fit_signals["yn"] is None
    assert "fit" in proposal.timings
    unmatched = ScriptedBackend([" no_such_call()"])
    nothing_chosen = Pipeline(Settings(k=3, select_by="grammar"), small_index, unmatched).ask(
        "classify images"
    )
    assert nothing_chosen.fit == "" and nothing_chosen.fit_signals == {}


def test_the_question_prompt_ends_where_the_answer_token_comes():
    prompt = question_prompt(BMI, TRIANGLE_TASK)
    assert prompt.startswith(FEW_SHOT) and prompt.endswith("Can the function do the request?")
    assert "determine_body_mass_index(" in prompt and TRIANGLE_TASK in prompt


@pytest.mark.model
def test_the_model_signals_with_the_real_model_and_both_kept_prefixes(gemma_backend):
    from gorilla_tui.fill.filler import fill

    warm = yes_no(gemma_backend, BMI, BMI_TASK)
    assert isinstance(warm, float)
    fill(gemma_backend, BMI_TASK, BMI)  # fill keeps its own few-shot prefix beside the question's
    assert len(gemma_backend._prefix_states) >= 2
    assert yes_no(gemma_backend, BMI, BMI_TASK) == pytest.approx(warm, abs=1e-3)  # the kept prefix
    gemma_backend._prefix_states.clear()
    assert yes_no(gemma_backend, BMI, BMI_TASK) == pytest.approx(warm, abs=1e-3)  # evaluated again
    right = pipeline_fit.signals(gemma_backend, BMI_TASK, BMI, model=True)
    wrong = pipeline_fit.signals(gemma_backend, TRIANGLE_TASK, BMI, model=True)
    assert right["pmi"] > wrong["pmi"] and right["name_cov"] > wrong["name_cov"]
    assert pipeline_fit.signals(gemma_backend, BMI_TASK, BMI)["pmi"] is None  # the rule reads no model score
    assert pipeline_fit.label(right) == "fits" and pipeline_fit.label(wrong) in ("unsure", "nothing")
    # the same doc filled with no value for its required parameters: nothing fits (the filled-doc model)
    assert pipeline_fit.label(wrong | {"missing": 1.0}) == "nothing"


def test_the_ask_panel_says_nothing_fits_first_and_shows_no_proposal(capsys):
    from gorilla_tui.cli.ask import _print_panel

    verdict = Verdict("valid", api_call="determine_body_mass_index(weight=70, height=1.75)")
    p = Proposal(task=TRIANGLE_TASK, api_call=verdict.api_call, code=verdict.api_call, verdict=verdict,
                 fit="nothing", mode="select", model="m")  # fmt: skip
    _print_panel(p.to_dict(), [])
    text = " ".join(capsys.readouterr().out.split())
    assert text.index(FIT_LINES["nothing"]) < text.index("nearest determine_body_mass_index")
    assert "call determine" not in text and "code (" not in text and "nearest hits:" in text
    p.fit = "unsure"
    _print_panel(p.to_dict(), [])
    text = " ".join(capsys.readouterr().out.split())
    assert text.index("call determine") < text.index("verdict valid") < text.index(FIT_LINES["unsure"])


def test_a_name_the_task_gives_that_the_doc_lacks_is_a_signal():
    # a capitalised word inside the sentence the doc does not hold: a service no doc of the pool serves
    assert names_missed("send a message to my team's Slack channel", BMI) == 1.0
    # the first word of a sentence is no name, a word in capitals (a format) neither, nor quoted text
    assert names_missed("Calculate the body mass index. Weight is 70 kg", BMI) == 0.0
    assert names_missed('compute the BMI of "Alice Smith"', BMI) == 0.0
    # a name the doc holds
    assert names_missed("the Body mass index of a person", BMI) == 0.0
    # a title the task gives after a naming word is a value ("make a new google form called Party RSVP" was
    # "nothing fits"); a service named before it still counts
    assert names_missed("compute the body mass index of a patient called Party Animal", BMI) == 0.0
    assert names_missed("post the body mass index to the Slack channel named General", BMI) == 1.0
    # single-quoted text is a value too ("convert 'Hello World' to lowercase" was "nothing fits"); an
    # apostrophe opens no quote, so the name after it still counts
    assert names_missed("compute the BMI of 'Alice Smith' in kg", BMI) == 0.0
    assert names_missed("post the players' body mass index to Slack", BMI) == 1.0
    assert names_missed("post my team's body mass index to 'General' on Slack", BMI) == 1.0


def _py(name: str, source: str = "python-env"):
    return dataclasses.replace(BMI, api_name=name, api_call=f"{name}(x)", source=source)


def test_a_fits_the_dense_side_and_bm25_disagree_on_is_unsure():
    """CoNaLa's "get max key in dictionary `MyCount`" answered with dict.get (BM25 15.3, cosine 0.884)
    while the dense side ranked max (the oracle, BM25 13.7) at 0.895: the recorded hits of the dev run."""
    get, mx, keys, hub = _py("dict.get"), _py("max"), _py("dict.keys"), _py("slow_r50", "torchhub")
    hits = [Hit(get, 15.3, 1, dense=0.884), Hit(mx, 13.7, 2, dense=0.895), Hit(keys, 12.6, 3, dense=0.881),
            Hit(hub, 30.0, 4, dense=0.990)]  # fmt: skip
    gap, ratio = dense_disagreement(hits, get)
    assert gap == pytest.approx(0.011) and ratio == pytest.approx(15.3 / 13.7)  # the hub's hit left out
    assert dense_disagreement(hits, mx) == (pytest.approx(0.884 - 0.895), pytest.approx(13.7 / 15.3))
    features, bias, weights = pipeline_fit.FIT_MODELS[0]
    fits = {f: (1.0 if w > 0 else -1.0) * 10 for f, w in zip(features, weights, strict=True)}
    assert pipeline_fit.label(fits) == "fits"
    assert pipeline_fit.label(dict(fits, cos_gap=gap, bm25_ratio=ratio)) == "unsure"
    # BM25 clearly prefers the chosen doc (1.2 times the best other), or the dense side agrees: it fits
    clear = [Hit(get, 20.0, 1, dense=0.884), *hits[1:]]
    clear_gap, clear_ratio = dense_disagreement(clear, get)
    assert pipeline_fit.label(dict(fits, cos_gap=clear_gap, bm25_ratio=clear_ratio)) == "fits"
    assert not pipeline_fit.doubted({"cos_gap": -0.011, "bm25_ratio": 0.9})
    # nothing fits stays nothing fits; no cosines (BM25 alone), no other hit of its source: not assessed
    none = {f: -v for f, v in fits.items()}
    assert pipeline_fit.label(dict(none, cos_gap=gap, bm25_ratio=ratio)) == "nothing"
    assert dense_disagreement([Hit(get, 15.3, 1), Hit(mx, 13.7, 2)], get) == (None, None)
    assert dense_disagreement([Hit(get, 15.3, 1, dense=0.8), hits[3]], get) == (None, None)
    # the other hits only the dense side found (BM25 0): BM25 prefers none of them
    assert dense_disagreement([Hit(get, 15.3, 1, dense=0.8), Hit(mx, 0.0, 2, dense=0.9)], get)[1] is None


def test_the_disagreement_is_read_for_python_env_docs_only():
    backend = ScriptedBackend(["x"])
    fn, other = dataclasses.replace(BMI, source="fn"), dataclasses.replace(BMI, api_name="bmi2", source="fn")
    hits = [Hit(fn, 10.0, 1, dense=0.80), Hit(other, 9.0, 2, dense=0.95)]
    _, values = pipeline_fit.judge(backend, BMI_TASK, fn, hits=hits)
    assert values["cos_gap"] is None and values["bm25_ratio"] is None
    py = _py("statistics.mean")
    hits = [Hit(py, 10.0, 1, dense=0.80), Hit(_py("statistics.median"), 9.0, 2, dense=0.95)]
    _, values = pipeline_fit.judge(backend, BMI_TASK, py, hits=hits)
    assert values["cos_gap"] == pytest.approx(0.15) and values["bm25_ratio"] == pytest.approx(10 / 9)


def _model(name: str, domain: str):
    return dataclasses.replace(_py(name, "huggingface"), domain=domain)


def test_a_model_hub_doc_is_not_doubted(monkeypatch):
    """hf-summarize of bench/everyday_tasks.toml ("shorten a long news article into a few sentences with a
    transformers model"), the hits of the recorded run (rounded): it5-base-news-summarization chosen and
    right; the dense side and BM25 preferred another summariser (right too). A hub is not in DOUBT_SOURCES,
    so the other summariser, a rival by API, does not doubt it (read on every source, it would)."""
    text2text, similarity = (
        "Natural Language Processing Text2Text Generation",
        "Natural Language Processing Sentence Similarity",
    )
    it5, t5 = (
        _model("it5-base-news-summarization", text2text),
        _model("mrm8488/t5-base-finetuned-summarize-news", text2text),
    )
    roberta = _model("sentence-transformers/all-roberta-large-v1", similarity)
    minilm = _model(
        "sentence-transformers/all-MiniLM-L12-v1", similarity.lower()
    )  # domains compared casefolded
    hits = [
        Hit(t5, 18.06, 1, dense=0.8566, lm_score=-73.08),
        Hit(it5, 12.51, 2, dense=0.8524, lm_score=-67.29),
        Hit(roberta, 9.21, 3, dense=0.8447, lm_score=-70.30),
        Hit(minilm, 9.02, 4, dense=0.8469, lm_score=-68.68),
    ]
    assert rivals(hits, it5) == [hits[0], *hits[2:]]
    fitted = ScriptedBackend(["x"], name=FIT_MODEL)
    _, values = pipeline_fit.judge(fitted, "shorten a news article", it5, lm=-67.29, hits=hits)
    assert values["cos_gap"] is None and values["lm_gap"] is None  # a hub is not in DOUBT_SOURCES
    # read on every source, the other summariser would doubt it
    monkeypatch.setattr(pipeline_fit, "DOUBT_SOURCES", frozenset({"huggingface"}))
    _, values = pipeline_fit.judge(fitted, "shorten a news article", it5, lm=-67.29, hits=hits)
    assert values["cos_gap"] == pytest.approx(0.8566 - 0.8524) and values["bm25_ratio"] < 1
    assert pipeline_fit.doubted(values)


def test_a_fits_the_model_reads_more_likely_after_another_hit_is_unsure():
    """CoNaLa's "get top `3` items from a dictionary `mydict` with largest sum of values": max chosen at
    log p -95.1 while heapq.nlargest (the oracle) read the task at -89.5 (the recorded dev run)."""
    mx, top, hub = _py("max"), _py("heapq.nlargest"), _py("slow_r50", "torchhub")
    hits = [
        Hit(mx, 14.9, 1, lm_score=-95.1),
        Hit(top, 23.3, 2, lm_score=-89.5),
        Hit(hub, 9.0, 3, lm_score=-50.0),
    ]
    fitted = ScriptedBackend(["x"], name=FIT_MODEL)
    assert pipeline_fit.lm_gap(fitted, hits, mx) == pytest.approx(5.6)  # the hub's hit left out
    assert pipeline_fit.lm_gap(fitted, hits, top) == pytest.approx(-5.6)
    assert pipeline_fit.lm_gap(ScriptedBackend(["x"], name="another-model"), hits, mx) is None
    assert pipeline_fit.lm_gap(fitted, [Hit(mx, 14.9, 1), Hit(top, 23.3, 2)], mx) is None  # not scored
    assert pipeline_fit.doubted({"lm_gap": 5.6}) and not pipeline_fit.doubted({"lm_gap": 4.0})
    _, values = pipeline_fit.judge(fitted, "get the 3 largest items", mx, lm=-95.1, hits=hits)
    assert values["lm_gap"] == pytest.approx(5.6)
