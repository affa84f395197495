"""Messages that worker threads post to the UI (Textual's post_message is thread-safe)."""

from __future__ import annotations

from typing import Any

from textual.message import Message


class PipelineUpdate(Message):
    """One event of pipeline.ask (types HitsEvent/TokenEvent/VerdictEvent/DoneEvent/ErrorEvent) of
    run `run_id`; events of older runs are ignored by the screen."""

    def __init__(self, run_id: int, event: Any) -> None:
        super().__init__()
        self.run_id = run_id
        self.event = event


class AskEnded(Message):
    """Run `run_id` is over: outcome "done" (with its Proposal), "cancelled" or "error" (message and hint).
    task_id: the task's row in the history (None if it could not be saved); no_index: the error is that
    there is no usable index (session.IndexUnusable), which a successful rebuild (F8) makes stale."""

    def __init__(
        self, run_id: int, outcome: str, message: str = "", hint: str = "", *, proposal: Any = None,
        task_id: int | None = None, no_index: bool = False,
    ) -> None:  # fmt: skip
        super().__init__()
        self.no_index = no_index
        self.run_id = run_id
        self.outcome = outcome
        self.message = message
        self.hint = hint
        self.proposal = proposal
        self.task_id = task_id


class ScreenReady(Message):
    """The main screen is mounted: the app fills the status bar and starts loading index and model."""


class StateChanged(Message):
    """The status bar's state field: kind is ready / loading / busy / error / missing (its colour); text is
    shown as is; without text (an answer just ended) the app words it from `proposal`."""

    def __init__(self, kind: str, text: str = "", proposal: Any = None) -> None:
        super().__init__()
        self.kind = kind
        self.text = text
        self.proposal = proposal


class Notice(Message):
    """A message for the person (a toast); the app remembers the last one (GorillaApp.last_notice)."""

    def __init__(self, text: str, severity: str = "information") -> None:
        super().__init__()
        self.text = text
        self.severity = severity


class CopyRequested(Message):
    """Copy `text` (what: "call" or "code") to the clipboard; the app owns the clipboard channels."""

    def __init__(self, text: str, what: str) -> None:
        super().__init__()
        self.text = text
        self.what = what


class LoadState(Message):
    """what: "model" or "index"; state: "loading", "ready", "missing", "built" (first launch: detail is
    its summary) or "error"; detail and hint: text for the person."""

    def __init__(self, what: str, state: str, detail: str = "", hint: str = "") -> None:
        super().__init__()
        self.what = what
        self.state = state
        self.detail = detail
        self.hint = hint


class IndexBuilt(Message):
    """The build dialog (IndexSetupScreen) was closed while its build ran, and the build has now ended: the
    app takes `index` (a retrieve.index.ApiIndex) as the dismiss callback would have, and shows `summary`
    with `severity` ("information", or "warning" when some sources failed)."""

    def __init__(self, index: Any, summary: str, severity: str = "information") -> None:
        super().__init__()
        self.index = index
        self.summary = summary
        self.severity = severity
