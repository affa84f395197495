"""`gorilla-tui eval score`: the gorilla and strict metrics on the released responses, and bad usage."""

from __future__ import annotations

import json
import shutil
import subprocess

from gorilla_tui.cli import main


def _responses(apibench, hub, name):
    return str(apibench / "responses" / hub / f"response_{hub}_Gorilla_FT_{name}.jsonl")


def test_gorilla_metric_json(apibench, capsys):
    args = ["eval", "score", "--hub", "torchhub", "--responses", _responses(apibench, "torchhub", "0_shot"),
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
    flagged = 7  # Torch Hub api_calls that are not valid Python (MEAL-V2), still matched after repair
    assert out["metric"] == "strict" and out["n"] == len(lines)
    assert out["accuracy"] >= (len(lines) - flagged) / len(lines)


def test_strict_table_output(apibench, capsys):
    args = ["eval", "score", "--hub", "tensorflowhub", "--from", str(apibench),
            "--responses", _responses(apibench, "tensorflowhub", "oracle")]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "metric strict" in out and "per domain" in out and "Image feature vector" in out


def test_bad_usage(apibench, capsys, tmp_path):
    assert main(["eval", "score", "--hub", "nohub", "--responses", "x.jsonl"]) == 2
    assert "unknown hub" in capsys.readouterr().err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert (
        main(["eval", "score", "--hub", "torchhub", "--responses", str(empty), "--from", str(apibench)]) == 2
    )
    assert "empty" in capsys.readouterr().err
    args = ["eval", "score", "--hub", "torchhub", "--responses", _responses(apibench, "torchhub", "bm25"),
            "--from", str(tmp_path)]  # fmt: skip
    assert main(args) == 2
    assert "not found" in capsys.readouterr().err


def test_bad_lines_count_as_errors(apibench, capsys, tmp_path):
    responses = tmp_path / "r.jsonl"
    responses.write_text('not json\n{"question_id": 99999, "text": "x"}\n{"question_id": 1}\n')
    args = ["eval", "score", "--hub", "torchhub", "--responses", str(responses), "--from", str(apibench),
            "--metric", "gorilla", "--json"]  # fmt: skip
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n"] == 3 and out["error"] == 1.0 and len(out["notes"]) == 2


def test_subprocess_eval_score(apibench):
    exe = shutil.which("gorilla-tui") or "/work/venv/bin/gorilla-tui"
    proc = subprocess.run(
        [exe, "eval", "score", "--hub", "huggingface", "--from", str(apibench), "--metric", "gorilla",
         "--responses", _responses(apibench, "huggingface", "0_shot"), "--json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert round(100 * json.loads(proc.stdout)["accuracy"], 2) == 69.36
