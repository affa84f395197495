"""The everyday task set of bench/everyday.py: big enough, labelled against the real pools, split in two,
and never copied from the APIBench eval or training sets."""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

import pytest

from gorilla_tui.evaluate.run import load_tasks as load_eval_tasks
from gorilla_tui.pool.doc import ApiDoc, load_apizoo, load_jsonl
from gorilla_tui.pool.pyenv.source import load_python_env
from gorilla_tui.retrieve.query.literals import intent_text
from gorilla_tui.types import Hit, Proposal, Verdict
from tests.word_runs import words

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from everyday import HUBS, SOURCES, chosen_doc, is_right, load_tasks  # noqa: E402
from filling import fits, label_values, values_found  # noqa: E402

TASKS = load_tasks()
#: The everyday tasks with literal values of bench/literals.py (issue 37), in the same format.
LITERAL_TASKS = load_tasks(Path(__file__).resolve().parents[2] / "bench" / "data" / "literal_tasks.toml")


@pytest.fixture(scope="module")
def pools(apibench: Path, apizoo: Path) -> dict[str, list[ApiDoc]]:
    out = {h: load_jsonl(apibench / "api" / f"{h}_api.jsonl", h).docs for h in HUBS}
    out["apizoo"] = [d for f in sorted(apizoo.iterdir()) for d in load_apizoo(f, "apizoo").docs]
    out["python-env"] = load_python_env().docs
    return out


def test_task_set_is_big_enough_and_split_per_source() -> None:
    assert len(TASKS) >= 60
    assert len({t["id"] for t in TASKS}) == len(TASKS)
    per = Counter((t["source"], t["split"]) for t in TASKS)
    for s in SOURCES:
        assert per[(s, "dev")] >= 5 and per[(s, "test")] >= 5, s
    assert sum(t["source"] in HUBS for t in TASKS) >= 30


def test_literal_task_set_is_split_in_halves_and_holds_values() -> None:
    """bench/data/literal_tasks.toml: ids unique across both sets, a test half of at least 35 tasks and a dev
    half at least as big (round s6 added dev tasks only), every task with a literal value: one
    retrieve/query/literals.py masks, or quoted text (which it keeps)."""
    assert len(LITERAL_TASKS) >= 40
    assert len({t["id"] for t in [*TASKS, *LITERAL_TASKS]}) == len(TASKS) + len(LITERAL_TASKS)
    per = Counter(t["split"] for t in LITERAL_TASKS)
    assert per["dev"] >= per["test"] >= 35
    for t in LITERAL_TASKS:
        quoted = re.search(r"[\"'].+[\"']", t["task"])
        # or a name the task writes as a plain word ("the ffmpeg program"): a value filling reads, searched
        words = t["task"].split()
        named = any(re.fullmatch(r"'\w+'", v) and v.strip("'") in words for v in t.get("values", []))
        assert intent_text(t["task"], frozenset()) != t["task"] or quoted or named, t["id"]


def test_literal_tasks_label_their_values_as_python_literals(pools: dict[str, list[ApiDoc]]) -> None:
    """bench/filling.py's labels: every literal task has `values`, each entry a Python literal; `order` only
    where two or more values can stand in an order; the hubs' and APIZoo's complete calls need none; and a
    standard-library task's values fit the parameters of one of its right docs (type and count)."""
    assert len(LITERAL_TASKS) >= 70
    for t in LITERAL_TASKS:
        assert isinstance(t.get("values"), list), t["id"]
        values = label_values(t)  # raises ValueError for an entry that is not a literal
        assert all(isinstance(v, str) for v in t["values"]) and len(values) == len(t["values"])
        assert isinstance(t.get("order", False), bool) and (not t.get("order") or len(values) >= 2), t["id"]
        if t["source"] != "python-env":
            assert values == [], t["id"]
            continue
        right = [d for d in pools[t["source"]] if is_right(t, d)]
        assert any(fits(t, d) for d in right), f"{t['id']}: no right doc has parameters for {t['values']}"
    with_values = [t for t in LITERAL_TASKS if t["values"]]
    assert len(with_values) >= 50
    assert Counter(t["split"] for t in with_values)["dev"] >= 25


def test_values_are_found_as_argument_literals_in_order() -> None:
    """bench/filling.py's scoring: a label value counts only as a literal argument of the call (never a
    name or text elsewhere), tuples equal lists, True is not 1, and `order` is the order in the call."""
    assert values_found([10], "time.sleep(10)") == (True, True)
    assert values_found([10], "time.sleep(seconds)") == (False, False)
    assert values_found([10.0], "time.sleep(10)") == (True, True)
    assert values_found([1], "f(True)") == (False, False)
    assert values_found(["src", "backup/src"], "shutil.copy('backup/src', 'src')") == (True, False)
    assert values_found(["out"], "zipfile.ZipFile(file).extractall(path='out')") == (True, True)
    assert values_found([("8.8.8.8", 53)], "socket.create_connection(['8.8.8.8', 53])") == (True, True)
    assert values_found(["a", "a"], "f('a')") == (False, False)  # each value its own argument
    assert values_found(["x"], "f(x)  # 'x'") == (False, False)  # a comment is no argument
    # a proposal of several calls, one per line (filling's further calls): every call's values count
    assert values_found(
        ["b.zip", "c.csv"], "ZipFile('b.zip').write('a')\nZipFile('b.zip').write('c.csv')"
    ) == (
        True,
        True,
    )


@pytest.mark.parametrize("task", [*TASKS, *LITERAL_TASKS], ids=[t["id"] for t in [*TASKS, *LITERAL_TASKS]])
def test_every_label_names_a_doc_of_its_pool(task: dict, pools: dict[str, list[ApiDoc]]) -> None:
    right = [d for d in pools[task["source"]] if is_right(task, d)]
    assert right, f"no doc of {task['source']} meets the label of {task['id']}"
    others = [d for s, docs in pools.items() if s != task["source"] for d in docs[:50]]
    assert not any(is_right(task, d) for d in others)  # a label never credits another source


def _words(text: str) -> set[str]:
    return set(words(text))


def test_no_task_is_copied_from_the_eval_or_training_sets(apibench: Path) -> None:
    files = {
        "torchhub": ["torchhub_eval.json", "torchhub_train.json"],
        "tensorflowhub": ["tensorflow_eval.json"],
        "huggingface": ["huggingface_eval.json"],
    }
    questions = [
        _words(t.task) for hub, names in files.items() for n in names
        for t in load_eval_tasks(apibench / "eval" / n, hub) if t.task
    ]  # fmt: skip
    assert len(questions) > 2000
    for t in [*TASKS, *LITERAL_TASKS]:
        mine = _words(t["task"])
        closest = max(len(mine & q) / len(mine | q) for q in questions)  # Jaccard over words
        assert closest < 0.5, (t["id"], closest)


def test_the_tasks_in_other_languages_each_translate_one_everyday_task() -> None:
    """bench/translated.py's set: every task names an everyday task (its labels and split), five languages,
    each with dev and test tasks, none in English, no everyday task translated twice into one language."""
    from translated import LANGS
    from translated import load_tasks as load_translated

    translated = load_translated()
    assert len(translated) >= 60
    by_id = {t["id"]: t for t in TASKS}
    assert len({t["id"] for t in translated}) == len(translated)
    for t in translated:
        base = by_id[t["id"].split(":", 1)[1]]
        assert (t["source"], t["split"]) == (base["source"], base["split"]) and t["task"] != base["task"]
    per = Counter((t["lang"], t["split"]) for t in translated)
    for lang in LANGS:
        assert per[(lang, "dev")] >= 5 and per[(lang, "test")] >= 2, lang


def test_a_filled_receiver_counts_as_the_doc_it_fills() -> None:
    """pw-weekday: the pipeline chose datetime.date.weekday (template `datetime.date(year).weekday()`) and
    filled its receiver, `datetime.date(1976, 7, 4).weekday()`; the bench counted no doc chosen."""
    docs = {d.api_name: d for d in load_python_env("stdlib").docs}
    names = ["os.path.getsize", "datetime.date.weekday"]
    hits = [Hit(doc=docs[n], score=1.0, rank=i) for i, n in enumerate(names, start=1)]
    valid = Verdict("valid")
    call = "datetime.date(1976, 7, 4).weekday()"
    filled = Proposal(task="t", api_call=call, code="", verdict=valid, hits=hits)
    assert chosen_doc(filled).api_name == "datetime.date.weekday"
    other = Proposal(task="t", api_call="datetime.time(10).weekday()", code="", verdict=valid, hits=hits)
    assert chosen_doc(other) is None
