"""`gorilla-tui eval score`: the gorilla and strict metrics on the released responses, and bad usage."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from gorilla_tui.cli import main
from gorilla_tui.pool.repair import python_parses


def _responses(folder, hub, name):
    return str(folder / hub / f"response_{hub}_Gorilla_FT_{name}.jsonl")


def test_gorilla_metric_json(apibench_responses, apibench, capsys):
    responses = _responses(apibench_responses, "torchhub", "0_shot")
    args = ["eval", "score", "--hub", "torchhub", "--responses", responses,
            "--from", str(apibench), "--metric", "gorilla", "--json"]  # fmt: skip
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n"] == 186
    assert round(100 * out["accuracy"], 2) == 75.81 and round(100 * out["hallucination"], 2) == 16.13
    assert abs(out["accuracy"] + out["hallucination"] + out["error"] - 1) < 1e-6
    assert sum(d["n"] for d in out["per_domain"].values()) == 186


def test_strict_metric_with_explicit_files(apibench, capsys, tmp_path):
    """Answering every question with its own ground-truth api_call is 100 % correct under strict."""
    eval_file = apibench / "eval" / "torchhub_eval.json"
    lines = eval_file.read_text().splitlines()
    responses = tmp_path / "truth.jsonl"
    responses.write_text(
        "\n".join(
            json.dumps({"question_id": i, "text": json.loads(line)["api_data"]["api_call"]})
            for i, line in enumerate(lines, start=1)
        )
    )
    args = ["eval", "score", "--hub", "th", "--responses", str(responses), "--eval", str(eval_file),
            "--pool", str(apibench / "api" / "torchhub_api.jsonl"), "--json"]  # fmt: skip
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    # ground truths that Python refuses (MEAL V2: positional after keyword) are unparseable (issue 15)
    refused = sum(not python_parses(json.loads(line)["api_data"]["api_call"]) for line in lines)
    assert refused == 19
    assert out["metric"] == "strict" and out["n"] == len(lines)
    assert out["accuracy"] >= (len(lines) - refused) / len(lines) - 1e-6  # rounded to 6 digits
    assert out["reasons"] == {"unparseable:python_syntax": refused}


def test_strict_table_output(apibench_responses, apibench, capsys):
    args = ["eval", "score", "--hub", "tensorflowhub", "--from", str(apibench),
            "--responses", _responses(apibench_responses, "tensorflowhub", "oracle")]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "metric strict" in out and "per domain" in out and "Image feature vector" in out


def test_bad_usage(apibench_responses, apibench, capsys, tmp_path):
    assert main(["eval", "score", "--hub", "nohub", "--responses", "x.jsonl"]) == 2
    assert "unknown hub" in capsys.readouterr().err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert (
        main(["eval", "score", "--hub", "torchhub", "--responses", str(empty), "--from", str(apibench)]) == 2
    )
    assert "empty" in capsys.readouterr().err
    bm25 = _responses(apibench_responses, "torchhub", "bm25")
    args = ["eval", "score", "--hub", "torchhub", "--responses", bm25,
            "--from", str(tmp_path)]  # fmt: skip
    assert main(args) == 2
    assert "not found" in capsys.readouterr().err


def _score(apibench, responses, *extra, hub="torchhub", metric="strict"):
    return ["eval", "score", "--hub", hub, "--responses", str(responses), "--from", str(apibench),
            "--metric", metric, "--json", *extra]  # fmt: skip


def _lines(apibench_responses, hub="torchhub"):
    return [line for line in open(_responses(apibench_responses, hub, "0_shot")) if line.strip()]


def test_a_few_bad_lines_count_as_errors_with_a_warning(apibench_responses, apibench, capsys, tmp_path):
    good = _lines(apibench_responses)[:40]
    responses = tmp_path / "r.jsonl"
    responses.write_text("".join(good[:10]) + "not json\n" + "".join(good[10:]))
    assert main(_score(apibench, responses, metric="gorilla")) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["n"] == 41 and out["per_domain"]["(unknown)"]["n"] == 1
    assert out["per_domain"]["(unknown)"]["error"] == 1.0
    assert out["warnings"] == [
        "1 line(s) are not JSON objects with a question_id, counted as errors (first: line 11)"
    ]
    assert "warning: 1 line(s)" in captured.err


def test_a_line_nested_deeper_than_the_recursion_limit_is_a_bad_line(
    apibench_responses, apibench, capsys, tmp_path
):
    # hostile-input pass (breakit1): this was "internal error: RecursionError"
    good = _lines(apibench_responses)[:40]
    deep = '{"question_id": 99, "text": ' + "[" * 100_000 + "]" * 100_000 + "}\n"
    responses = tmp_path / "r.jsonl"
    responses.write_text("".join(good[:10]) + deep + "".join(good[10:]))
    assert main(_score(apibench, responses, metric="gorilla")) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n"] == 41
    assert out["warnings"] == [
        "1 line(s) are not JSON objects with a question_id, counted as errors (first: line 11)"
    ]


@pytest.mark.parametrize("metric", ["strict", "gorilla"])
def test_not_a_response_file_exits_2(apibench_responses, apibench, capsys, tmp_path, metric):
    binary = tmp_path / "ls.bin"
    binary.write_bytes(Path("/bin/ls").read_bytes() if Path("/bin/ls").is_file() else b"\x7fELF\x00\x01" * 99)
    latin1 = tmp_path / "latin1.jsonl"
    latin1.write_bytes(b'{"question_id": 1, "text": "caf\xe9"}\n')
    prose = tmp_path / "prose.jsonl"
    prose.write_text("this is\nnot a response file\n[1, 2]\n")
    mostly_bad = tmp_path / "bad.jsonl"
    mostly_bad.write_text("".join(_lines(apibench_responses)[:10]) + "{}\n" + "oops\n")
    cases = [(binary, "binary"), (latin1, "not UTF-8"), (prose, "no line is; first line that is not: 1"),
             (mostly_bad, "2 of 12 lines of responses file")]  # fmt: skip
    for path, message in cases:
        assert main(_score(apibench, path, metric=metric)) == 2, path
        captured = capsys.readouterr()
        assert captured.out == "" and message in captured.err, captured.err
        assert "(first: line 11)" in captured.err if path == mostly_bad else True
        assert len(captured.err.strip().splitlines()) == 1 and "Traceback" not in captured.err


def test_repeated_and_unknown_question_ids(apibench_responses, apibench, capsys, tmp_path):
    good = _lines(apibench_responses)[:10]
    responses = tmp_path / "dup.jsonl"
    stray = json.dumps({"question_id": 99999, "text": "x"}) + "\n"
    responses.write_text("".join(good) + good[2] + good[5] + stray)
    assert main(_score(apibench, responses, metric="strict")) == 0
    captured = capsys.readouterr()
    strict = json.loads(captured.out)
    assert strict["n"] == 10 and sum(strict["verdicts"].values()) == 10
    assert any("2 repeated question_id(s)" in w and "counted once" in w for w in strict["warnings"])
    assert any("1 response(s) skipped: question_id not in the eval set" in w for w in strict["warnings"])
    assert "repeated question_id" in captured.err and "line 13" in captured.err
    assert main(_score(apibench, responses, metric="gorilla")) == 0
    gorilla = json.loads(capsys.readouterr().out)
    assert gorilla["n"] == 12  # the released scripts iterate over response lines
    assert any("every line counted" in w for w in gorilla["warnings"])
    only_stray = tmp_path / "stray.jsonl"
    only_stray.write_text(stray)
    assert main(_score(apibench, only_stray)) == 2
    assert "no response line answers a question" in capsys.readouterr().err


@pytest.mark.parametrize("metric", ["strict", "gorilla"])
def test_responses_for_another_hub_are_flagged(apibench_responses, apibench, capsys, metric):
    torchhub = _responses(apibench_responses, "torchhub", "0_shot")
    assert main(_score(apibench, torchhub, hub="huggingface", metric=metric)) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["hallucination"] == 1.0
    assert [w for w in out["warnings"] if "look like they are for another hub" in w]
    assert "only 0 of 186 call an API of the huggingface pool" in captured.err
    assert main(_score(apibench, torchhub, metric=metric)) == 0  # the right hub: no warning
    captured = capsys.readouterr()
    assert json.loads(captured.out)["warnings"] == [] and captured.err == ""


def test_subprocess_eval_score(apibench_responses, apibench, gorilla_cmd):
    proc = subprocess.run(
        [*gorilla_cmd, "eval", "score", "--hub", "huggingface", "--from", str(apibench),
         "--metric", "gorilla", "--responses", _responses(apibench_responses, "huggingface", "0_shot"),
         "--json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert round(100 * json.loads(proc.stdout)["accuracy"], 2) == 69.36
    proc = subprocess.run(
        [*gorilla_cmd, "eval", "score", "--hub", "torchhub", "--from", str(apibench),
         "--responses", "/bin/ls"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == ""
    assert "binary" in proc.stderr and "Traceback" not in proc.stderr
