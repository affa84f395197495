"""The calibrated choice of select mode (issue 18): choice.choose() and the pipeline's use of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from gorilla_tui.model import choice, likelihood
from gorilla_tui.pool.doc import ApiDoc, load_jsonl

VAD_TASK = "find the parts of a recording where someone is talking, silero style, in pytorch"


@pytest.fixture(scope="module")
def torch_docs(apibench: Path) -> list[ApiDoc]:
    return load_jsonl(apibench / "api" / "torchhub_api.jsonl", "torchhub").docs


def _doc(docs: list[ApiDoc], model: str) -> ApiDoc:
    return next(d for d in docs if f"model='{model}'" in d.api_call)


def test_choose_rules_on_scores_in_retrieval_order() -> None:
    lm = [-99.1, -96.8, -118.3, -122.9, -117.8]  # everyday th-vad: hit 1 right, hit 2 more likely
    free = [-20.0, -15.0, -30.0, -30.0, -30.0]
    assert choice.choose(lm, None, "first") == 0
    assert choice.choose(lm, None, "likelihood") == 1
    assert choice.choose(lm, None, "rrf") == 0  # ranks 1+2 vs 2+1: the tie goes to retrieval
    assert choice.choose(lm, free, "calibrated") == 0  # -79.1 vs -81.8
    assert choice.choose(lm, free, "rrf-calibrated") == 0
    # rank fusion lets the model overrule the first hit when it ranks it below two others
    assert choice.choose([-90.0, -60.0, -95.0], None, "rrf") == 0
    assert choice.choose([-90.0, -60.0, -70.0], None, "rrf") == 1
    assert choice.choose([-60.0, -90.0, -95.0, -50.0], None, "rrf") == 0
    with pytest.raises(ValueError):
        choice.choose(lm, None, "calibrated")
    with pytest.raises(ValueError):
        choice.choose(lm, None, "nope")
    with pytest.raises(ValueError):
        choice.choose([], None, "rrf")


def test_domain_vote_sums_the_likelihood_of_hits_that_share_a_domain() -> None:
    # three image-classification hits against one object-detection doc the model reads more easily
    lm = [-77.0, -76.6, -78.4, -78.1, -90.0]
    groups = ["Image classification", "Image object detection", "Image classification",
              "Image classification", "Text embedding"]  # fmt: skip
    assert choice.choose(lm, None, "likelihood") == 1
    assert choice.choose(lm, None, "domain-vote", groups) == 0  # log(sum) -76.0 vs -76.6: its best hit
    # one group alone is plain likelihood, and so is every hit in a group of its own
    assert choice.choose(lm, None, "domain-vote", ["a"] * 5) == 1
    assert choice.choose(lm, None, "domain-vote", list("abcde")) == 1
    # ties go to the group seen first in retrieval order, then to the earlier hit
    assert choice.choose([-50.0, -50.0, -50.0], None, "domain-vote", ["a", "b", "b"]) == 1
    assert choice.choose([-50.0, -50.0], None, "domain-vote", ["a", "b"]) == 0
    with pytest.raises(ValueError):
        choice.choose(lm, None, "domain-vote")
    with pytest.raises(ValueError):
        choice.choose(lm, None, "domain-vote", ["a"])


def test_the_calibrated_vote_sums_scores_less_what_each_doc_gives_any_task() -> None:
    # two docs of a domain the model finds likely for any task ("N/A" scores high) against one doc of another
    lm, groups = [-60.0, -60.5, -61.0], ["text generation", "text generation", "translation"]
    free = [-5.0, -5.5, -9.0]
    assert choice.choose(lm, free, "domain-vote", groups) == 0  # raw: the generation docs win
    assert choice.choose(lm, free, "domain-vote-calibrated", groups) == 2  # -52.0 > log sum exp(-55, -55)
    assert choice.choose(lm, free, "calibrated") == 2
    with pytest.raises(ValueError):
        choice.choose(lm, None, "domain-vote-calibrated", groups)  # needs the content-free scores
    with pytest.raises(ValueError):
        choice.choose(lm, free, "domain-vote-calibrated")  # and a domain per hit
    assert "domain-vote-calibrated" in choice.NEEDS_FREE
    assert choice.rule_words("domain-vote-calibrated") == "calibrated model likelihood summed per domain"


def test_a_warmer_vote_lets_the_number_of_hits_of_a_domain_weigh_more() -> None:
    # one object-detection doc the model reads 2 nats more easily than three image-classification docs
    lm, groups = [-70.0, -72.0, -72.0, -72.0], ["det", "cls", "cls", "cls"]
    assert choice.domain_vote(lm, groups) == 0  # T = 1: log(3) = 1.1 < 2 nats
    assert choice.domain_vote(lm, groups, 1.0) == 0
    assert choice.domain_vote(lm, groups, 3.0) == 1  # -24 + log 3 = -22.9 > -23.3
    assert choice.choose(lm, None, "domain-vote", groups, 3.0) == 1
    assert choice.choose(lm, None, "likelihood", groups, 3.0) == 0  # the temperature is the vote's only
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError):
            choice.domain_vote(lm, groups, bad)


def test_the_vote_temperature_follows_the_first_hit_source(torch_docs: list[ApiDoc], apibench: Path) -> None:
    tf = load_jsonl(apibench / "api" / "tensorflowhub_api.jsonl", "tensorflowhub").docs
    hf = load_jsonl(apibench / "api" / "huggingface_api.jsonl", "huggingface").docs
    assert choice.vote_temperature_for([tf[0], hf[0]]) == 3.0  # index/apibench-tensorflowhub.toml
    assert choice.vote_temperature_for([hf[0], tf[0]]) == choice.VOTE_TEMPERATURE == 1.0
    assert choice.vote_temperature_for([torch_docs[0]]) == 1.0
    user = ApiDoc(id="mine:1", source="mine", api_call="mylib.run(x)")
    assert choice.vote_temperature_for([user, tf[0]]) == 1.0
    assert choice.vote_temperature_for([]) == 1.0
    assert choice.vote_temperature_for([user], {"mine": 2.5}) == 2.5
    for bad in (True, "3", 0, -2, float("inf"), float("nan")):
        assert choice.vote_temperature(bad) is None
    assert choice.vote_temperature(3) == 3.0


@pytest.mark.model
def test_the_pipeline_votes_at_the_temperature_of_the_first_hit_source(
    apibench: Path, gemma_backend: object
) -> None:
    """A TensorFlow Hub dev task (bench/data/hub_dev_tasks.toml tf-053) and its five hits there: at T = 1
    the one object-detection doc outvotes four image-classification docs; at TensorFlow Hub's T = 3 the
    classifiers win, the right domain."""
    from gorilla_tui.config import Settings
    from gorilla_tui.pipeline import Pipeline
    from gorilla_tui.retrieve.index import ApiIndex

    tf = {d.id: d for d in load_jsonl(apibench / "api" / "tensorflowhub_api.jsonl", "tensorflowhub").docs}
    ids = [f"tensorflowhub:{line}" for line in (319, 527, 80, 679, 355)]
    task = "Predict the object class of every image in a TFRecord file of random web pictures."
    index = ApiIndex.build([tf[i] for i in ids])
    proposal = Pipeline(Settings(mode="select", k=5, select_by="likelihood"), index, gemma_backend).ask(task)
    docs = [h.doc for h in proposal.hits]
    lm = [h.lm_score for h in proposal.hits]
    assert proposal.choice_rule == "domain-vote" and None not in lm
    groups = choice.domain_groups(docs)
    cold, warm = docs[choice.domain_vote(lm, groups, 1.0)], docs[choice.domain_vote(lm, groups, 3.0)]
    assert cold.domain == "Image object detection" and warm.domain == "Image classification"
    assert proposal.api_call == warm.api_call


def test_domain_groups_keep_docs_without_a_domain_apart(apibench: Path) -> None:
    tf = load_jsonl(apibench / "api" / "tensorflowhub_api.jsonl", "tensorflowhub").docs
    same = [d for d in tf if d.domain == "Image classification"][:2]
    bare = [
        ApiDoc(id="mine:1", source="mine", api_call="a.b()"),
        ApiDoc(id="mine:2", source="mine", api_call="c.d()"),
    ]
    groups = choice.domain_groups([*same, *bare])
    assert len(same) == 2 and groups[0] == groups[1] == "tensorflowhub/Image classification"
    assert len(set(groups)) == 3  # each doc without a domain is its own group


def test_the_default_rule_was_chosen_among_the_compared_ones() -> None:
    assert choice.CHOICE_RULE in choice.CHOICE_RULES


@pytest.mark.model
def test_rank_fusion_keeps_a_clearly_right_first_hit_that_raw_likelihood_leaves(
    torch_docs: list[ApiDoc], gemma_backend: object
) -> None:
    vad, stt = _doc(torch_docs, "silero_vad"), _doc(torch_docs, "silero_stt")
    lm = likelihood.query_likelihoods(gemma_backend, VAD_TASK, [vad, stt])
    free = likelihood.content_free_scores(gemma_backend, [vad, stt])
    assert len(lm) == len(free) == 2
    assert choice.choose(lm, free, "likelihood") == 1  # the speech-to-text doc reads as more likely
    assert choice.choose(lm, free, "rrf") == 0  # the voice activity detector, BM25's first hit, stays
    assert likelihood.content_free_scores(gemma_backend, [stt, vad]) == free[::-1]  # cached per doc


def test_rule_for_follows_the_first_hit_source_and_its_expansion(
    torch_docs: list[ApiDoc], apibench: Path
) -> None:
    rules = choice.choice_rules()  # the shipped manifests
    assert rules["torchhub"] == rules["tensorflowhub"] == "domain-vote"
    assert rules["huggingface"] == "domain-vote-calibrated"  # chosen on the Hugging Face dev split
    assert set(rules.values()) <= set(choice.CHOICE_RULES)
    tf = load_jsonl(apibench / "api" / "tensorflowhub_api.jsonl", "tensorflowhub").docs
    vad = _doc(torch_docs, "silero_vad")
    assert choice.rule_for([tf[0], vad]) == "domain-vote"  # hit 1 decides
    assert choice.rule_for([vad, tf[0]]) == "domain-vote"  # Torch Hub docs without training questions
    expanded = ApiDoc(**{**vad.to_dict(), "questions": ["detect speech in a recording"]})
    assert choice.rule_for([expanded, tf[0]]) == choice.EXPANDED_RULE  # a hub's expanded doc
    user = ApiDoc(id="mine:1", source="mine", api_call="mylib.run(x)")
    assert choice.rule_for([user, tf[0]]) == choice.CHOICE_RULE  # no manifest rule: the default
    own_questions = ApiDoc(**{**user.to_dict(), "questions": ["run my thing"]})
    assert choice.rule_for([own_questions]) == choice.CHOICE_RULE  # no rule of its own: the default
    assert choice.rule_for([]) == choice.CHOICE_RULE


@pytest.mark.model
def test_pipeline_chooses_by_the_rule_of_the_first_hit_source(
    torch_docs: list[ApiDoc], gemma_backend: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gorilla_tui.config import Settings
    from gorilla_tui.pipeline import Pipeline
    from gorilla_tui.retrieve.index import ApiIndex

    index = ApiIndex.build([_doc(torch_docs, "silero_vad"), _doc(torch_docs, "silero_stt")])
    pipe = Pipeline(Settings(mode="select", k=5, select_by="likelihood"), index, gemma_backend)
    assert [h.doc.api_call for h in index.search(VAD_TASK, k=5)][0].count("silero_vad") == 1
    shipped = pipe.ask(VAD_TASK)  # unexpanded Torch Hub docs: the manifest's rule
    assert shipped.choice_rule == "domain-vote" and "silero_stt" in shipped.api_call
    monkeypatch.setattr(choice, "choice_rules", lambda: {"torchhub": "rrf"})
    fused = pipe.ask(VAD_TASK)
    assert fused.choice_rule == "rrf" and "silero_vad" in fused.api_call
    assert fused.to_dict()["choice_rule"] == "rrf"
