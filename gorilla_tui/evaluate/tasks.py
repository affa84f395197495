"""The eval tasks of `eval run`: a hub's APIBench eval file read as EvalTasks (question, ground-truth call
and doc), a sample of them, and where the hub's eval set and API pool are, with the index to answer from."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gorilla_tui.errors import GorillaError, UsageError
from gorilla_tui.evaluate.score import HUB_FILES, hub_name, read_jsonl, resolve_file
from gorilla_tui.pool.doc import ApiDoc, doc_from_record, load_jsonl
from gorilla_tui.pool.questions import task_text
from gorilla_tui.pool.sources import FetchContext, load_manifests, with_questions
from gorilla_tui.retrieve.index import ApiIndex

#: How `eval run --sample` picks tasks (select_tasks).
SAMPLES = ("head", "spread")


@dataclass(frozen=True)
class EvalTask:
    """One eval question. question_id: 1-based line of the eval file (Gorilla's response key); task: the
    instruction text ("" for an unreadable line); domain, api_call: the ground truth (api_data); doc: the
    ground-truth ApiDoc (the oracle retriever's single hit), None when the line has no usable api_data."""

    question_id: int
    task: str
    domain: str
    api_call: str
    doc: ApiDoc | None


def load_tasks(path: str | Path, hub: str) -> list[EvalTask]:
    """The eval file (JSON Lines) -> EvalTasks in line order. Raises UsageError for an unreadable file."""
    tasks = []
    for qid, row in enumerate(read_jsonl(path, "eval"), start=1):
        row = row or {}
        data = row.get("api_data") if isinstance(row.get("api_data"), dict) else {}
        try:
            doc: ApiDoc | None = doc_from_record(data, hub, qid)
        except ValueError:
            doc = None
        call = str(data.get("api_call") or row.get("api_call") or "")
        tasks.append(
            EvalTask(qid, task_text(str(row.get("code") or "")), str(data.get("domain", "")), call, doc)
        )
    return tasks


def select_tasks(tasks: Sequence[EvalTask], limit: int | None, sample: str = "head") -> list[EvalTask]:
    """At most `limit` tasks: the first ones ("head") or evenly spaced over the file ("spread": task
    floor(i * n / limit) for i < limit, so doubling the limit keeps the earlier picks). None: all of them."""
    if sample not in SAMPLES:
        raise UsageError(f"sample must be one of {', '.join(SAMPLES)}, not {sample!r}")
    if limit is not None and limit < 1:
        raise UsageError(f"--limit must be at least 1, not {limit}")
    if limit is None or limit >= len(tasks):
        return list(tasks)
    if sample == "head":
        return list(tasks[:limit])
    return [tasks[i * len(tasks) // limit] for i in range(limit)]


@dataclass(frozen=True)
class HubData:
    """Where a hub's eval set and API pool files are (resolved as `eval score` does)."""

    hub: str
    eval_path: Path
    pool_path: Path


def hub_data(hub: str, *, from_dir: str | Path | None = None, eval_path: str | Path | None = None,
             pool_path: str | Path | None = None) -> HubData:  # fmt: skip
    """Resolve a hub's files: explicit paths first, else evaluate.resolve_file (a --from mirror or the
    Hugging Face dataset). Raises UsageError (unknown hub) / GorillaError (file not found)."""
    hub = hub_name(hub)
    api_file, eval_file = HUB_FILES[hub]
    return HubData(hub, Path(eval_path) if eval_path else resolve_file(eval_file, from_dir),
                   Path(pool_path) if pool_path else resolve_file(api_file, from_dir))  # fmt: skip


def hub_index(data: HubData, *, live: bool = True) -> tuple[Any, str]:
    """The index to retrieve from and validate against: the live index when it holds the hub (live=True),
    else an in-memory BM25 index of the hub's pool file (~0.05-0.4 s), its docs expanded with the hub's
    training questions when they are next to the pool file (sources.with_questions, as `index --refresh
    --from` does). Returns (index, where it came from)."""
    if live:
        try:
            index = ApiIndex.load()
            if data.hub in index.sources:
                return index, f"live index ({data.hub} pool)"
        except GorillaError:
            pass
    loaded = load_jsonl(data.pool_path, data.hub)
    if not loaded.docs:
        raise UsageError(f"no API docs could be read from {data.pool_path}")
    manifest = next((m for m in load_manifests() if m.name == data.hub), None)
    if manifest is not None:
        folder = Path(data.pool_path).parent
        with_questions(manifest, FetchContext(mirrors=[folder]), loaded, folder)
    questions = sum(len(d.questions) for d in loaded.docs)
    extra = f" + {questions} training questions" if questions else ""
    return ApiIndex.build(loaded.docs), f"built from {data.pool_path}{extra}"
