"""The main screen: task input, hits, proposal, verdict and matched-API card; asks run in thread workers.

The screen reads the Session it is given and tells the app what happened by posting messages
(tui/messages.py: ScreenReady, StateChanged, Notice, CopyRequested); it never calls the app back."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static

from gorilla_tui.errors import GorillaError
from gorilla_tui.textsafe import safe_text
from gorilla_tui.tui.answer_text import NOTHING_FITS_CONCERN, chosen_hit, effective_call, verdict_concern
from gorilla_tui.tui.messages import (
    AskEnded,
    CopyRequested,
    Notice,
    PipelineUpdate,
    ScreenReady,
    StateChanged,
)
from gorilla_tui.tui.run import start_run
from gorilla_tui.tui.screens.confirm import ConfirmScreen
from gorilla_tui.tui.screens.doc import DocScreen
from gorilla_tui.tui.session import IndexUnusable, Session
from gorilla_tui.tui.widgets.api_card import ApiCard
from gorilla_tui.tui.widgets.hits import HitsPanel
from gorilla_tui.tui.widgets.proposal import ProposalPanel
from gorilla_tui.tui.widgets.status_bar import StatusBar
from gorilla_tui.tui.widgets.task_input import TaskInput
from gorilla_tui.tui.widgets.verdict import VerdictBadge
from gorilla_tui.types import (
    TRANSLATION_NOTE,
    DoneEvent,
    ErrorEvent,
    HitsEvent,
    Proposal,
    TokenEvent,
    VerdictEvent,
)

if TYPE_CHECKING:
    from textual.geometry import Size

#: Below this many columns the hits and matched-API panels are hidden (class -narrow, app.tcss): the
#: proposal and the verdict get the whole width. Below SHORT rows the title, footer and borders of the
#: verdict go (class -short), so the call and the verdict stay visible down to 40x12.
NARROW = 80
SHORT = 24


class MainScreen(Screen):
    """Layout and the ask cycle over `session` (settings, index, backend, pipeline, history). `proposal` is
    the proposal on show (None before the first answer); `running` tells whether an ask is in flight;
    `finished` counts asks that ended (done, error, cancelled)."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+y", "copy('call')", "Copy call", priority=True),
        # not in the footer (F1 lists them; the verdict panel names ctrl+n when there is a suggestion), so
        # that every key it shows (these, the app's but F8) and "^p palette" fit in it at 80 columns
        Binding("ctrl+g", "copy('code')", "Copy code", priority=True, show=False),
        Binding("ctrl+n", "accept_suggestion", "Accept did-you-mean", priority=True, show=False),
        Binding("f5", "run", "Run"),
    ]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.proposal: Proposal | None = None
        self.task_id: int | None = None
        self.running = False
        self.finished = 0
        self._run_id = 0
        self._cancel: threading.Event | None = None
        self._confirmed_copy: Proposal | None = None
        #: the proposal panel shows the last ask's "no usable index" error (see index_ready)
        self.index_error_shown = False

    def compose(self) -> ComposeResult:
        yield Static("gorilla-tui — a task in plain English → a checked API call", id="title")
        yield TaskInput(id="task")
        with Horizontal(id="body"):
            with Vertical(id="left"):
                yield HitsPanel(id="hits")
                yield ApiCard("", id="card")
            with Vertical(id="right"):
                yield ProposalPanel(id="proposal")
                yield VerdictBadge(id="verdict")
        yield StatusBar(id="status")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#hits").border_title = "Hits (Enter: full doc)"
        self.query_one("#card").border_title = "Matched API"
        self.query_one("#proposal").border_title = "Proposal"
        self.query_one("#verdict").border_title = "Verdict"
        self.query_one(TaskInput).focus()
        self.fit_layout(self.app.size)
        self.post_message(ScreenReady())

    def on_resize(self, event: events.Resize) -> None:
        self.fit_layout(event.size)

    def fit_layout(self, size: Size) -> None:
        """Set the -narrow / -short classes for a terminal of `size` (see NARROW, SHORT)."""
        self.set_class(size.width < NARROW, "-narrow")
        self.set_class(size.height < SHORT, "-short")

    # -- asking ---------------------------------------------------------------------------------------

    def on_task_input_asked(self, message: TaskInput.Asked) -> None:
        self.ask(message.task)

    def on_task_input_joined(self, message: TaskInput.Joined) -> None:
        self.post_message(Notice(message.notice))

    def on_task_input_cut(self, message: TaskInput.Cut) -> None:
        self.post_message(Notice(message.notice))

    def on_task_input_refused(self, message: TaskInput.Refused) -> None:
        self.post_message(Notice(message.notice))

    def ask(self, task: str) -> None:
        """Start answering `task`, cancelling the run in flight (if any)."""
        if self._cancel is not None:
            self._cancel.set()
        self._run_id += 1
        self._cancel = threading.Event()
        self.running = True
        self.proposal = None
        self.task_id = None
        self.index_error_shown = False
        task_input = self.query_one(TaskInput)
        task_input.value = task
        task_input.remember(task)
        self.query_one(HitsPanel).clear()
        self.query_one(ApiCard).clear()
        self.query_one(VerdictBadge).clear()
        self.query_one(ProposalPanel).start(task)
        if self.session.backend is None and self.session.backend_error is None:
            self.query_one(ProposalPanel).show_message(f"Asking: {task}\n(waiting for the model to load…)")
        self.post_message(StateChanged("busy", "answering…"))
        self._ask_worker(self._run_id, task, self._cancel)

    @work(thread=True, exclusive=True, group="ask", exit_on_error=False)
    def _ask_worker(self, run_id: int, task: str, cancel: threading.Event) -> None:
        session = self.session

        def end(outcome: str, message: str = "", hint: str = "", **outcome_of: object) -> None:
            """Post AskEnded; outcome_of: its proposal, or no_index for an error of no usable index."""
            self.post_message(AskEnded(run_id, outcome, message, hint, task_id=task_id, **outcome_of))

        def on_event(event: object) -> None:
            if not cancel.is_set():
                self.post_message(PipelineUpdate(run_id, event))

        task_id = session.history.add(task)
        try:
            try:
                backend = session.wait_backend(cancel)
            except GorillaError:  # no model: the search does not need one, so the hits are shown still
                if session.wait_index(cancel):
                    self._hits_without_model(task, on_event)
                raise
            if backend is None or not session.wait_index(cancel):
                return end("cancelled")
            proposal = session.pipeline().ask(task, on_event=on_event, cancel=cancel)
        except GorillaError as e:
            if cancel.is_set():
                return end("cancelled")
            return end("error", str(e), e.hint or "", no_index=isinstance(e, IndexUnusable))
        except Exception as e:  # a backend crash is shown in the panel; the app keeps running
            return end("error", f"{type(e).__name__}: {e}")
        if cancel.is_set():
            return end("cancelled")
        if not isinstance(proposal, Proposal):
            return end("error", "the pipeline returned no proposal")
        session.history.set_proposal(task_id, proposal.to_dict())
        end("done", proposal=proposal)

    def _hits_without_model(self, task: str, on_event: Callable[[object], None]) -> None:
        """The model could not be loaded: emit the task's hits (Session.search) as the pipeline would, so
        the hits panel fills while the proposal panel gives the model's error. A search that fails too
        (no index, a damaged one) shows no hits; the model's error is the one reported."""
        try:
            hits = self.session.search(task)
        except Exception:  # the ask reports the model's error; a search error must not replace it
            return
        if hits:
            on_event(HitsEvent(hits))

    def on_pipeline_update(self, message: PipelineUpdate) -> None:
        if message.run_id != self._run_id:
            return  # an older run, superseded or cancelled
        event = message.event
        if isinstance(event, HitsEvent):
            self.query_one(HitsPanel).set_hits(event.hits)
            for note in event.notes:  # "the task has no searchable words": its hits, if any, are dense ones
                kind = "information" if note.startswith(TRANSLATION_NOTE) else "warning"
                self.post_message(Notice(note, kind))
        elif isinstance(event, TokenEvent):
            self.query_one(ProposalPanel).add_token(event.text)
        elif isinstance(event, VerdictEvent):
            self.query_one(VerdictBadge).set_verdict(event.verdict)
        elif isinstance(event, DoneEvent):
            self.show_proposal(event.proposal)
        elif isinstance(event, ErrorEvent):
            self.query_one(ProposalPanel).show_error(event.message)

    def on_ask_ended(self, message: AskEnded) -> None:
        if message.run_id != self._run_id:
            return
        self.running = False
        self.finished += 1
        self.task_id = message.task_id
        self.index_error_shown = message.no_index
        if message.outcome == "error":
            self.query_one(ProposalPanel).show_error(message.message, message.hint)
            self.query_one(VerdictBadge).clear()
            self.post_message(StateChanged("error", "error (see the proposal panel)"))
        elif message.outcome == "cancelled":
            self.query_one(ProposalPanel).show_cancelled()
            self.post_message(StateChanged("ready", "cancelled"))
        else:
            if message.proposal is not None and message.proposal is not self.proposal:
                self.show_proposal(message.proposal)
            self.post_message(StateChanged("ready", proposal=self.proposal))

    def show_proposal(self, proposal: Proposal) -> None:
        """Show a finished proposal in every panel. In select mode the hits panel marks the chosen hit
        (answer_text.chosen_hit) and shows the likelihood scores, if any."""
        self.proposal = proposal
        hits = self.query_one(HitsPanel)
        changed = [h.doc.id for h in hits.hits] != [h.doc.id for h in proposal.hits]
        if proposal.hits and (changed or proposal.select_by):
            hits.set_hits(proposal.hits, chosen=chosen_hit(proposal))
        self.query_one(ProposalPanel).show_proposal(proposal)
        self.query_one(VerdictBadge).set_verdict(proposal.verdict)
        self.query_one(VerdictBadge).set_fit(proposal.fit)
        note = {
            "hallucination": "no pool entry matched: this API does not exist in the pool",
            "no_call": "the model gave no API call",
            "unparseable": "the output could not be parsed",
            "incomplete": "the call still needs values the task did not give",
        }.get(proposal.verdict.kind, "")
        self.query_one(ApiCard).show(proposal.verdict.matched, proposal.constraints, note=note)

    def index_ready(self, text: str) -> None:
        """A rebuild (F8) gave a usable index: the "no usable index" error the last ask left in the proposal
        panel is stale, so `text` replaces it and the state field is ready again. Nothing while an ask
        runs, when the panel shows something else (a proposal), or when the model could not be loaded (the
        app has put that error in the panel since)."""
        if not self.index_error_shown or self.running or self.session.backend_error is not None:
            return
        self.index_error_shown = False
        panel = self.query_one(ProposalPanel)
        panel.border_subtitle = ""
        panel.show_message(text)
        self.post_message(StateChanged("ready", "ready"))

    def cancel_run(self) -> None:
        """Set the cancel event of the answer in flight, if any (the app quits: its worker gives up)."""
        if self._cancel is not None:
            self._cancel.set()

    def action_cancel(self) -> None:
        """Escape: cancel the answer in flight (the model stops at its next token)."""
        if not self.running or self._cancel is None:
            return
        self._cancel.set()
        self.workers.cancel_group(self, "ask")
        self.running = False
        self.finished += 1
        self._run_id += 1  # late events of the cancelled run are ignored
        self.query_one(ProposalPanel).show_cancelled()
        self.post_message(StateChanged("ready", "cancelled"))

    # -- did-you-mean ---------------------------------------------------------------------------------

    def action_accept_suggestion(self) -> None:
        if not self.query_one(VerdictBadge).accept():
            self.notify("no did-you-mean suggestion to accept", severity="warning")

    def on_verdict_badge_suggestion_accepted(self, message: VerdictBadge.SuggestionAccepted) -> None:
        if self.proposal is None or self.running:
            return
        self.query_one(VerdictBadge).clear(f"checking {message.suggestion} …")
        self._revalidate(self._run_id, self.proposal, message.suggestion, self.task_id)

    class Revalidated(Message):
        """The did-you-mean check of `original` (shown after run `run_id`) is over: `proposal` is the
        re-validated one, or None with `error` when the check failed."""

        def __init__(
            self, run_id: int, original: Proposal, proposal: Proposal | None, error: str = ""
        ) -> None:
            super().__init__()
            self.run_id = run_id
            self.original = original
            self.proposal = proposal
            self.error = error

    @work(thread=True, exclusive=True, group="revalidate", exit_on_error=False)
    def _revalidate(self, run_id: int, proposal: Proposal, suggestion: str, task_id: int | None) -> None:
        """Re-validate in this thread worker; the outcome is posted (Revalidated), never put on the screen
        from here (a new ask may have started meanwhile; the screen may be gone)."""
        try:
            new = self.session.accept_suggestion(proposal, suggestion)
        except GorillaError as e:
            self.post_message(self.Revalidated(run_id, proposal, None, str(e)))
            return
        if task_id is not None:  # the accepted call belongs to that task, whatever is on show now
            self.session.history.set_proposal(task_id, new.to_dict())
        self.post_message(self.Revalidated(run_id, proposal, new))

    def on_main_screen_revalidated(self, message: Revalidated) -> None:
        """Show the re-validated proposal, unless another answer was asked for since the suggestion was
        accepted (it would replace that answer, or the one streaming): then only a notice."""
        if message.run_id != self._run_id or self.running or self.proposal is not message.original:
            self.post_message(Notice("the did-you-mean check ended after a new task was asked: not shown"))
            return
        if message.proposal is None:
            self.notify(safe_text(message.error), severity="error", markup=False)  # an error's text, as it is
            self.query_one(VerdictBadge).set_verdict(message.original.verdict)
            return
        self.show_proposal(message.proposal)
        self.query_one(ProposalPanel).border_subtitle = "did-you-mean accepted, re-validated"
        self.notify(f"accepted: verdict is now {message.proposal.verdict.kind}")

    # -- copy / run / docs ----------------------------------------------------------------------------

    def on_proposal_panel_copy_requested(self, message: ProposalPanel.CopyRequested) -> None:
        self.action_copy(message.what)

    def action_copy(self, what: str) -> None:
        """Copy the call or the whole code; asks once per proposal when its verdict is not valid."""
        proposal = self.proposal
        if proposal is None:
            self.notify("nothing to copy yet", severity="warning")
            return
        call = effective_call(proposal)
        text = call if what == "call" else (proposal.code or call)
        if not text:
            self.notify(f"this proposal has no {what}", severity="warning")
            return
        nothing = proposal.fit == "nothing"  # the nearest call, not a proposal (pipeline_fit.py)
        if (proposal.verdict.kind == "valid" and not nothing) or self._confirmed_copy is proposal:
            self.post_message(CopyRequested(text, what))
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._confirmed_copy = proposal
                self.post_message(CopyRequested(text, what))

        question = NOTHING_FITS_CONCERN if nothing else verdict_concern(proposal.verdict, "call")
        self.app.push_screen(ConfirmScreen(question, "Copy it anyway?", yes="Copy"), confirmed)

    def on_proposal_panel_run_requested(self, message: ProposalPanel.RunRequested) -> None:
        self.action_run()

    def action_run(self) -> None:
        """F5: run the code in the sandbox (after confirmation; see tui/run.py)."""
        start_run(self, self.proposal, self.task_id, self.session.history)

    def on_hits_panel_doc_selected(self, message: HitsPanel.DocSelected) -> None:
        hit = message.hit
        self.app.push_screen(DocScreen(hit.doc, score=hit.score, lm_score=hit.lm_score))
