"""APIBench tier of tests/cli/test_lint_cli.py: `gorilla-tui check PATH...` as a linter (issue 20): the
acceptance corpus, output formats, reason-code filters, inline ignores, stdin, exit codes, the prebuilt lookup
(same verdicts as the full Validator) and the pre-commit hook run by the real `pre-commit` tool on a scratch
repository."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import sarif_pydantic
import yaml

from gorilla_tui.build.previous import STATE_FILE
from gorilla_tui.check import lookup
from gorilla_tui.check.validator import Validator
from gorilla_tui.cli import main
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.store import integrity
from gorilla_tui.store import versions as store
from tests.cli.test_lint_cli import REPO

#: the full default index (APIBench hubs, APIZoo, python-env), built once for the module
pytestmark = pytest.mark.slow

CORPUS = REPO / "tests" / "data" / "lint_corpus"


@pytest.fixture(scope="module")
def index_home(apibench, apizoo, tmp_path_factory) -> Path:
    """One default index (APIBench hubs, APIZoo, python-env) built by a real refresh, shared by the module
    (from the data root holding apibench/ and apizoo/)."""
    home = tmp_path_factory.mktemp("lint-home")
    # BM25 alone (GORILLA_TUI_DENSE=0, as tests/conftest.py gorilla_home sets it for every test; this module
    # fixture runs before it): the checks read the lookup, and embedding ~3,000 docs outran the timeout
    env = dict(os.environ, GORILLA_TUI_HOME=str(home), GORILLA_TUI_DENSE="0", PYTHONPATH=str(REPO))
    run = subprocess.run(
        [sys.executable, "-m", "gorilla_tui", "index", "--refresh", "--from", str(apibench.parent)],
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    return home


@pytest.fixture
def home(index_home, monkeypatch) -> Path:
    monkeypatch.setenv("GORILLA_TUI_HOME", str(index_home))
    return index_home


def _expected() -> list[str]:
    lines = (CORPUS / "expected.txt").read_text().splitlines()
    return [line for line in lines if line and not line.startswith("#")]


def test_corpus_findings_match_expected(home, capsys, monkeypatch):
    monkeypatch.chdir(CORPUS)
    code = main(["check", "."])
    out = capsys.readouterr()
    assert code == 2  # broken_syntax.py was not analysed (exit 2 whatever else was found), the rest was
    got = [
        re.match(r"(.*?:\d+:\d+:) (\S+) (.*)", line.removeprefix("./")).groups()
        for line in out.out.splitlines()
    ]
    assert [f"{where} {reason}" for where, reason, _ in got] == _expected()
    assert "8 findings in 6 file(s)" in out.err
    assert "error: ./broken_syntax.py: not Python 3 syntax (3:23: " in out.err  # not analysed: an error
    text = dict((where, msg) for where, _, msg in got)
    assert (
        "(did you mean torch.hub.load(repo_or_dir='pytorch/vision', model='deeplabv3_resnet50'"
        in (text["segment_and_report.py:8:7:"])
    )
    assert "(did you mean os.path.join" in text["segment_and_report.py:11:7:"]
    assert main(["check", ".", "--format", "json"]) == 2
    found = json.loads(capsys.readouterr().out)
    assert [(f["cell"], f["line"], f["col"]) for f in found if f["path"].endswith(".ipynb")] == [(3, 2, 9)]


def test_clean_file_exits_0_and_text_format(home, capsys):
    assert main(["check", str(CORPUS / "classify_images.py")]) == 0
    assert capsys.readouterr().out == ""
    assert main(["check", str(CORPUS / "tidy_logs.py")]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [line for line in out if line.startswith(str(CORPUS / "tidy_logs.py") + ":13:1: ")]
    assert "os.remove_all" in out[0] and "(did you mean os.remove" in out[0]


def test_select_ignore_and_glob(home, capsys):
    pattern = str(CORPUS / "*.py")
    assert main(["check", pattern, "--select", "wrong_args", "--format", "json"]) == 2
    found = json.loads(capsys.readouterr().out)
    notes = [f for f in found if f["reason"] == "not_checked"]  # broken_syntax.py: not Python 3 syntax
    assert [n["path"].rsplit("/", 1)[-1] for n in notes] == ["broken_syntax.py"]
    found = [f for f in found if f not in notes]
    assert {f["reason"] for f in found} == {"wrong_args:unknown_model"} and len(found) == 4
    assert main(["check", pattern, "--ignore", "wrong_args,hallucination", "--format", "json"]) == 2
    assert json.loads(capsys.readouterr().out) == notes
    assert main(["check", pattern, "--select", "wrong_args:nope"]) == 2
    assert "unknown reason code" in capsys.readouterr().err


def test_sarif_shape(home, capsys):
    assert main(["check", str(CORPUS / "segment_and_report.py"), "--format", "sarif"]) == 1
    log = json.loads(capsys.readouterr().out)
    model = sarif_pydantic.Sarif.model_validate(log)  # the SARIF 2.1.0 object model (types, enums)
    assert [r.level.value for r in model.runs[0].results] == ["warning", "warning", "error"]
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    run = log["runs"][0]
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert rules == ["hallucination:unknown_callee", "wrong_args:unknown_model"]
    lines = sorted(r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in run["results"])
    assert lines == [8, 10, 11]
    assert all(rules[r["ruleIndex"]] == r["ruleId"] for r in run["results"])


def test_stdin_as_file_and_snippet_form(home, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("import os\nos.path.joinn('a')\n"))
    assert main(["check", "-", "--format", "json", "--stdin-filename", "x.py"]) == 1
    (f,) = json.loads(capsys.readouterr().out)
    assert (f["path"], f["line"], f["col"], f["reason"]) == ("x.py", 2, 1, "hallucination:unknown_callee")
    assert main(["check", "torch.hub.load('pytorch/vision', 'resnet50', pretrained=True)", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "valid"


@pytest.mark.parametrize(
    ("code", "exit_code", "verdict", "named"),
    [
        ("','.join(parts)", 0, "valid", "str.join"),
        ("b'abc'.decode()", 0, "valid", "bytes.decode"),
        ("{}.get('k')", 0, "valid", "dict.get"),
        ("','.jion(parts)", 1, "hallucination", "str().join"),  # did you mean
        ("import subprocess\nsubprocess.check_output()", 1, "wrong_args", "subprocess.check_output(args)"),
        ("import subprocess\nsubprocess.run()", 1, "wrong_args", "subprocess.run(args)"),
        ("import subprocess\nsubprocess.run(['ls'])", 0, "valid", "subprocess.run"),
    ],
)
def test_literal_receivers_and_a_missing_command_on_the_default_index(home, capsys, code, exit_code, verdict,
                                                                      named):  # fmt: skip
    """A literal's method is its type's (check/builtin_types.py) and a *args signature requires what the stub
    requires (break-it round 22, R22-4), through the lookup of the default index."""
    assert main(["check", "--code", code, "--json"]) == exit_code
    found = json.loads(capsys.readouterr().out)
    assert found["verdict"] == verdict
    assert named in [(found["matched"] or {}).get("api_name"), *found["suggestions"]]


def test_missing_path_is_usage_error(home, capsys):
    assert main(["check", str(CORPUS / "nope.py")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_lookup_gives_the_full_validator_verdicts(apibench_responses, home, apibench):
    """The lookup Validator (only the entries the code reaches) equals the one over the whole index on the
    Gorilla-7B responses of the three hubs and on the corpus files."""
    full = Validator(ApiIndex.load().pool())
    folder = store.current_version()
    assert (folder / "lookup").is_dir()
    texts = [p.read_text() for p in sorted(CORPUS.glob("*.py"))]
    for hub in ("torchhub", "tensorflowhub", "huggingface"):
        path = next((apibench_responses / hub).glob("*_FT_0_shot.jsonl"))
        texts += [json.loads(line)["text"] for line in path.read_text().splitlines()[:60]]
    for text in texts:
        fast = lookup.load_validator(folder, text)
        assert len(fast.entries) < len(full.entries) / 5
        assert fast.check(text).to_dict() == full.check(text).to_dict()
        assert fast.check_code(text).to_dict() == full.check_code(text).to_dict()


def test_pre_commit_hook_on_scratch_repo(home, tmp_path):
    """The hook of .pre-commit-hooks.yaml, run by pre-commit (repo: local, language system so that no
    network is needed) on a scratch repository: fails on a staged wrong call, passes once it is fixed."""
    tool = shutil.which("pre-commit") or str(Path(sys.executable).with_name("pre-commit"))
    (hook,) = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "gorilla-check"
    hook = dict(
        hook,
        language="system",
        entry=hook["entry"].replace("gorilla-tui", f"{sys.executable} -m gorilla_tui", 1),
    )
    repo = tmp_path / "scratch"
    repo.mkdir()
    env = dict(os.environ, PYTHONPATH=str(REPO), PRE_COMMIT_HOME=str(tmp_path / "pc-cache"))
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    (repo / ".pre-commit-config.yaml").write_text(
        yaml.safe_dump({"repos": [{"repo": "local", "hooks": [hook]}]})
    )
    (repo / "train.py").write_text("import torch\nm = torch.hub.load('pytorch/vision', 'resnet5000')\n")
    subprocess.run([*git, "add", "."], cwd=repo, check=True)
    bad = subprocess.run(
        [tool, "run", "--all-files"], cwd=repo, env=env, capture_output=True, text=True, timeout=300
    )
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "train.py:2:5: wrong_args:unknown_model" in bad.stdout
    (repo / "train.py").write_text("import torch\nm = torch.hub.load('pytorch/vision', 'resnet50')\n")
    subprocess.run([*git, "add", "."], cwd=repo, check=True)
    good = subprocess.run(
        [tool, "run", "--all-files"], cwd=repo, env=env, capture_output=True, text=True, timeout=300
    )
    assert good.returncode == 0, good.stdout + good.stderr


def test_index_without_lookup_is_checked_the_slow_way(index_home, tmp_path, monkeypatch, capsys):
    """An index without a lookup (refreshed by an older version, or by refresh() without extra_files as
    the TUI's first run does) gives the same findings, and the first check writes the lookup."""
    monkeypatch.setenv("GORILLA_TUI_HOME", str(index_home))
    target = str(CORPUS / "segment_and_report.py")
    assert main(["check", target, "--json"]) == 1  # --json on files means the linter's JSON
    fast = json.loads(capsys.readouterr().out)
    shutil.copytree(index_home / "data", tmp_path / "data", ignore=shutil.ignore_patterns("lookup"))
    monkeypatch.setenv("GORILLA_TUI_HOME", str(tmp_path))
    folder = store.current_version()
    assert not (folder / "lookup").exists()
    # a lookup/ the record lists and the folder lacks is damage (issue 42 round 4, test_index_record_cli);
    # an index built without one has a record that lists none: written here as such a build writes it
    assert main(["check", target, "--json"]) == 2 and "lookup/" in capsys.readouterr().err
    state = json.loads((folder / STATE_FILE).read_text(encoding="utf-8"))
    state["files"] = {k: v for k, v in state["files"].items() if not k.startswith("lookup/")}
    state[integrity.SELF_KEY] = integrity.state_digest(state)
    (folder / STATE_FILE).write_text(json.dumps(state), encoding="utf-8")
    (folder / integrity.VERIFIED).unlink(missing_ok=True)
    assert main(["check", target, "--json"]) == 1
    assert json.loads(capsys.readouterr().out) == fast and len(fast) == 3
    assert (store.current_version() / "lookup").is_dir()  # written by that check for the next run
    assert main(["check", target, "--json"]) == 1
    assert json.loads(capsys.readouterr().out) == fast
