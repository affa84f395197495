"""The hand-written questions (index/questions/*.toml, doc expansion) are not copied from any task
they are measured on: no question shares a run of 8 or more consecutive words with an APIBench eval
question (all three hubs), a CoNaLa intent (../shared/conala, bench/conala.py's eval) or a task of our own
dev and test sets (the hub dev split, the everyday tasks, the library tasks, the APIZoo dev tasks); none is
a CoNaLa intent word for word (most intents are shorter than 8 words). An 8-word run is the copy rule of
tests/apibench/test_hub_dev_tasks.py;
the overlap check itself is the usual n-gram decontamination test (GPT-3, Brown et al. 2020, section 4,
used 13-grams). It lives in tests/apibench/ because it reads the eval sets of ../shared."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import pytest
import tomllib

from gorilla_tui.pool.expansion import read_hand_questions
from gorilla_tui.pool.questions import task_text
from gorilla_tui.pool.sources import HAND_QUESTIONS_DIR, load_manifests
from gorilla_tui.resources import data_dir
from tests.conftest import REPO, SHARED
from tests.shared_data import locate, require
from tests.word_runs import word_runs, words

RUN = 8
EVAL_FILES = ("torchhub_eval.json", "tensorflow_eval.json", "huggingface_eval.json")
#: CoNaLa's dev split with its oracle docs (DocPrompting's release), the eval of bench/conala.py.
CONALA = SHARED / "conala" / "cmd_dev.oracle_man.full.json"
#: Our own task files and the key of their task text.
OWN_TASKS = {
    "bench/data/hub_dev_tasks.toml": "task",
    "bench/everyday_tasks.toml": "task",
    "tests/data/stdlib_tasks.toml": "query",
    "bench/data/apizoo_dev_tasks.toml": "query",
    "bench/data/literal_tasks.toml": "task",
}


#: Every run of RUN consecutive words of a text (tests/word_runs.py).
_runs = partial(word_runs, n=RUN)


def _questions() -> list[tuple[str, str]]:
    """(file name, question) of every hand-written questions file of the package, named by a manifest or
    kept for a trial (bench/hand_questions.py --try)."""
    folder = Path(str(data_dir("index"))) / HAND_QUESTIONS_DIR
    names = {p.name for p in folder.glob("*.toml")}
    assert {q for m in load_manifests() for q in m.hand_questions} <= names
    out = []
    for name in sorted(names):
        pairs, _ = read_hand_questions((folder / name).read_text(encoding="utf-8"), name)
        out += [(name, q) for _, q in pairs]
    return out


def _conala() -> list[str]:
    """The intents of CoNaLa's dev split (the test is skipped with how to get it when the data is missing:
    tests/shared_data.py require)."""
    path = require("conala") / CONALA.name
    return [e["nl"] for e in json.loads(path.read_text(encoding="utf-8"))]


@pytest.fixture(scope="module")
def task_runs(apibench: Path) -> dict[tuple[str, ...], str]:
    """Every 8-word run of the eval questions and of our own tasks -> where it comes from."""
    runs: dict[tuple[str, ...], str] = {}
    for name in EVAL_FILES:
        for line in (apibench / "eval" / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                for r in _runs(task_text(json.loads(line)["code"])):
                    runs.setdefault(r, name)
    conala = locate("conala")[0]  # compared with when present; its own test says how to get it
    intents = json.loads((conala / CONALA.name).read_text(encoding="utf-8")) if conala is not None else []
    for entry in (e["nl"] for e in intents):
        for r in _runs(entry):
            runs.setdefault(r, CONALA.name)
    for rel, key in OWN_TASKS.items():
        for task in tomllib.loads((REPO / rel).read_text(encoding="utf-8"))["task"]:
            for r in _runs(task[key]):
                runs.setdefault(r, rel)
    assert len(runs) > 10_000, "the eval questions were read"
    return runs


def test_no_question_copies_an_eval_or_dev_task(task_runs: dict[tuple[str, ...], str]) -> None:
    questions = _questions()
    assert len(questions) > 500
    copied = [
        f"{name}: {q!r} shares {' '.join(r)!r} with {task_runs[r]}"
        for name, q in questions
        for r in _runs(q)
        if r in task_runs
    ]
    assert not copied, "\n".join(copied[:20])


def test_the_check_finds_a_copied_eval_question(
    apibench: Path, task_runs: dict[tuple[str, ...], str]
) -> None:
    line = (apibench / "eval" / "tensorflow_eval.json").read_text(encoding="utf-8").splitlines()[0]
    copied = task_text(json.loads(line)["code"])
    assert _runs("please " + copied) & set(task_runs)


def test_no_question_is_a_conala_intent() -> None:
    intents = {" ".join(words(nl)) for nl in _conala()}
    assert len(intents) > 150
    same = [f"{name}: {q!r}" for name, q in _questions() if " ".join(words(q)) in intents]
    assert not same, "\n".join(same)
