"""The run screen: a proposal's code runs in the sandbox, its output streams into a log; s stops it."""

from __future__ import annotations

import threading
import time

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Log, Static

from gorilla_tui.errors import GorillaError
from gorilla_tui.sandbox.runner import SandboxRun
from gorilla_tui.textsafe import safe_text


class RunScreen(ModalScreen[None]):
    """Runs `code` once with sandbox.runner.SandboxRun in a thread worker. `on_finished(result)` is called
    (in the UI thread) with the RunResult, or None when the sandbox could not start. allow_unisolated:
    run even where the machine refuses namespaces (the person said yes to "network open, files writable").
    Every output line goes through textsafe.safe_text. Keys: s / Escape stop a running run; Escape / q
    close a finished one."""

    BINDINGS = [
        Binding("s", "stop", "Stop"),
        Binding("escape", "stop_or_close", "Stop / close"),
        Binding("q", "close", "Close"),
    ]

    def __init__(self, code: str, on_finished=None, *, allow_unisolated: bool = False) -> None:
        super().__init__(classes="modal")
        self.code = code
        self.allow_unisolated = allow_unisolated
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
        log = self.query_one(Log)
        pending: list[str] = []
        last_flush = [0.0]

        def flush() -> None:
            if pending:
                lines, pending[:] = list(pending), []
                self.app.call_from_thread(log.write_lines, lines)
            last_flush[0] = time.monotonic()

        def on_output(stream: str, line: str) -> None:
            # batched: one hop to the UI thread per 50 ms, so an output flood does not stall the sandbox
            pending.append({"stderr": "! ", "sandbox": "# "}.get(stream, "") + safe_text(line))
            if time.monotonic() - last_flush[0] > 0.05:
                flush()

        try:
            run = SandboxRun(
                self.code, on_output=on_output, cancel=self.cancel, allow_unisolated=self.allow_unisolated
            )
            result = run.run()
        except (OSError, GorillaError) as e:
            flush()
            self.app.call_from_thread(self._done, None, f"the sandbox could not start: {e}")
            return
        flush()
        self.app.call_from_thread(self._done, result, "")

    def _done(self, result, error: str) -> None:
        self.finished = True
        self.result = result
        state = self.query_one("#run-state", Static)
        if result is None:
            state.update(Text(safe_text(error), style="red"))
        else:
            how = "stopped" if result.stopped else f"exit status {result.exit_status}"
            if result.signal:
                how += f", signal {result.signal}"
            if result.limits_hit:
                how += f", limits hit: {', '.join(result.limits_hit)}"
            colour = "green" if result.ok else "red"
            notes = f"  (network {result.network}, files {result.files}; limits: {result.limits_scope})"
            state.update(Text.assemble((how, colour), f" in {result.duration_s:.1f} s{notes}"))
        if self.on_finished:
            self.on_finished(result)

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
