"""The settings screen: model, mode, select-by, k, hub, kernel profile; saved to config.toml on Save."""

from __future__ import annotations

from dataclasses import fields

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, HorizontalGroup, VerticalGroup, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from gorilla_tui.config import MODES, SELECT_BY, Settings, save_settings
from gorilla_tui.errors import GorillaError
from gorilla_tui.model.profiles import load_profiles
from gorilla_tui.textsafe import safe_text
from gorilla_tui.tui.widgets.text_input import SafeInput

MODE_HELP = {
    "select": "select — one of the hits' api_calls",
    "generate": "generate — free text, then validated",
}
#: Choices of Settings.select_by (config.SELECT_BY), as the settings screen shows them.
SELECT_BY_HELP = {
    "likelihood": "likelihood — the model scores each hit",
    "grammar": "grammar — GBNF-constrained choice",
}

#: Said under the model's input when config.toml's model holds control characters (shown escaped)
MODEL_ESCAPED_NOTE = "control characters shown as \\x escapes; the file's value is kept unless you edit it"


def kernel_names() -> list[str]:
    """Names of the shipped kernel profiles (kernels/*.toml), [] when they cannot be read."""
    try:
        return sorted(load_profiles())
    except (GorillaError, OSError):
        return []


class SettingsScreen(ModalScreen[Settings | None]):
    """Edits a copy of `settings`; dismisses with the saved Settings, or None when cancelled.
    `hubs`: source names of the index for the hub filter ("" = all sources)."""

    BINDINGS = [
        Binding("ctrl+s", "save", "Save"),
        Binding("escape", "close", "Cancel"),
    ]

    def __init__(self, settings: Settings, hubs: list[str]) -> None:
        super().__init__(classes="modal")
        self.settings = settings
        self.hubs = hubs
        #: The model as the input shows it: its control characters as visible escapes (textsafe.safe_text,
        #: whole), never stripped; collect keeps settings.model as read while the input still shows this.
        #: Break-it round 14: the input dropped the escape sequences of config.toml's model, and Ctrl+S with
        #: no edit wrote the stripped value back.
        self.shown_model = safe_text(settings.model, limit=None)

    def compose(self) -> ComposeResult:
        s = self.settings
        hubs = list(dict.fromkeys([*self.hubs, *([s.hub] if s.hub else [])]))
        kernels = list(dict.fromkeys([*kernel_names(), *([s.kernel] if s.kernel else [])]))
        with VerticalScroll(id="dialog") as box:  # scrolls when the terminal is too small (80x24)
            box.border_title = "Settings"
            box.border_subtitle = "ctrl+s saves · Escape cancels"
            yield Label("Model: empty = embedded gemma3-270m; a .gguf path; hf:OWNER/REPO/FILE.gguf; a name")
            yield SafeInput(self.shown_model, placeholder="gemma3-270m (embedded)", id="set-model")
            if self.shown_model != s.model:  # said, so the escapes are not taken for the file's text
                yield Static(Text(MODEL_ESCAPED_NOTE, style="dim"), id="set-model-note")
            with HorizontalGroup():  # side by side: one row less than stacked, the dialog fits 120x36
                with VerticalGroup() as mode:
                    mode.styles.margin = (0, 2, 0, 0)
                    yield Label("Mode")
                    yield Select(
                        [(MODE_HELP[m], m) for m in MODES], value=s.mode, allow_blank=False, id="set-mode"
                    )
                with VerticalGroup():
                    yield Label("Select by: how select mode chooses")
                    yield Select(
                        [(SELECT_BY_HELP[b], b) for b in SELECT_BY],
                        value=s.select_by,
                        allow_blank=False,
                        id="set-select-by",
                    )
            yield Label("k: hits retrieved per task (1-50)")
            yield SafeInput(str(s.k), type="integer", id="set-k")
            yield Label("Hub filter: search one source only")
            yield Select(
                [("all sources", "")] + [(Text(safe_text(h)), h) for h in hubs],  # names: never markup
                value=s.hub,
                allow_blank=False,
                id="set-hub",
            )
            yield Label("Kernel profile (llama.cpp compute backend)")
            yield Select(
                [("auto-detect", "")] + [(Text(safe_text(k)), k) for k in kernels],
                value=s.kernel,
                allow_blank=False,
                id="set-kernel",
            )
            yield Static("", id="settings-error")
            with Horizontal(id="buttons"):
                yield Button("Save (ctrl+s)", id="save", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#set-model", Input).focus()

    def collect(self) -> Settings:
        """The edited settings (a model not edited: settings.model exactly as read, not the escaped text
        shown); raises GorillaError (UsageError) for invalid values."""
        k_text = self.query_one("#set-k", Input).value.strip()
        try:
            k = int(k_text)
        except ValueError:
            raise GorillaError(f"k must be a whole number, not {k_text!r}") from None
        model = self.query_one("#set-model", Input).value
        return self.settings.replace(
            model=self.settings.model if model == self.shown_model else model.strip(),  # not edited: as read
            mode=str(self.query_one("#set-mode", Select).value),
            select_by=str(self.query_one("#set-select-by", Select).value),
            k=k,
            hub=str(self.query_one("#set-hub", Select).value or ""),
            kernel=str(self.query_one("#set-kernel", Select).value or ""),
        )

    def action_save(self) -> None:
        try:
            new = self.collect()
            old = self.settings
            changed = [f.name for f in fields(Settings) if getattr(new, f.name) != getattr(old, f.name)]
            path = save_settings(new, keys=changed)  # only these: not another TUI's, not CLI overrides
        except (GorillaError, OSError) as e:
            self.query_one("#settings-error", Static).update(Text(safe_text(str(e)), style="red"))
            return
        self.notify(safe_text(f"saved to {path}"), markup=False)
        self.dismiss(new)

    def action_close(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "save":
            self.action_save()
        else:
            self.action_close()
