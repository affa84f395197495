"""No index yet: offer to build it from a local folder or the configured sources, with progress and a
per-source result."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Log, ProgressBar, Static

from gorilla_tui.errors import GorillaError
from gorilla_tui.model.choice import check_choice_settings
from gorilla_tui.pool.remedies import fix_lines
from gorilla_tui.pool.sources import load_manifests
from gorilla_tui.textsafe import safe_text
from gorilla_tui.tui.messages import IndexBuilt, Notice
from gorilla_tui.tui.widgets.text_input import SafeInput

#: Shown in the dialog: the hubs are remote, so offline only a local folder (or python-env) works.
OFFLINE_NOTE = (
    "Without network the hubs (Torch Hub, TensorFlow Hub, Hugging Face) cannot be fetched: give a local "
    "folder holding the APIBench api/ files (torchhub_api.jsonl, tensorflowhub_api.jsonl, "
    "huggingface_api.jsonl). Leave it empty to fetch every source from its own location."
)
#: Shown while another process (or CLI run) holds store.versions's refresh lock.
WAITING = "waiting for another index refresh to finish…"


def build_summary(rows: list[dict], docs: int, seconds: float) -> tuple[str, list[dict]]:
    """(one paragraph for the person, the rows that failed) from RefreshReport.sources rows ({name,
    status, loaded, message, ...}; status "ok" means fetched now, "kept" means docs kept from the
    previous index). Wording follows build.first_launch.first_launch_index; the fix for each source that
    failed is pool.remedies.fix_lines, as every other place says it."""
    ok = [r for r in rows if r.get("status") in ("ok", "kept")]
    failed = [r for r in rows if r.get("status") not in ("ok", "kept")]
    built = ", ".join(
        f"{r['name']} ({r.get('loaded', 0)} APIs{', kept' if r.get('status') == 'kept' else ''})" for r in ok
    )
    msg = f"Built the API pool: {built or 'nothing'}, {docs} APIs in {seconds:.1f} s."
    if failed:
        why = "; ".join(f"{r['name']}: {r.get('status')}" + (f" ({r['message']})" if r.get("message") else "")
                        for r in failed)  # fmt: skip
        fixes = fix_lines([r["name"] for r in failed])
        msg += f" Not built: {why}. " + " ".join(f"{line}." for line in fixes)
    return msg, failed


def configured_sources(user_paths: list[str]) -> list[tuple[str, str]]:
    """(name, title) of every source manifest shipped in index/, plus the user's extra paths."""
    try:
        rows = [(m.name, m.title) for m in load_manifests()]
    except (GorillaError, OSError) as e:
        rows = [("?", f"the source manifests cannot be read: {e}")]
    return rows + [(p, "your file (settings: sources)") for p in user_paths]


class IndexSetupScreen(ModalScreen[object]):
    """Builds the index with build.refresh.refresh in a thread worker; dismisses with the new ApiIndex, or
    None when closed without one. The folder input has the focus (Enter builds from it, or from the
    configured sources when empty). When every source was built the dialog closes with a notice; when
    some failed it stays open with the per-source result (see build_summary) until closed. A refresh
    held by another process is announced (WAITING) while waiting for its lock; the error of a failed
    build is shown. Closed during a build, the dialog is dismissed with None and the build keeps going:
    its index then reaches the app in an IndexBuilt message (tui/messages.py), its error in a Notice.
    mirrors: config.toml's `mirrors` (Settings.mirror_folders), read when the folder is left empty, as
    `index --refresh` without --from and the first launch read them (F8 fetched from the hub instead, and
    offline every hub was "unreachable": break-it pass 10)."""

    BINDINGS = [Binding("escape", "close", "Close"), Binding("ctrl+b", "build", "Build")]

    def __init__(self, user_paths: list[str], reason: str = "", mirrors: list[str] | None = None) -> None:
        super().__init__(classes="modal")
        self.user_paths = list(user_paths)
        self.mirrors = list(mirrors or [])
        self.reason = reason
        self.sources = configured_sources(self.user_paths)
        self.building = False
        #: the index built here (None until a build ends) and the per-source result paragraph
        self.built: object = None
        self.summary = ""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog") as box:
            box.border_title = "Build the API index"
            box.border_subtitle = "Enter/ctrl+b builds · Escape closes"
            # the reason, the sources' titles and the user's paths: shown as they are, never as markup
            yield Static(
                Text(safe_text(self.reason or "No API index has been built yet.", newlines=True)),
                id="index-reason",
            )
            yield Static(OFFLINE_NOTE, id="index-offline")
            sources = "Sources:\n" + "\n".join(
                safe_text(f"  • {name}: {title}") for name, title in self.sources
            )
            yield Static(Text(sources), id="index-sources")
            yield Label("Local folder with the source files (like `index --refresh --from DIR`):")
            empty = (
                f"empty: config.toml's mirrors ({', '.join(self.mirrors)})"
                if self.mirrors
                else "empty: fetch each source (needs network)"
            )
            yield SafeInput(placeholder=safe_text(f"e.g. /path/to/apibench/api — {empty}"), id="index-from")
            yield ProgressBar(total=max(1, len(self.sources)), show_eta=False, id="index-progress")
            yield Log(id="index-log", highlight=False)
            with Horizontal(id="buttons"):
                yield Button("Build index", id="build", variant="primary")
                yield Button("Close", id="close")

    def on_mount(self) -> None:
        # the folder first: a typed path must not be dropped, and Enter builds from it (or, when empty,
        # from the configured sources)
        self.query_one("#index-from", Input).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_build() if event.button.id == "build" else self.action_close()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_build()

    def action_build(self) -> None:
        if self.building:
            return
        self.building = True
        self.query_one("#build", Button).disabled = True
        self.query_one(ProgressBar).update(progress=0)
        folder = self.query_one("#index-from", Input).value.strip()
        self._build(folder)

    def action_close(self) -> None:
        if self.building:
            self.notify("the index is being built; it keeps going if you close this", severity="warning")
        self.dismiss(self.built)

    @work(thread=True, exclusive=True, group="index", exit_on_error=False)
    def _build(self, folder: str) -> None:
        """Run the refresh in this thread worker. Every change to the dialog goes to the UI thread through
        _to_ui, and is dropped there once the dialog is closed: closing it (Escape) during a build removes
        its widgets, and the build keeps going (the index it makes goes to the app, _built)."""
        from gorilla_tui.build.refresh import refresh  # deferred: numpy, scipy (~0.3 s) after first paint

        app = self.app  # the worker's context; kept for the end of a build that outlives the dialog

        def on_event(kind: str, name: str, load) -> None:
            if kind == "start":
                self._to_ui(app, self._log_line, f"fetching {name} …")
                return
            if kind != "done" or load is None:  # "stage": a step of the build (build.refresh ProgressFn)
                self._to_ui(app, self._log_line, f"{name} …")
                return
            line = f"{name}: {load.status}, {len(load.result.docs)} docs"
            if load.message:
                line += f" ({load.message})"
            self._to_ui(app, self._log_line, line, True)

        if self._lock_held():
            self._to_ui(app, self._waiting)
        try:
            report = refresh(
                mirrors=[folder] if folder else (self.mirrors or None),
                user_paths=self.user_paths,
                on_event=on_event,
                check_manifest=check_choice_settings,  # the model's manifest keys (build.refresh)
            )
        except GorillaError as e:
            self._to_ui(app, self._failed, str(e), e.hint or "")
            return
        except Exception as e:  # never let a build crash the app
            self._to_ui(app, self._failed, f"{type(e).__name__}: {e}", "")
            return
        summary, failed = build_summary(report.sources, len(report.index.docs), report.seconds)
        self._to_ui(app, self._built, report, summary, failed)

    @staticmethod
    def _to_ui(app, callback, *args) -> None:
        """Run callback(*args) in the UI thread (App.call_from_thread) and wait for it; nothing once the app
        has stopped (call_from_thread raises RuntimeError then), so that the build is not cut short."""
        try:
            app.call_from_thread(callback, *args)
        except RuntimeError:
            pass  # the app has exited: no one to tell

    def _log_line(self, line: str, advance: bool = False) -> None:
        """A line of the build's progress in the log (and one more source done when advance); nothing once
        the dialog is closed."""
        if not self.is_attached:
            return
        self.query_one(Log).write_line(safe_text(line))  # paths and messages of sources
        if advance:
            self.query_one(ProgressBar).advance(1)

    @staticmethod
    def _lock_held() -> bool:
        """True when another refresh holds the refresh lock now (a non-blocking probe of
        store.versions.refresh_lock; refresh() itself then waits for it). A file in place of the index
        folder holds no lock: the probe leaves it to refresh(), which moves it aside and says so."""
        from gorilla_tui.store import versions as index_store  # deferred: numpy, scipy (~0.3 s)

        if index_store.not_a_folder() is not None:
            return False
        try:
            with index_store.refresh_lock(timeout=0):
                return False
        except GorillaError:
            return True

    def _waiting(self) -> None:
        if not self.is_attached:
            return
        self.query_one(Log).write_line(WAITING)
        self.query_one("#index-reason", Static).update(Text(WAITING, style="yellow"))

    def _failed(self, message: str, hint: str) -> None:
        self.building = False
        if not self.is_attached:  # closed during the build: the error goes to the app's notices
            self.app.post_message(Notice(f"the index could not be built: {message}", "error"))
            return
        self.query_one("#build", Button).disabled = False
        self.query_one("#index-from", Input).focus()
        self.query_one(Log).write_line(
            safe_text(f"error: {message}") + (f"\nhint: {safe_text(hint)}" if hint else "")
        )
        self.query_one("#index-reason", Static).update(
            Text.assemble(("The index could not be built:", "red"), " " + safe_text(message))
        )

    def _built(self, report, summary: str, failed: list[dict]) -> None:
        self.building = False
        self.built = report.index
        self.summary = summary
        if not self.is_attached:  # closed during the build (dismissed with None): the app takes it now
            self.app.post_message(IndexBuilt(report.index, summary, "warning" if failed else "information"))
            return
        notice = getattr(self.app, "notice", self.notify)
        if not failed:
            notice(summary)
            self.dismiss(report.index)
            return
        # some sources failed: say which, and stay open (Close / Escape hands the new index to the app)
        self.query_one(Log).write_line(safe_text(summary))
        self.query_one("#index-reason", Static).update(Text(safe_text(summary), style="yellow"))
        self.query_one("#build", Button).disabled = False
        self.query_one("#close", Button).focus()
        notice(summary, severity="warning", timeout=20)
