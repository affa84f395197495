"""Break-it round 16, R16-2: a resumable answer file (`eval run --out`, `eval bfcl --out`) whose answered
line has a field of the wrong type (an edited file, one mended by hand, one another version wrote) was an
"internal error" (TypeError, IndexError, ValueError); a number too large for a float or NaN was printed
into --json output as Infinity / NaN (not JSON, RFC 8259 section 6). Now every reader of such a file
refuses it in one line naming the line, exit 2, the file left as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gorilla_tui.cli import main
from gorilla_tui.errors import UsageError
from gorilla_tui.evaluate import bfcl
from gorilla_tui.evaluate import run as evalrun
from gorilla_tui.evaluate.tasks import EvalTask

INFO = evalrun.RunInfo("torchhub", "bm25", "select", "gemma3-270m", 5, "likelihood")
CALL = "torch.hub.load(repo_or_dir='zoo/vision', model='resnet_zz')"
#: (field, the wrong value as JSON text: 1e400 and NaN are what Python's json reads as inf and nan).
RUN_DAMAGE = [
    ("timings", '{"total": "abc"}'),
    ("timings", '"x"'),
    ("timings", '{"total": 1e400}'),
    ("timings", '{"total": NaN}'),
    ("timings", '{"total": ' + "9" * 400 + "}"),  # an int past a float: math.isfinite raises
    ("hits", "5"),
    ("hits", "[5]"),
    ("hits", '[["x", "high"]]'),
    ("api_call", "7"),
]
BFCL_DAMAGE = ['"abc"', "[1]", "NaN", "1e400", "-Infinity", "true"]


def _run_line(qid: int, field: str = "", raw: str = "") -> str:
    line = json.dumps({"question_id": qid, "text": "x", **INFO.key(), "api_call": CALL, "verdict": "valid",
                       "hits": [[CALL, 1.5]], "timings": {"total": 0.25}})  # fmt: skip
    return line if not field else line.replace(f'"{field}": ', f'"{field}": {raw}, "_was": ', 1)


@pytest.mark.parametrize(("field", "raw"), RUN_DAMAGE)
def test_a_resume_refuses_an_eval_run_line_with_a_field_of_the_wrong_type(
    tmp_path: Path, field: str, raw: str
):
    out = tmp_path / "answers.jsonl"
    content = _run_line(1) + "\n" + _run_line(2, field, raw) + "\n"
    out.write_text(content, encoding="utf-8")
    with pytest.raises(UsageError, match=rf"^damaged answer file {out}, line 2: {field}") as e:
        evalrun.load_answers(out, INFO)
    assert "nothing was changed" in (e.value.hint or "")
    assert out.read_text(encoding="utf-8") == content


@pytest.mark.parametrize(("field", "raw"), RUN_DAMAGE)
def test_the_summary_refuses_a_damaged_line_too(tmp_path: Path, field: str, raw: str):
    """summarise reads the file again after the answers were appended (a line it reads is never one the
    resume passed over: the check is where each reader reads)."""
    out = tmp_path / "answers.jsonl"
    out.write_text("\n" + _run_line(1) + "\n\n" + _run_line(2, field, raw) + "\n", encoding="utf-8")
    tasks = [EvalTask(q, "classify", "Classification", CALL, None) for q in (1, 2)]
    with pytest.raises(
        UsageError, match=rf"^damaged answer file {out}, line 4: {field}"
    ):  # blank lines count
        evalrun.summarise(out, "torchhub", tasks, eval_path=tmp_path / "e", pool_path=tmp_path / "p")


def test_eval_run_exits_2_on_a_damaged_answer_file_before_the_model_loads(tmp_path: Path, capsys):
    out = tmp_path / "answers.jsonl"
    out.write_text(_run_line(1, "timings", '{"total": 1e400}') + "\n", encoding="utf-8")
    argv = ["eval", "run", "--hub", "torchhub", "--eval", str(tmp_path / "e.jsonl"), "--pool",
            str(tmp_path / "p.jsonl"), "--retriever", "bm25", "--mode", "select", "--select-by", "likelihood",
            "--out", str(out)]  # fmt: skip
    (tmp_path / "e.jsonl").write_text(json.dumps({"code": "###Instruction: classify\n###Output: x"}) + "\n")
    (tmp_path / "p.jsonl").write_text(json.dumps({"api_call": CALL, "api_name": "resnet_zz"}) + "\n")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        f"gorilla-tui: error: damaged answer file {out}, line 1: timings.total is Infinity"
    ), err


RUN = bfcl.BfclRun("gemma3-270m", "generate", "", 5, False)
QUESTIONS = [bfcl.BfclQuestion(f"simple_{i}", "simple", "area of a triangle", [], []) for i in (0, 1)]


def _bfcl_line(qid: str, seconds: str = "0.5") -> str:
    line = {"id": qid, "category": "simple", "calls": [], "valid": True, "error": "", "error_type": "",
            "api_call": "f()", "seconds": 0.5, **RUN.key()}  # fmt: skip
    return json.dumps(line).replace('"seconds": 0.5', f'"seconds": {seconds}')


@pytest.mark.parametrize("seconds", BFCL_DAMAGE)
def test_eval_bfcl_refuses_a_line_whose_seconds_is_no_finite_number(tmp_path: Path, seconds: str):
    out = tmp_path / "bfcl.jsonl"
    content = _bfcl_line("simple_0") + "\n" + _bfcl_line("simple_1", seconds) + "\n"
    out.write_text(content, encoding="utf-8")
    for read in (lambda: bfcl.load_done(out, RUN), lambda: bfcl.score_answers(out, QUESTIONS)):
        with pytest.raises(UsageError, match=rf"^damaged answer file {out}, line 2: seconds is"):
            read()
    assert out.read_text(encoding="utf-8") == content


def test_good_lines_still_read_and_score(tmp_path: Path):
    out = tmp_path / "bfcl.jsonl"
    out.write_text(_bfcl_line("simple_0") + "\n" + _bfcl_line("simple_1", "3") + "\n", encoding="utf-8")
    assert sorted(bfcl.load_done(out, RUN)[0]) == ["simple_0", "simple_1"]
    [score] = bfcl.score_answers(out, QUESTIONS)
    assert (score.n, score.right, score.seconds_p50) == (2, 2, 0.5)
    run_out = tmp_path / "answers.jsonl"
    run_out.write_text(_run_line(1) + "\n", encoding="utf-8")
    assert list(evalrun.load_answers(run_out, INFO)[0]) == [1]


@pytest.mark.parametrize(
    ("field", "raw", "said"),
    [
        ("valid", '"yes"', "valid is a string, expected true or false"),
        ("calls", '{"f": {}}', "calls is an object, expected a list"),
        ("error_type", "3", "error_type is a number, expected a string or null"),
    ],
)
def test_eval_bfcl_names_each_field_of_the_wrong_type(tmp_path: Path, field: str, raw: str, said: str):
    out = tmp_path / "bfcl.jsonl"
    line = json.loads(_bfcl_line("simple_1"))
    damaged_line = json.dumps(line).replace(f'"{field}": {json.dumps(line[field])}', f'"{field}": {raw}', 1)
    out.write_text(_bfcl_line("simple_0") + "\n" + damaged_line + "\n", encoding="utf-8")
    with pytest.raises(UsageError, match=rf"^damaged answer file {out}, line 2: {said}$"):
        bfcl.load_done(out, RUN)
