"""What a long refresh step is doing, on stderr (issue 40): rich's spinners and bar on a terminal, plain lines
when stderr is piped or redirected (`index --refresh ... 2>&1 | cat` was silent for minutes).

The core reports through callbacks and never prints: build.refresh's ProgressFn (a source starts and is
done, a stage of the whole refresh begins) and build.dense_vectors' EmbedProgressFn (texts embedded of those
that needed it). Piped, each becomes one line: a source read ("python-env: 8,841 docs in 6.2 s", announced
by "reading python-env ..." when it takes over READING_AFTER seconds), a stage
with its counts ("building the BM25 index: 10,963 docs"), the embedding's start, and its progress at most
every PLAIN_EVERY seconds with the rate and an estimate of the time left, so no stretch of a refresh is
silent for longer than a batch of the embedder takes.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from gorilla_tui.cli.console import PlainColumn
from gorilla_tui.textsafe import safe_text

#: Seconds between two plain progress lines of the embedding (a line is also printed when it is done).
PLAIN_EVERY = 4.0
#: Seconds a source may take to read before a plain "reading NAME ..." line says it is under way (a quick
#: source gets its one "NAME: N docs in S s" line; a --source refused at once, only its error line).
READING_AFTER = 2.0


def _say(err: Any, line: str) -> None:
    """One plain line on the console `err`, made safe for the terminal (a source's name or message)."""
    err.print(Text(safe_text(line)), soft_wrap=True, highlight=False)


def duration(seconds: float) -> str:
    """`seconds` for a person: "40 s", "3 min 5 s", "1 h 2 min"."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60} min"


def load_status(load: Any, unchanged: str) -> str:
    """A loaded source's state in a few words: "N docs", "N docs (unchanged)", or its status."""
    status = load.status if load.status != "ok" else f"{len(load.result.docs):,} docs"
    if load.status == "ok" and load.message == unchanged:
        status += f" ({unchanged})"
    return status


@contextlib.contextmanager
def source_progress(err: Any, quiet: bool, unchanged: str) -> Iterator[Callable[[str, str, Any], None]]:
    """A refresh's ProgressFn for the duration of the block: on a terminal one spinner line per source
    (its status when done: "N docs", "unchanged", or why not) and one per stage; piped, one plain line
    when a source is read (with its seconds; "reading NAME ..." before it when it takes over READING_AFTER
    seconds), one per stage. quiet (--json): nothing."""
    started: dict[str, tuple[float, threading.Timer]] = {}
    if quiet:
        yield lambda kind, name, load: None
        return
    if not err.is_terminal:

        def plain(kind: str, name: str, load: Any) -> None:
            if kind == "start":
                timer = threading.Timer(READING_AFTER, _say, (err, f"reading {name} ..."))
                timer.daemon = True
                started[name] = (time.perf_counter(), timer)
                timer.start()
            elif kind == "done" and load is not None:
                begun, timer = started.pop(name, (time.perf_counter(), None))
                if timer is not None:
                    timer.cancel()
                seconds = time.perf_counter() - begun
                _say(err, f"{load.name}: {load_status(load, unchanged)} in {seconds:.1f} s")
            elif kind == "stage":
                _say(err, f"{name} ...")

        try:
            yield plain
        finally:  # a refresh that failed (a --source that is missing): no "reading" line after its error
            for _, timer in started.values():
                timer.cancel()
        return
    columns = (SpinnerColumn(), PlainColumn(), PlainColumn("status"))  # a path or a message: never markup
    progress = Progress(*columns, TimeElapsedColumn(), console=err, transient=False)
    tasks: dict[str, Any] = {}
    stage: list[Any] = []

    def spinner(kind: str, name: str, load: Any) -> None:
        if kind == "start":
            tasks[name] = progress.add_task(name, total=1, status="fetching")
        elif kind == "stage":
            if stage:
                progress.update(stage.pop(), completed=1, status="done")
            stage.append(progress.add_task(name, total=1, status=""))
        elif load is not None and name in tasks:
            status = load_status(load, unchanged)
            progress.update(tasks.pop(name), completed=1, status=status, description=load.name)

    with progress:
        yield spinner
        if stage:
            progress.update(stage.pop(), completed=1, status="done")


@contextlib.contextmanager
def embed_progress(err: Any, quiet: bool) -> Iterator[Callable[[int, int], None]]:
    """An EmbedProgressFn for the duration of the block: on a terminal rich's bar with the time left
    (transient); piped, a line when the embedding starts ("embedding 1,897 texts (not in the packaged
    vectors or the vector cache) ..." or that none needs it), then for a batch done PLAIN_EVERY seconds or
    more after the last line "embedding 320/1,897 texts, 2.1 texts/s, about 12 min 30 s left", and one
    when it is done."""
    if quiet:
        yield lambda done, total: None
        return
    if not err.is_terminal:
        state = {"start": 0.0, "last": 0.0}

        def plain(done: int, total: int) -> None:
            now = time.perf_counter()
            if done == 0:
                state["start"] = state["last"] = now
                held = "in the packaged vectors or the vector cache"
                _say(
                    err,
                    f"embedding {total:,} texts (not {held}) ..."
                    if total
                    else f"embedding: every text is {held}",
                )
                return
            if now - state["last"] < PLAIN_EVERY and done < total:
                return
            state["last"] = now
            rate = done / max(now - state["start"], 1e-9)
            left = f", about {duration((total - done) / rate)} left" if done < total else ""
            _say(err, f"embedding {done:,}/{total:,} texts, {rate:.1f} texts/s{left}")

        yield plain
        return
    bar = Progress(
        TextColumn("embedding docs (BM25 already live)"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
    )
    task = bar.add_task("embed", total=None)
    with bar:
        yield lambda done, total: bar.update(task, completed=done, total=total)
