"""`eval run`: answer a hub's APIBench eval tasks via pipeline.ask into a resumable Gorilla response file.

The tasks and the hub's files are in evaluate/tasks.py, the response file in evaluate/responses.py, the
report in evaluate/summary.py; their public names are importable from here as before."""

from __future__ import annotations

import errno
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from gorilla_tui.errors import GorillaError, UsageError
from gorilla_tui.evaluate.responses import RunInfo, failed_line, gorilla_text, load_answers, response_line
from gorilla_tui.evaluate.score import hub_name
from gorilla_tui.evaluate.summary import Summary, percentile, summarise
from gorilla_tui.evaluate.tasks import (
    SAMPLES,
    EvalTask,
    HubData,
    hub_data,
    hub_index,
    load_tasks,
    select_tasks,
)
from gorilla_tui.jsontext import dumps as json_text
from gorilla_tui.model.remote import EndpointDownError
from gorilla_tui.pipeline import AskCancelled

if TYPE_CHECKING:
    from gorilla_tui.pipeline import Pipeline

__all__ = [
    "MAX_CONCURRENCY",
    "MAX_FAILURES_IN_A_ROW",
    "SAMPLES",
    "EvalTask",
    "HubData",
    "RunInfo",
    "RunStats",
    "Summary",
    "answer_in_turn",
    "answer_tasks",
    "failed_line",
    "gorilla_text",
    "hub_data",
    "hub_index",
    "hub_name",
    "load_answers",
    "load_tasks",
    "percentile",
    "response_line",
    "select_tasks",
    "summarise",
]

T = TypeVar("T")

#: A run stops (GorillaError) after this many tasks in a row failed: the backend itself is broken.
MAX_FAILURES_IN_A_ROW = 5
#: Most tasks answered at once (eval run --concurrency): more only queues at the server.
MAX_CONCURRENCY = 64


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
        answer_in_turn(
            todo, out, stats, stop=stop, cancel=cancel, on_answer=on_answer,
            answer=lambda t: response_line(
                t, pipeline.ask(t.task, cancel=cancel, oracle_doc=t.doc, mode=info.mode), info
            ),
            failed=lambda t, message: failed_line(t, info, message),
        )  # fmt: skip
        return stats
    finally:
        stats.seconds = time.perf_counter() - started


def answer_in_turn(
    items: Sequence[T], out: Path, stats: RunStats, *,
    answer: Callable[[T], dict[str, Any]], failed: Callable[[T, str], dict[str, Any]],
    stop: threading.Event | None = None, cancel: threading.Event | None = None,
    on_answer: Callable[[dict[str, Any]], None] | None = None,
) -> None:  # fmt: skip
    """Answer `items` one at a time in the calling thread, appending one flushed JSON line each to `out`
    (opened for appending): answer(item) gives the line (it asks the pipeline), failed(item, message) the
    line of an item answer() raised GorillaError for. Counts go to `stats` (answered, failed, stopped).

    stop: checked before each item (Ctrl+C once: finish the item in hand); cancel: set when the asks were
    told to drop the item in hand (AskCancelled ends the loop, nothing written). on_answer(line) after
    each line. Used by answer_tasks (`eval run`) and evaluate/bfcl.py (`eval bfcl`).

    Raises:
        remote.EndpointDownError: the endpoint cannot be reached (at once).
        GorillaError: MAX_FAILURES_IN_A_ROW items failed in a row.
    """
    in_a_row = 0
    with answers_file(out) as fh:
        for item in items:
            if (stop is not None and stop.is_set()) or (cancel is not None and cancel.is_set()):
                stats.stopped = True
                break
            try:
                line = answer(item)
                in_a_row = 0
                stats.answered += 1
            except AskCancelled:
                stats.stopped = True
                break
            except EndpointDownError:
                raise
            except GorillaError as e:
                message = str(e) or type(e).__name__
                line = failed(item, message)
                in_a_row += 1
                stats.failed += 1
            _append(fh, out, line)
            if on_answer:
                on_answer(line)
            if in_a_row >= MAX_FAILURES_IN_A_ROW:
                raise GorillaError(f"{in_a_row} tasks failed in a row, the last with: {message}",
                                   hint=f"answers so far are kept in {out}; rerun to resume")  # fmt: skip


def write_error(out: Path, error: OSError) -> GorillaError:
    """The one line for an answers file `out` that cannot be written (`error`): "disk full" for ENOSPC and
    EDQUOT, else the OS's words; the hint says the lines written before are kept and a rerun resumes (a
    cut last line is repaired then). A full disk was "internal error: OSError [Errno 28]" in `eval run` and
    `eval bfcl` (break-it round 7)."""
    full = error.errno in (errno.ENOSPC, errno.EDQUOT)
    why = "disk full" if full else (error.strerror or str(error))
    return GorillaError(
        f"cannot write {out}: {why}",
        hint=f"the answers written before are kept in {out}; {'free some space, then ' if full else ''}"
        "rerun to resume",
    )


@contextmanager
def answers_file(out: Path) -> Iterator[TextIO]:
    """`out` opened to append answer lines; an OSError while it is opened or closed is write_error (one
    line, exit 2). Closing after a failed write flushes again and fails again: that second error is dropped
    (the first is said)."""
    try:
        fh = out.open("a", encoding="utf-8")
    except OSError as e:
        raise write_error(out, e) from None
    failed = False
    try:
        yield fh
    except BaseException:
        failed = True
        raise
    finally:
        try:
            fh.close()
        except OSError as e:
            if not failed:
                raise write_error(out, e) from None


def _append(fh: TextIO, out: Path, line: dict[str, Any]) -> None:
    """Write one answer line to `out` (open as `fh`) and flush it. Raises write_error's GorillaError."""
    try:
        fh.write(json_text(line) + "\n")
        fh.flush()
    except OSError as e:
        raise write_error(out, e) from None


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
            answers_file(out) as fh:  # fmt: skip
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
                    _append(fh, out, line)
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
