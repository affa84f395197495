"""No index yet: offer to build it from the configured sources (or a local folder), with progress."""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Log, ProgressBar, Static

from gorilla_tui.errors import GorillaError


def configured_sources(user_paths: list[str]) -> list[tuple[str, str]]:
    """(name, title) of every source manifest shipped in index/, plus the user's extra paths."""
    try:
        from gorilla_tui.core.sources import load_manifests

        rows = [(m.name, m.title) for m in load_manifests()]
    except (GorillaError, OSError) as e:
        rows = [("?", f"the source manifests cannot be read: {e}")]
    return rows + [(p, "your file (settings: sources)") for p in user_paths]


class IndexSetupScreen(ModalScreen[object]):
    """Builds the index with core.refresh.refresh in a thread worker; dismisses with the new ApiIndex, or
    None when closed without one. Unreachable sources are listed; the error of a failed build is shown."""

    BINDINGS = [Binding("escape", "close", "Close"), Binding("ctrl+b", "build", "Build")]

    def __init__(self, user_paths: list[str], reason: str = "") -> None:
        super().__init__(classes="modal")
        self.user_paths = list(user_paths)
        self.reason = reason
        self.sources = configured_sources(self.user_paths)
        self.building = False

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog") as box:
            box.border_title = "Build the API index"
            box.border_subtitle = "Enter/ctrl+b builds · Escape closes"
            yield Static(self.reason or "No API index has been built yet.", id="index-reason")
            yield Static(
                "Sources:\n" + "\n".join(f"  • {name}: {title}" for name, title in self.sources),
                id="index-sources",
            )
            yield Label(
                "Optional: a local folder holding the source files (like `index --refresh --from DIR`)"
            )
            yield Input(placeholder="leave empty to fetch from each source's own location", id="index-from")
            yield ProgressBar(total=max(1, len(self.sources)), show_eta=False, id="index-progress")
            yield Log(id="index-log", highlight=False)
            with Horizontal(id="buttons"):
                yield Button("Build index", id="build", variant="primary")
                yield Button("Close", id="close")

    def on_mount(self) -> None:
        self.query_one("#build", Button).focus()

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
        self.dismiss(None)

    @work(thread=True, exclusive=True, group="index", exit_on_error=False)
    def _build(self, folder: str) -> None:
        from gorilla_tui.core.refresh import refresh

        log = self.query_one(Log)

        def on_event(kind: str, name: str, load) -> None:
            if kind == "start":
                self.app.call_from_thread(log.write_line, f"fetching {name} …")
                return
            line = f"{name}: {load.status}, {len(load.result.docs)} docs"
            if load.message:
                line += f" ({load.message})"
            self.app.call_from_thread(log.write_line, line)
            self.app.call_from_thread(self.query_one(ProgressBar).advance, 1)

        try:
            report = refresh(
                mirrors=[folder] if folder else None, user_paths=self.user_paths, on_event=on_event
            )
        except GorillaError as e:
            self.app.call_from_thread(self._failed, str(e), e.hint or "")
            return
        except Exception as e:  # never let a build crash the app
            self.app.call_from_thread(self._failed, f"{type(e).__name__}: {e}", "")
            return
        self.app.call_from_thread(self._built, report)

    def _failed(self, message: str, hint: str) -> None:
        self.building = False
        self.query_one("#build", Button).disabled = False
        self.query_one(Log).write_line(f"error: {message}" + (f"\nhint: {hint}" if hint else ""))
        self.query_one("#index-reason", Static).update(f"[red]The index could not be built:[/] {message}")

    def _built(self, report) -> None:
        self.building = False
        self.notify(f"index built: {len(report.index.docs)} docs in {report.seconds:.1f} s")
        self.dismiss(report.index)
