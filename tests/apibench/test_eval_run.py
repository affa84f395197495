"""`gorilla-tui eval run`: the CI smoke eval (20 Torch Hub tasks, bm25, select mode, the embedded model)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gorilla_tui.cli import main
from gorilla_tui.evaluate.score import score_file

pytestmark = pytest.mark.model


def _run(capsys: pytest.CaptureFixture[str], apibench: Path, out: Path, limit: int) -> dict:
    code = main(["eval", "run", "--hub", "torchhub", "--retriever", "bm25", "--mode", "select", "-k", "3",
                 "--from", str(apibench), "--limit", str(limit), "--out", str(out), "--json"])  # fmt: skip
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def _lines(out: Path) -> list[dict]:
    text = out.read_text(encoding="utf-8")
    assert text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def test_eval_run_writes_gorilla_responses_and_resumes(
    home_with_index: Path, apibench: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "th.jsonl"
    first = _run(capsys, apibench, out, 10)
    assert (first["answered"], first["skipped"], first["n"]) == (10, 0, 10)
    lines = _lines(out)
    assert [x["question_id"] for x in lines] == list(range(1, 11))
    for x in lines:  # Gorilla's response format, with our fields beside it
        assert x["text"].startswith("<<<domain>>>: ") and f"<<<api_call>>>: {x['api_call']}," in x["text"]
        assert x["api_call"] in [h[0] for h in x["hits"]]  # select mode: one of the hits, verbatim
        assert x["verdict"] == "valid" and x["timings"]["total"] > 0
        assert (x["hub"], x["retriever"], x["mode"]) == ("torchhub", "bm25", "select")

    # a kill in mid-write leaves a partial last line: the resume drops it and answers that task again
    with out.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(lines[0] | {"question_id": 11})[:40])
    second = _run(capsys, apibench, out, 20)
    assert (second["answered"], second["skipped"], second["n"]) == (10, 10, 20)
    lines = _lines(out)
    assert [x["question_id"] for x in lines] == list(range(1, 21))  # nothing answered twice

    # `eval score` reads the file; select mode cannot hallucinate (only pool api_calls can be emitted)
    assert main(["eval", "score", "--hub", "torchhub", "--from", str(apibench), "--responses", str(out),
                 "--metric", "gorilla", "--json"]) == 0  # fmt: skip
    scored = json.loads(capsys.readouterr().out)
    assert scored["n"] == 20 and scored["hallucination"] == 0.0
    assert second["gorilla"]["accuracy"] == scored["accuracy"]
    strict = score_file("torchhub", out, metric="strict", from_dir=apibench)
    assert strict.hallucination == 0.0 and second["strict"]["hallucination"] == 0.0
    assert 0.0 < second["api_at_k"] <= 1.0 and second["latency_p50"] > 0

    # a rerun with everything answered loads no model and answers nothing
    third = _run(capsys, apibench, out, 20)
    assert (third["answered"], third["skipped"]) == (0, 20)
    assert len(_lines(out)) == 20


def test_eval_run_ctrl_c_stops_after_the_current_task(
    home_with_index: Path, apibench: Path, tmp_path: Path
) -> None:
    """A real `gorilla-tui` process: SIGINT once its first answer is written; it finishes the task in hand,
    exits 130, and leaves only whole lines."""
    out = tmp_path / "th.jsonl"
    exe = Path(sys.executable).with_name("gorilla-tui")
    cmd = [str(exe), "eval", "run", "--hub", "torchhub", "--retriever", "bm25", "-k", "3",
           "--from", str(apibench), "--limit", "8", "--out", str(out)]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=os.environ.copy())
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if out.exists() and out.read_text(encoding="utf-8").count("\n") >= 1:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err.decode()
    lines = _lines(out)
    assert 1 <= len(lines) < 8
    assert [x["question_id"] for x in lines] == list(range(1, len(lines) + 1))
    assert "rerun the same command to resume" in err.decode()


def test_eval_run_refuses_another_runs_file(
    apibench: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "other.jsonl"
    out.write_text(json.dumps({"question_id": 1, "text": "x", "hub": "torchhub", "retriever": "oracle",
                               "mode": "select", "model": "gemma3-270m"}) + "\n")  # fmt: skip
    code = main(["eval", "run", "--hub", "torchhub", "--retriever", "bm25", "--from", str(apibench),
                 "--limit", "2", "--out", str(out)])  # fmt: skip
    assert code == 2
    assert "holds answers of another run" in capsys.readouterr().err
    assert out.read_text().count("\n") == 1  # nothing lost
