"""The run screen: a proposal's code runs in the sandbox, its output streams into a log; s stops it."""

from __future__ import annotations

import threading
import time
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Log, Static

from gorilla_tui.errors import GorillaError
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.sandbox.requirements import missing_package
from gorilla_tui.sandbox.runner import SandboxRun
from gorilla_tui.sandbox.undefined import undefined_names
from gorilla_tui.textsafe import safe_text


def run_report(result: Any, doc: ApiDoc | None = None, code: str = "") -> Text:
    """What the CLI `run` prints after a run (cli/sandbox_run.py report_run), for the run screen: the
    outcome (exit status or signal, time, limits hit, stopped, output cut), the isolation in force
    (RunResult.notes and where the limits apply, RunResult.limits_scope), and the missing package with its
    `pip install` line (sandbox.requirements.missing_package; never run), and for a NameError the names
    `code` reads but never defines: imports to add, values to fill in (sandbox.undefined.undefined_names).
    Sandbox text goes through textsafe.safe_text and is shown as plain text (no markup)."""
    ok = result.ok
    parts = [result.outcome(), f"{result.duration_s:.2f} s"]
    if result.limits_hit:
        parts.append("limits hit: " + ", ".join(result.limits_hit))
    if result.stopped:
        parts.append("stopped")
    text = Text("; ".join(parts), style="green" if ok else "red")
    if result.truncated:
        text.append(f"\noutput cut: {result.dropped_bytes} more bytes were dropped", style="yellow")
    for note in result.notes:
        text.append("\n" + safe_text(note), style="yellow" if "NOT" in note or "OPEN" in note else "dim")
    scope = getattr(result, "limits_scope", "")
    if scope:
        text.append(f"\nlimits apply: {safe_text(scope)}", style="dim")
    missing = missing_package(result, doc)
    if missing is not None:
        text.append(f"\nmissing package: {safe_text(missing.module)}", style="bold yellow")
        text.append("; to install it yourself: ")
        text.append(safe_text(missing.pip_line), style="bold")
        if not missing.from_doc:
            text.append(" (guessed from the module name)", style="dim")
    undefined = undefined_names(result, code, doc) if code else None
    if undefined is not None:
        text.append("\nNameError: ", style="bold yellow")
        text.append(safe_text(undefined.message()))
    return text


class RunScreen(ModalScreen[None]):
    """Runs `code` once with sandbox.runner.SandboxRun in a thread worker. `on_finished(result)` is called
    in that worker thread as soon as the run ends (before `finished` is set), with the RunResult, or None
    when the sandbox could not start; it must be thread-safe (tui/run.py records the run in the History,
    which opens a connection per call). allow_unisolated:
    run even where the machine refuses namespaces (the person said yes to "network open, files writable").
    `doc`: the matched ApiDoc, whose env_requirements make the `pip install` line of a missing package
    (run_report). Every output line goes through textsafe.safe_text. Keys: s / Escape stop a running run;
    Escape / q close a finished one."""

    BINDINGS = [
        Binding("s", "stop", "Stop"),
        Binding("escape", "stop_or_close", "Stop / close"),
        Binding("q", "close", "Close"),
    ]

    def __init__(
        self, code: str, on_finished=None, *, allow_unisolated: bool = False, doc: ApiDoc | None = None
    ) -> None:
        super().__init__(classes="modal")
        self.code = code
        self.allow_unisolated = allow_unisolated
        self.doc = doc
        self.on_finished = on_finished
        self.cancel = threading.Event()
        self.finished = False
        self.result = None

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as box:
            box.border_title = "Run (sandbox)"
            box.border_subtitle = "s stops · Escape stops, then closes"
            yield Static("starting…", id="run-state")
            yield Log(id="run-log", highlight=False, max_lines=5000)

    def on_mount(self) -> None:
        self._run()

    def on_unmount(self) -> None:
        self.cancel.set()  # the app is quitting (or the screen went away): the run goes with it

    @work(thread=True, exclusive=True, group="run", exit_on_error=False)
    def _run(self) -> None:
        """Run the code in this thread worker. The run is recorded (on_finished) here, as soon as it ends, so
        that quitting the app during a run (which stops it: on_unmount) still records it; the screen is
        updated through the UI thread, and not at all once it is gone."""
        app = self.app
        pending: list[str] = []
        last_flush = [0.0]

        def to_ui(callback, *args) -> None:
            try:
                app.call_from_thread(callback, *args)
            except RuntimeError:
                pass  # the app has exited (call_from_thread: "App is not running")

        def flush() -> None:
            if pending:
                lines, pending[:] = list(pending), []
                to_ui(self._write, lines)
            last_flush[0] = time.monotonic()

        def on_output(stream: str, line: str) -> None:
            # batched: one hop to the UI thread per 50 ms, so an output flood does not stall the sandbox
            pending.append({"stderr": "! ", "sandbox": "# "}.get(stream, "") + safe_text(line, newlines=True))
            if time.monotonic() - last_flush[0] > 0.05:
                flush()

        try:
            run = SandboxRun(  # a proposal: a final bare expression (`os.getcwd()`) shows its repr
                self.code,
                on_output=on_output,
                cancel=self.cancel,
                allow_unisolated=self.allow_unisolated,
                echo_last=True,
            )
            result = run.run()
        except (OSError, GorillaError) as e:
            flush()
            self._finish(None, f"the sandbox could not start: {e}", to_ui)
            return
        flush()
        self._finish(result, "", to_ui)

    def _finish(self, result, error: str, to_ui) -> None:
        """The run is over (in the worker thread): record it (on_finished), then show it (_done)."""
        self.result = result
        if self.on_finished:
            self.on_finished(result)
        to_ui(self._done, result, error)

    def _write(self, lines: list[str]) -> None:
        if self.is_attached:  # the screen may be gone (the app quit during the run)
            self.query_one(Log).write_lines(lines)

    def _done(self, result, error: str) -> None:
        self.finished = True
        self.result = result
        if not self.is_attached:
            return
        state = self.query_one("#run-state", Static)
        if result is None:
            state.update(Text(safe_text(error, newlines=True), style="red"))
        else:
            state.update(run_report(result, self.doc, self.code))

    def action_stop(self) -> None:
        if not self.finished:
            self.cancel.set()
            self.query_one("#run-state", Static).update("stopping…")

    def action_stop_or_close(self) -> None:
        if self.finished:
            self.dismiss(None)
        else:
            self.action_stop()

    def action_close(self) -> None:
        if self.finished:
            self.dismiss(None)
        else:
            self.notify("the run is still going: press s to stop it first", severity="warning")
