"""The paper's AST metric (--metric gorilla): its cut, sub-tree and match rules on hand-written calls; on the
released Gorilla-7B FT responses: tests/apibench/test_gorilla_metric_apibench.py."""

from __future__ import annotations

import pytest

from gorilla_tui.evaluate import gorilla_metric as gm


def test_response_call_cut_rules():
    text = "<<<domain>>>: x, <<<api_call>>>: hub.load('u'), <<<api_provider>>>: TensorFlow Hub"
    assert gm.response_call(text, "tensorflowhub") == "hub.load('u')"
    assert gm.response_call("no call here", "torchhub") is None  # Torch Hub: error
    assert gm.response_call("no call here", "huggingface") == "no call here"  # the whole text
    # no ")" -> end = -2: the slice stops two characters before the end
    assert gm.response_call("api_call: abcdef", "huggingface") == "abcde"


def test_sub_trees_later_siblings_first():
    texts = [node.text for node, _ in gm.sub_trees("a(1)\nb(2)")]
    # root first, then the second statement (and its sub-trees) before the first (stack order)
    assert texts[0] == b"a(1)\nb(2)"
    assert texts.index(b"b(2)") < texts.index(b"a(1)")


def test_first_match_wins_and_unmatched_is_hallucination():
    pool = ["torch.hub.load(repo_or_dir='pytorch/vision', model='wide_resnet50_2')",
            "torch.hub.load(repo_or_dir='pytorch/vision', model='resnet50')"]  # fmt: skip
    trees = gm.prepare_pool(pool, "torchhub")
    # substring matching: 'resnet50' is not in '...wide_resnet50_2', but the reverse quirk holds
    assert gm.match("torch.hub.load('pytorch/vision', 'wide_resnet50_2')", trees) == 0
    assert gm.match("torch.hub.load('pytorch/vision', 'resnet50')", trees) == 1
    assert gm.match("torch.hub.load('other/repo', 'x')", trees) == -1
    out = gm.score_response({"text": "api_call: f(x)"}, "torchhub", trees, ["A", "B"], "A")
    assert out.status == "hallucination"
    assert gm.score_response({}, "torchhub", trees, ["A", "B"], "A").status == "error"


def test_fall_through_candidate_can_match():
    # no sub-tree is named `pipeline`; the last recorded sub-tree is tested and matches by substring
    trees = gm.prepare_pool(["pipeline('ner')"], "huggingface")
    # the last recorded sub-tree of foo(x, 'ner') is the string 'ner' (pushed first, popped last)
    assert gm.match("foo('ner', 'zzz')", trees) == 0
    assert gm.match("foo('zzz', 'ner')", trees) == -1


def test_pool_entries_without_arguments_never_match():
    assert gm.prepare_pool(["hub.load()", "./run.sh --x"], "tensorflowhub") == []
    with pytest.raises(ValueError):
        gm.prepare_pool(["f(1)"], "nohub")


def test_pool_callee_flags_calls_of_another_hub():
    trees = gm.prepare_pool(["torch.hub.load(repo_or_dir='pytorch/vision', model='resnet50')"], "torchhub")
    assert gm.pool_callee(gm.sub_trees("torch.hub.load('a', 'b')"), trees) is True
    assert gm.pool_callee(gm.sub_trees("pipeline('fill-mask', model='bert')"), trees) is False
    assert gm.pool_callee(gm.sub_trees("just words"), trees) is None
    out = gm.score_response({"text": "api_call: pipeline('x')"}, "torchhub", trees, ["A"], "A")
    assert out.status == "hallucination" and out.callee is False
