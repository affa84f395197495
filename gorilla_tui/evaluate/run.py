"""`eval run`: answer a hub's APIBench eval tasks via pipeline.ask into a resumable Gorilla response file."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gorilla_tui.errors import GorillaError, UsageError
from gorilla_tui.evaluate.score import (
    HUB_FILES,
    Score,
    hub_name,
    json_object,
    read_jsonl,
    resolve_file,
    score_file,
)
from gorilla_tui.model.remote import EndpointDownError
from gorilla_tui.pipeline import AskCancelled
from gorilla_tui.pool.doc import ApiDoc, doc_from_record, load_jsonl
from gorilla_tui.pool.questions import task_text
from gorilla_tui.pool.sources import FetchContext, load_manifests, with_questions
from gorilla_tui.retrieve.index import ApiIndex

if TYPE_CHECKING:
    from gorilla_tui.pipeline import Pipeline
    from gorilla_tui.types import Proposal

SAMPLES = ("head", "spread")
#: A run stops (GorillaError) after this many tasks in a row failed: the backend itself is broken.
MAX_FAILURES_IN_A_ROW = 5
#: Most tasks answered at once (eval run --concurrency): more only queues at the server.
MAX_CONCURRENCY = 64


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


# ---------------------------------------------------------------------------------------------------------
# the response file


@dataclass(frozen=True)
class RunInfo:
    """What identifies a run (k: hits per task; select_by: Pipeline.select_by(mode), "" in generate mode);
    every line of a response file carries it, and a resume must match it."""

    hub: str
    retriever: str
    mode: str
    model: str
    k: int
    select_by: str = ""

    def key(self) -> dict[str, Any]:
        return {
            "hub": self.hub,
            "retriever": self.retriever,
            "mode": self.mode,
            "select_by": self.select_by,
            "model": self.model,
            "k": self.k,
        }


def gorilla_text(api_call: str, domain: str = "", provider: str = "") -> str:
    """The answer in Gorilla's output format, the one its released scripts (and `eval score`) cut the call
    out of: ``<<<domain>>>: D, <<<api_call>>>: CALL, <<<api_provider>>>: P`` (arXiv 2305.15334, Fig. 3)."""
    return f"<<<domain>>>: {domain}, <<<api_call>>>: {api_call}, <<<api_provider>>>: {provider}"


def response_line(task: EvalTask, proposal: Proposal, info: RunInfo) -> dict[str, Any]:
    """One response line: Gorilla's keys (question_id, text, model_id) plus ours: run identity, api_call,
    verdict kind, hits as [call, score] pairs (the doc's call: its repaired call when flagged; best first;
    [call, score, lm_score] when select mode scored them by likelihood) and timings in seconds (ms
    precision)."""
    call = proposal.api_call.strip()
    doc = next((h.doc for h in proposal.hits if h.doc.call.strip() == call), None) if call else None
    doc = doc or proposal.verdict.matched
    return {
        "question_id": task.question_id,
        "text": gorilla_text(call, doc.domain if doc else "", doc.framework if doc else ""),
        "model_id": f"gorilla-tui:{info.model}:{info.retriever}:{info.mode}",
        **info.key(),
        "api_call": call,
        "verdict": proposal.verdict.kind,
        "hits": [
            [h.doc.call.strip(), round(h.score, 3)] + ([] if h.lm_score is None else [round(h.lm_score, 3)])
            for h in proposal.hits
        ],
        "timings": {k: round(v, 3) for k, v in proposal.timings.items()},
    }


def failed_line(task: EvalTask, info: RunInfo, message: str) -> dict[str, Any]:
    """A line for a task the pipeline failed on (counted as an error; re-answered by the next resume)."""
    return {"question_id": task.question_id, "text": "", "model_id": f"gorilla-tui:{info.model}",
            **info.key(), "api_call": "", "verdict": "no_call", "hits": [], "timings": {},
            "error": message}  # fmt: skip


def _rewrite(path: Path, lines: list[dict[str, Any]]) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(x, ensure_ascii=False) + "\n" for x in lines)
        if path.exists():
            shutil.copymode(path, tmp)  # keep the file's permissions (mkstemp makes it 0600)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _response_start(text: str) -> bool:
    """True when `text` starts like a response line this module writes (a partial one after a kill)."""
    return text.lstrip().startswith('{"question_id"')


def load_answers(path: str | Path, info: RunInfo) -> tuple[dict[int, dict[str, Any]], list[str]]:
    """The answered lines of an existing response file, by question_id, and notes on what was repaired.

    Repairs (the file is rewritten atomically, keeping every good line): a partial last line (a kill in
    mid-write), lines that are not JSON objects with an int question_id, repeated question_ids (the first
    is kept) and failed lines (they are answered again). Raises UsageError when a line belongs to another
    run (hub, retriever, mode, select_by, model or k differ; a select-mode line without select_by was written
    before it existed and counts as "grammar") or the file cannot be read. A missing file: ({}, [])."""
    path = Path(path)
    if not path.exists():
        return {}, []
    if path.is_dir():  # --out is where answers are written: say so, not "cannot read"
        raise UsageError(f"cannot write responses to {path}: it is a directory; give --out a file name")
    try:
        raw = path.read_bytes().decode("utf-8", "replace")
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}") from None
    notes: list[str] = []
    body, _, tail = raw.rpartition("\n")
    if tail.strip():
        notes.append("dropped a partial last line (the previous run was killed while writing it)")
    kept: dict[int, dict[str, Any]] = {}
    bad = failed = repeated = 0
    for number, text in enumerate(body.split("\n") if body else [], start=1):
        if not text.strip():
            continue
        line = json_object(text)
        if line is None or not isinstance(line.get("question_id"), int):
            bad += 1
            continue
        theirs = {k: line.get(k) for k in info.key()}
        if "select_by" not in line:  # written before select_by existed: select mode was the grammar then
            theirs["select_by"] = "grammar" if line.get("mode") == "select" else ""
        if theirs != info.key():
            raise UsageError(
                f"{path} holds answers of another run (line {number}: {theirs}, this run: {info.key()})",
                hint="give a different --out file, or delete this one to start over",
            )
        if line.get("error"):
            failed += 1
        elif line["question_id"] in kept:
            repeated += 1
        else:
            kept[line["question_id"]] = line
    foreign = not kept and not failed and not repeated and (bad or tail.strip())
    if foreign and not (tail.strip() and _response_start(tail)):
        raise UsageError(
            f"{path} is not a responses file: none of its lines is an answer ({{question_id, text, ...}})",
            hint="give --out a new file name; nothing was changed",
        )
    for count, what in ((bad, "unreadable"), (failed, "failed (answered again)"), (repeated, "repeated")):
        if count:
            notes.append(f"dropped {count} {what} line(s)")
    if notes:
        _rewrite(path, list(kept.values()))
    return kept, notes


@dataclass
class RunStats:
    """What one answer_tasks call did: tasks answered now, already answered before (skipped), failed
    (pipeline error, written as an error line), whether it stopped early (stop event or cancel), the wall
    time of answering in seconds and how many tasks were in flight at most (concurrency)."""

    answered: int = 0
    skipped: int = 0
    failed: int = 0
    stopped: bool = False
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    concurrency: int = 1

    @property
    def tasks_per_s(self) -> float:
        """Throughput: lines written now (answered + failed) per second of wall time; 0.0 before any."""
        done = self.answered + self.failed
        return done / self.seconds if self.seconds > 0 and done else 0.0


def answer_tasks(
    pipeline: Pipeline,
    tasks: Sequence[EvalTask],
    out: str | Path,
    info: RunInfo,
    *,
    stop: threading.Event | None = None,
    cancel: threading.Event | None = None,
    on_answer: Callable[[dict[str, Any]], None] | None = None,
    concurrency: int = 1,
    workers: Callable[[], Pipeline] | None = None,
) -> RunStats:
    """Answer every task of `tasks` not yet in `out`, appending one flushed line per answer, in task order.

    stop: checked before each task (Ctrl+C once: finish the tasks in hand, then stop); cancel: passed to
    pipeline.ask (Ctrl+C twice: the tasks in hand are dropped, not written). on_answer(line) after each line.
    concurrency: tasks in flight at once (1..MAX_CONCURRENCY); above 1 each worker thread asks through its
    own Pipeline from `workers()` (services.build_pipeline sharing `pipeline`'s index, backend and
    validator; required then), so only the backend must be thread-safe (RemoteBackend is; a local model
    answers one task at a time).
    Answers that arrive early wait until every earlier task is written, so the file keeps the task order
    and an interrupted run leaves a prefix of the tasks: a resume answers no task twice.
    Raises UsageError (load_answers, a bad concurrency), remote.EndpointDownError as soon as the endpoint
    cannot be reached, GorillaError after MAX_FAILURES_IN_A_ROW failures in a row (in task order)."""
    if not 1 <= concurrency <= MAX_CONCURRENCY:
        raise UsageError(f"--concurrency must be in 1..{MAX_CONCURRENCY}, not {concurrency}")
    if concurrency > 1 and workers is None:
        raise UsageError("answering concurrently needs a pipeline per worker (workers)")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done, notes = load_answers(out, info)
    stats = RunStats(notes=notes, concurrency=concurrency)
    todo = [t for t in tasks if t.question_id not in done]
    stats.skipped = len(tasks) - len(todo)
    started = time.perf_counter()
    try:
        if concurrency > 1:
            _answer_concurrently(pipeline, todo, out, info, stats, stop=stop, cancel=cancel,
                                 on_answer=on_answer, workers=workers)  # fmt: skip
            return stats
        _answer_in_turn(pipeline, todo, out, info, stats, stop=stop, cancel=cancel, on_answer=on_answer)
        return stats
    finally:
        stats.seconds = time.perf_counter() - started


def _answer_in_turn(
    pipeline: Pipeline, todo: Sequence[EvalTask], out: Path, info: RunInfo, stats: RunStats, *,
    stop: threading.Event | None, cancel: threading.Event | None,
    on_answer: Callable[[dict[str, Any]], None] | None,
) -> None:  # fmt: skip
    """answer_tasks with one task at a time, in the calling thread."""
    in_a_row = 0
    with out.open("a", encoding="utf-8") as fh:
        for task in todo:
            if (stop is not None and stop.is_set()) or (cancel is not None and cancel.is_set()):
                stats.stopped = True
                break
            try:
                proposal = pipeline.ask(task.task, cancel=cancel, oracle_doc=task.doc, mode=info.mode)
                line = response_line(task, proposal, info)
                in_a_row = 0
                stats.answered += 1
            except AskCancelled:
                stats.stopped = True
                break
            except EndpointDownError:
                raise
            except GorillaError as e:
                line = failed_line(task, info, str(e) or type(e).__name__)
                in_a_row += 1
                stats.failed += 1
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
            fh.flush()
            if on_answer:
                on_answer(line)
            if in_a_row >= MAX_FAILURES_IN_A_ROW:
                raise GorillaError(f"{in_a_row} tasks failed in a row, the last with: {line['error']}",
                                   hint=f"answers so far are kept in {out}; rerun to resume")  # fmt: skip


def _answer_concurrently(
    pipeline: Pipeline, todo: Sequence[EvalTask], out: Path, info: RunInfo, stats: RunStats, *,
    stop: threading.Event | None, cancel: threading.Event | None,
    on_answer: Callable[[dict[str, Any]], None] | None, workers: Callable[[], Pipeline],
) -> None:  # fmt: skip
    """answer_tasks with up to stats.concurrency tasks in flight on a thread pool; the calling thread
    submits, collects and writes (in task order), and polls `cancel` every 0.2 s to pass it on."""
    local = threading.local()
    halt = threading.Event()  # set on the user's cancel or a fatal error: in-flight asks stop

    def answer(task: EvalTask) -> dict[str, Any]:
        if getattr(local, "pipeline", None) is None:
            local.pipeline = workers()
        try:
            proposal = local.pipeline.ask(task.task, cancel=halt, oracle_doc=task.doc, mode=info.mode)
        except (AskCancelled, EndpointDownError):
            raise
        except GorillaError as e:
            return failed_line(task, info, str(e) or type(e).__name__)
        return response_line(task, proposal, info)

    results: dict[int, dict[str, Any]] = {}  # position in todo -> line, until it can be written
    pending: dict[Future[dict[str, Any]], int] = {}
    submitted = written = in_a_row = 0
    fatal: BaseException | None = None
    with ThreadPoolExecutor(stats.concurrency, thread_name_prefix="eval") as pool, \
            out.open("a", encoding="utf-8") as fh:  # fmt: skip
        try:
            while True:
                if cancel is not None and cancel.is_set():
                    halt.set()
                stopping = halt.is_set() or (stop is not None and stop.is_set())
                while not stopping and submitted < len(todo) and len(pending) < stats.concurrency:
                    pending[pool.submit(answer, todo[submitted])] = submitted
                    submitted += 1
                if not pending:
                    break
                finished, _ = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                for future in finished:
                    position = pending.pop(future)
                    try:
                        results[position] = future.result()
                    except AskCancelled:
                        halt.set()
                    except EndpointDownError as e:
                        fatal = fatal or e
                        halt.set()
                while written in results and not halt.is_set():
                    line = results.pop(written)
                    written += 1
                    fh.write(json.dumps(line, ensure_ascii=False) + "\n")
                    fh.flush()
                    if line.get("error"):
                        stats.failed += 1
                        in_a_row += 1
                    else:
                        stats.answered += 1
                        in_a_row = 0
                    if on_answer:
                        on_answer(line)
                    if in_a_row >= MAX_FAILURES_IN_A_ROW:
                        halt.set()
                        fatal = GorillaError(
                            f"{in_a_row} tasks failed in a row, the last with: {line['error']}",
                            hint=f"answers so far are kept in {out}; rerun to resume",
                        )
        finally:  # also on KeyboardInterrupt: the tasks in flight stop before the pool is shut down
            halt.set()
    if fatal is not None:
        raise fatal
    stats.stopped = written < len(todo)


# ---------------------------------------------------------------------------------------------------------
# the report


def percentile(values: Sequence[float], q: float) -> float:
    """q-th percentile (0..100) by nearest rank; 0.0 for no values."""
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, max(0, -(-len(s) * q // 100) - 1))]


def _squeeze(call: str) -> str:
    return "".join(call.split())


@dataclass
class Summary:
    """The end-of-run report over every line of the response file.

    gorilla, strict: evaluate.Score of each metric; n: lines; latency_p50/p95: seconds per task
    (timings.total); in_hits: tasks whose ground-truth api_call (whitespace ignored) is among the hits
    (api@k); picked: tasks whose answer is exactly the ground-truth api_call; picked_in_hits: of the
    in_hits tasks, how many the model picked (the select-mode choice quality); failed: error lines."""

    gorilla: Score
    strict: Score
    n: int
    latency_p50: float
    latency_p95: float
    in_hits: int
    picked: int
    picked_in_hits: int
    failed: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "gorilla": self.gorilla.to_dict(),
            "strict": self.strict.to_dict(),
            "latency_p50": round(self.latency_p50, 3),
            "latency_p95": round(self.latency_p95, 3),
            "api_at_k": round(self.in_hits / self.n, 6) if self.n else 0.0,
            "picked": round(self.picked / self.n, 6) if self.n else 0.0,
            "picked_when_in_hits": round(self.picked_in_hits / self.in_hits, 6) if self.in_hits else 0.0,
            "failed": self.failed,
        }


def summarise(
    out: str | Path, hub: str, tasks: Sequence[EvalTask], *, eval_path: Path, pool_path: Path
) -> Summary:
    """Score the lines of the response file that answer `tasks` with evaluate.score_file (both metrics; a
    file also holding other tasks is scored through a filtered temporary copy) and add latency and hit
    figures. Raises UsageError when no line answers any of the tasks."""
    truth = {t.question_id: _squeeze(t.api_call) for t in tasks}
    every = read_jsonl(out, "responses")
    lines = [x for x in every if x and x.get("question_id") in truth]
    if not lines:
        raise UsageError(f"{out} holds no answer to the selected tasks")
    if len(lines) != len(every):
        with tempfile.TemporaryDirectory(prefix="gorilla-tui-eval-") as tmp:
            part = Path(tmp) / "responses.jsonl"
            _rewrite(part, lines)
            return summarise(part, hub, tasks, eval_path=eval_path, pool_path=pool_path)
    in_hits = picked = both = 0
    for x in lines:
        gt = truth.get(x.get("question_id"), None)
        hit = gt is not None and any(_squeeze(str(h[0])) == gt for h in x.get("hits") or [] if h)
        ok = gt is not None and _squeeze(str(x.get("api_call", ""))) == gt
        in_hits, picked, both = in_hits + hit, picked + ok, both + (hit and ok)
    totals = [
        float(x["timings"]["total"]) for x in lines if (x.get("timings") or {}).get("total") is not None
    ]
    kw = {"eval_path": eval_path, "pool_path": pool_path}
    return Summary(
        gorilla=score_file(hub, out, metric="gorilla", **kw),
        strict=score_file(hub, out, metric="strict", **kw),
        n=len(lines),
        latency_p50=percentile(totals, 50),
        latency_p95=percentile(totals, 95),
        in_hits=in_hits,
        picked=picked,
        picked_in_hits=both,
        failed=sum(1 for x in lines if x.get("error")),
    )


# ---------------------------------------------------------------------------------------------------------
# setup


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
