"""Issue 18 on the default index (the three APIBench hubs, APIZoo, python-env): an unchanged refresh keeps
the live index, an edited APIZoo file rebuilds APIZoo alone, and what is published answers the APIBench
eval tasks exactly as a forced rebuild of every source does."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gorilla_tui.build.previous import UNCHANGED
from gorilla_tui.build.refresh import refresh
from gorilla_tui.pool.questions import task_text
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.store import versions as index_store

#: Eval tasks per hub searched in both indexes (the first lines of each APIBench eval set).
TASKS_PER_HUB = 15


def _tasks(apibench: Path) -> list[str]:
    tasks = []
    for name in ("torchhub_eval.json", "tensorflow_eval.json", "huggingface_eval.json"):
        with open(apibench / "eval" / name, encoding="utf-8") as fh:
            tasks += [task_text(json.loads(fh.readline())["code"]) for _ in range(TASKS_PER_HUB)]
    return tasks + ["read a csv file into rows", "send a GET request to the gmail API", "parse a json string"]


def _answers(index: ApiIndex, tasks: list[str]) -> list[list[tuple[str, float]]]:
    return [[(h.doc.id, round(h.score, 5)) for h in index.search(t, k=5)] for t in tasks]


@pytest.mark.slow  # a refresh of whole pools or a lock wait: seconds
def test_unchanged_and_one_changed_source_on_the_default_index(
    apibench: Path, apizoo: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "mirror"
    shutil.copytree(apizoo, copy / "apizoo")
    mirrors = [apibench / "api", copy]
    first = refresh(mirrors=mirrors)
    names = [r["name"] for r in first.sources]
    assert set(names) == {"torchhub", "tensorflowhub", "huggingface", "apizoo", "python-env"}
    assert len(first.index.docs) > 10_000

    again = refresh(mirrors=mirrors)
    assert again.unchanged and again.path == first.path == index_store.current_version()
    assert [(r["name"], r["message"]) for r in again.sources] == [(n, UNCHANGED) for n in names]

    edited = next(p for p in sorted((copy / "apizoo").glob("*.json")) if _strict_list(p))
    entries = json.loads(edited.read_text(encoding="utf-8"))
    entries[0]["functionality"] = "Counts quokkazebra stripes (a word no other doc has)."
    edited.write_text(json.dumps(entries), encoding="utf-8")
    changed = refresh(mirrors=mirrors)
    assert not changed.unchanged and changed.path != first.path
    assert {r["name"] for r in changed.sources if r["message"] != UNCHANGED} == {"apizoo"}
    assert changed.index.search("count quokkazebra stripes", k=1)[0].doc.source == "apizoo"

    tasks = _tasks(apibench)
    published = _answers(ApiIndex.load(), tasks)
    forced = refresh(mirrors=mirrors, force=True)
    assert all(r["message"] != UNCHANGED for r in forced.sources)
    assert [d.to_dict() for d in forced.index.docs] == [d.to_dict() for d in changed.index.docs]
    assert _answers(ApiIndex.load(), tasks) == published
    assert forced.index.meta["diagnostics"] == changed.index.meta["diagnostics"]


def _strict_list(path: Path) -> bool:
    """An APIZoo file that is strict JSON (some are not: pool/lenient_json.py reads those)."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return False
    return isinstance(value, list) and bool(value) and isinstance(value[0], dict)
