"""Files given to `eval run` / `index --refresh` that are not what they should be: nothing is lost, no eval
set is indexed, an offline hub fails fast."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from gorilla_tui.cli import main
from gorilla_tui.errors import GorillaError, UsageError
from gorilla_tui.evaluate import run as evalrun
from gorilla_tui.evaluate.apibench_files import read_responses
from gorilla_tui.evaluate.score import resolve_file

INFO = evalrun.RunInfo("torchhub", "bm25", "select", "gemma3-270m", 5, "likelihood")


def _line(qid: int, **extra) -> str:
    return json.dumps({"question_id": qid, "text": "x", **INFO.key(), **extra})


@pytest.mark.parametrize("content", ["my important notes\nline two\n", "no newline at the end", "[1, 2]\n"])
def test_a_file_that_is_not_a_responses_file_is_refused_and_left_alone(tmp_path: Path, content: str) -> None:
    f = tmp_path / "notes.txt"
    f.write_text(content, encoding="utf-8")
    f.chmod(0o644)
    with pytest.raises(UsageError, match="is not a responses file"):
        evalrun.load_answers(f, INFO)
    assert f.read_text(encoding="utf-8") == content and (f.stat().st_mode & 0o777) == 0o644


def test_a_repaired_responses_file_keeps_its_good_lines_and_permissions(tmp_path: Path) -> None:
    f = tmp_path / "answers.jsonl"
    failed = _line(2, error="the model failed")
    f.write_text(
        _line(1) + "\n" + failed + "\n" + _line(1) + "\n" + '{"question_id": 3, "te', encoding="utf-8"
    )
    f.chmod(0o664)
    kept, notes = evalrun.load_answers(f, INFO)
    assert sorted(kept) == [1] and notes == [
        "dropped a partial last line (the previous run was killed while writing it)",
        "dropped 1 failed (answered again) line(s)",
        "dropped 1 repeated (the same answer twice) line(s)",
    ]
    assert (f.stat().st_mode & 0o777) == 0o664
    assert [json.loads(x)["question_id"] for x in f.read_text(encoding="utf-8").splitlines()] == [1]


@pytest.mark.parametrize(
    "middle",
    ["not json", '{"note": "my run on the big machine"}', "[1, 2]", _line(1, text="another answer")],
    ids=["not-json", "no-id", "not-an-object", "another-answer-to-1"],
)
def test_a_resume_refuses_a_line_that_is_not_an_answer_and_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], middle: str
) -> None:
    """Issue 42 (known at round 10's stop): `eval run --out FILE` dropped the lines of FILE that are not
    answers when it resumed ("dropped 1 unreadable line(s)", the lines gone for good). A resume never loses
    a saved line: such a line is refused in one line naming it, exit 2, the file left as it was (also a
    second, different answer to a task: which one is right is not the resume's to choose)."""
    doc = {"domain": "Classification", "framework": "PyTorch", "functionality": "Image classifier",
           "api_name": "resnet_zz", "api_call": "torch.hub.load(repo_or_dir='zoo/vision', model='resnet_zz')",
           "api_arguments": {}, "python_environment_requirements": ["torch"], "example_code": [],
           "description": "A classifier."}  # fmt: skip
    pool, eval_file = tmp_path / "pool.jsonl", tmp_path / "eval.jsonl"
    pool.write_text(json.dumps(doc) + "\n")
    eval_file.write_text(
        json.dumps({"code": "###Instruction: classify images\n###Output: x", "api_data": doc})
    )
    out = tmp_path / "answers.jsonl"
    content = _line(1) + "\n" + middle + "\n" + _line(2) + "\n" + '{"question_id": 3, "te'
    out.write_text(content, encoding="utf-8")
    argv = ["eval", "run", "--hub", "torchhub", "--eval", str(eval_file), "--pool", str(pool), "--retriever",
            "bm25", "--mode", "select", "--select-by", "likelihood", "--out", str(out)]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"gorilla-tui: error: {out} line 2") and "nothing was changed" in err, err
    assert out.read_text(encoding="utf-8") == content


def test_a_whole_last_line_without_its_line_end_is_kept(tmp_path: Path) -> None:
    """A last line with no line end is a partial line only when it is no JSON: a whole answer (an editor
    that drops the final newline) was dropped as "partial" and answered again."""
    f = tmp_path / "answers.jsonl"
    f.write_text(_line(1) + "\n" + _line(2), encoding="utf-8")
    kept, notes = evalrun.load_answers(f, INFO)
    assert sorted(kept) == [1, 2] and notes == ["added the line end its last line lacked"]
    assert f.read_text(encoding="utf-8").endswith("\n") and len(f.read_text().splitlines()) == 2


def test_a_lone_partial_first_answer_is_repaired_not_refused(tmp_path: Path) -> None:
    f = tmp_path / "answers.jsonl"
    f.write_text('{"question_id": 1, "te', encoding="utf-8")
    assert evalrun.load_answers(f, INFO)[0] == {}
    assert f.read_text(encoding="utf-8") == ""


def test_an_offline_hub_fails_fast_without_retries(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")  # online: pool/hub.py reads the variable too
    monkeypatch.setattr(constants, "ENDPOINT", "http://127.0.0.1:9")  # discard port: connection refused
    start = time.perf_counter()
    with pytest.raises(GorillaError, match="network unreachable.*not in the local Hugging Face cache"):
        resolve_file("torchhub_eval.json")
    assert time.perf_counter() - start < 10  # huggingface_hub's 5 retries take ~25 s
    assert os.environ.get("HF_HUB_OFFLINE") == "0"  # the test's own setting is untouched


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_fifo_or_device_as_responses_or_out_file_is_refused_unread(tmp_path: Path, kind: str) -> None:
    """`eval score --responses /dev/zero` grew until the kernel killed it, `--out /dev/zero` read forever
    and a FIFO blocked: both are refused in one line before they are opened."""
    if kind == "fifo":
        path = tmp_path / "answers.jsonl"
        os.mkfifo(path)
        what = "a FIFO"
    else:
        path = Path("/dev/zero")
        what = "a character device"
    with pytest.raises(UsageError, match=f"not a regular file \\({what}\\)"):
        read_responses(path)
    with pytest.raises(UsageError, match=f"cannot write responses to {path}: it is {what}, not a file"):
        evalrun.load_answers(path, INFO)


def test_json_lines_holding_u2028_are_read_line_by_line(tmp_path: Path) -> None:
    """Break-it round 7: JSON Lines are written with ensure_ascii=False, so a model answer (or an eval
    file's domain, or a tool's description) holding U+2028, U+2029 or U+0085 is written raw, and
    str.splitlines() split the line there: `eval run` could not read its own answers file ("not JSON
    Lines"), and a tools file lost its functions. Every JSON Lines reader splits at "\\n" alone."""
    from gorilla_tui.evaluate.apibench_files import read_jsonl
    from gorilla_tui.pool.doc import load_file

    answers = tmp_path / "answers.jsonl"
    texts = ["a\u2028b", "c\u2029d", "e\x85f"]
    answers.write_text("".join(_line(i, api_call=t) + "\n" for i, t in enumerate(texts, 1)), encoding="utf-8")
    read = read_responses(answers)
    assert [row["api_call"] for _, row in read.rows] == texts and read.bad == []
    assert [row["api_call"] for row in read_jsonl(answers, "eval")] == texts  # type: ignore[index]
    tools = tmp_path / "tools.jsonl"
    tools.write_text(
        "".join(
            json.dumps(
                {"type": "function", "function": {"name": f"f{i}", "description": t}}, ensure_ascii=False
            )
            + "\n"
            for i, t in enumerate(texts)
        ),
        encoding="utf-8",
    )
    loaded = load_file(tools, "tools")
    assert [d.api_name for d in loaded.docs] == ["f0", "f1", "f2"] and not loaded.diagnostics, loaded
