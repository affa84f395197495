"""APIBench tier of tests/cli/test_model_options.py: The model flags shared by `ask`, `tui` and `eval run`
(cli/options.py), above all --select-by: it reaches Settings (and the pipeline), a bad value or a bad
config.toml value is one line and exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gorilla_tui.cli import build_parser, main
from gorilla_tui.cli.options import settings_from_args
from tests.cli.test_model_options import VIDEO_TASK, _write_config

VALID_CALL = (
    "torch.hub.load(repo_or_dir='facebookresearch/pytorchvideo', model='slowfast_r50', pretrained=True)"
)


SELECT_BY_HELP = "how select mode chooses: likelihood (model scores each hit) or grammar (GBNF)"


def _command(name: str, tmp_path: Path, apibench: Path) -> list[str]:
    """The smallest valid command line of `ask`, `tui` or `eval run`."""
    return {
        "ask": ["ask", VIDEO_TASK],
        "tui": ["tui"],
        "eval run": ["eval", "run", "--hub", "torchhub", "--from", str(apibench), "--retriever", "bm25",
                     "--out", str(tmp_path / "answers.jsonl")],
    }[name]  # fmt: skip


@pytest.mark.parametrize("name", ["ask", "tui", "eval run"])
def test_select_by_flag_overrides_config_toml(name, tmp_path, apibench):
    parse = build_parser().parse_args
    argv = _command(name, tmp_path, apibench)
    assert settings_from_args(parse(argv)).select_by == "likelihood"  # the default, no config.toml
    assert settings_from_args(parse([*argv, "--select-by", "grammar"])).select_by == "grammar"
    _write_config('select_by = "grammar"\nmode = "select"\n')
    assert settings_from_args(parse(argv)).select_by == "grammar"  # config.toml, no flag
    settings = settings_from_args(
        parse([*argv, "--select-by", "likelihood", "-k", "3", "--mode", "generate"])
    )
    assert (settings.select_by, settings.k, settings.mode) == ("likelihood", 3, "generate")


@pytest.mark.parametrize("name", ["ask", "tui", "eval run"])
def test_help_lists_the_shared_flags(name, tmp_path, apibench, capsys):
    with pytest.raises(SystemExit) as e:
        main([*_command(name, tmp_path, apibench)[: 2 if name == "eval run" else 1], "--help"])
    assert e.value.code == 0
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps help lines
    for flag in ("--model", "--mode", "--select-by {likelihood,grammar}", "--kernel", "-k N"):
        assert flag in out
    assert SELECT_BY_HELP in out
    assert ("--endpoint" in out, "--max-tokens" in out) == {
        "ask": (True, True),
        "tui": (False, False),
        "eval run": (True, False),
    }[name]


def test_select_by_grammar_reaches_the_pipeline(apibench, monkeypatch, capsys):
    """`ask --select-by grammar` on a real Torch Hub index: the Settings handed to the backend factory and the
    pipeline carry it, and the answer is one of the hits (ScriptedBackend stands in for the model)."""
    from gorilla_tui.model import backend as model_backend
    from gorilla_tui.model.scripted import ScriptedBackend

    assert main(["index", "--refresh", "--from", str(apibench), "--only", "torchhub"]) == 0
    capsys.readouterr()
    seen, backends = [], []
    from gorilla_tui.config import Settings
    from gorilla_tui.model.grammar import unique_options
    from gorilla_tui.pipeline import Pipeline, shared_prefix
    from gorilla_tui.retrieve.index import ApiIndex

    hits = Pipeline(Settings(hub="torchhub"), ApiIndex.load(), ScriptedBackend(["x"])).retrieve(VIDEO_TASK)
    options = unique_options(h.doc.api_call for h in hits)
    assert VALID_CALL in options and len(options) > 1
    # select mode puts the options' shared leading text into the prompt: the grammar (GBNF) then allows
    # only the rest of one call, which is what the model writes
    answer = VALID_CALL[len(shared_prefix(options)) :]

    def open_backend(settings, **_kwargs):  # cancel=... (the probe's Ctrl+C)
        seen.append(settings)
        backends.append(ScriptedBackend([answer]))
        return backends[-1]

    monkeypatch.setattr(model_backend, "open_backend", open_backend)  # services opens backends through it
    rc = main(
        ["ask", VIDEO_TASK, "--json", "--hub", "torchhub", "--mode", "select", "--select-by", "grammar"]
    )
    out = json.loads(capsys.readouterr().out)
    assert [(s.mode, s.select_by, s.hub) for s in seen] == [("select", "grammar", "torchhub")]
    assert rc == 0 and out["verdict"]["verdict"] == "valid" and out["api_call"] == VALID_CALL
    assert VALID_CALL in [h["doc"]["api_call"] for h in out["hits"]]
    assert len(backends[0].calls) == 1 and answer in backends[0].calls[0]["grammar"]


@pytest.mark.parametrize("name", ["ask", "tui", "eval run"])
def test_bad_select_by_flag_is_one_line_exit_2(name, tmp_path, apibench, capsys):
    with pytest.raises(SystemExit) as e:
        main([*_command(name, tmp_path, apibench), "--select-by", "nope"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "argument --select-by: invalid choice: 'nope'" in err and "likelihood" in err and "grammar" in err


@pytest.mark.parametrize("name", ["ask", "tui", "eval run"])
def test_bad_select_by_in_config_toml_names_the_file(name, tmp_path, apibench, capsys):
    path = _write_config('select_by = "nope"\n')
    assert main(_command(name, tmp_path, apibench)) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert err.startswith(
        f"gorilla-tui: error: {path}: select_by must be one of likelihood, grammar, not 'nope'"
    )
    assert path.read_text(encoding="utf-8") == 'select_by = "nope"\n'  # nothing rewritten
    assert not (tmp_path / "answers.jsonl").exists()


def test_eval_run_resume_must_match_select_by(apibench, tmp_path, capsys):
    """A response file of a grammar run (written before select_by existed: no key, select mode) resumes with
    --select-by grammar (nothing left to answer: no model is loaded) and is refused with likelihood."""
    from gorilla_tui.evaluate.run import load_tasks

    task = load_tasks(apibench / "eval" / "torchhub_eval.json", "torchhub")[0]
    out = tmp_path / "grammar.jsonl"
    line = {"question_id": task.question_id, "text": f"<<<api_call>>>: {VALID_CALL}", "hub": "torchhub",
            "retriever": "bm25", "mode": "select", "model": "gemma3-270m", "k": 5, "api_call": VALID_CALL,
            "verdict": "valid", "hits": [[VALID_CALL, 7.5]], "timings": {"total": 0.5}}  # fmt: skip
    out.write_text(json.dumps(line) + "\n", encoding="utf-8")
    argv = ["eval", "run", "--hub", "torchhub", "--from", str(apibench), "--retriever", "bm25", "--mode",
            "select", "-k", "5", "--limit", "1", "--out", str(out), "--json"]  # fmt: skip
    assert main([*argv, "--select-by", "likelihood"]) == 2
    err = capsys.readouterr().err
    assert "holds answers of another run" in err and "'select_by': 'grammar'" in err
    assert main([*argv, "--select-by", "grammar"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["mode"], summary["select_by"], summary["answered"], summary["skipped"]) == (
        "select", "grammar", 0, 1)  # fmt: skip
    assert out.read_text(encoding="utf-8") == json.dumps(line) + "\n"  # nothing lost or rewritten
