"""Break-it round 14 (issue 42, kind 2, R14-4): the settings screen showed config.toml's model with its
escape sequences stripped ("/tmp/[/x].gguf"), and Ctrl+S with no edit wrote the stripped value back. The
value is now shown escaped (visible escapes, a note under it) and written back exactly as read unless it
is edited. The real app of create_app, driven by Textual's pilot, over a real config.toml."""

from __future__ import annotations

from textual.widgets import Input

from gorilla_tui.config import load_settings
from gorilla_tui.model.scripted import ScriptedBackend
from gorilla_tui.paths import get_paths
from gorilla_tui.tui.app import create_app
from gorilla_tui.tui.screens.settings import SettingsScreen
from tests.tui.conftest import VALID_CALL, screen_text

SIZE = (140, 40)
#: config.toml's text: a model path with an OSC title sequence, markup that crashed ("[/x]") and a C1 CSI
CONFIG = 'model = "/tmp/\\u001b]0;PWNS\\u0007[/x]\\u009b31m.gguf"\n'
#: What the model input shows of it
SHOWN = "/tmp/\\x1b]0;PWNS\\x07[/x]\\x9b31m.gguf"


def _app(torchhub_index):
    config = get_paths().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(CONFIG)
    settings = load_settings()
    assert settings.model == "/tmp/\x1b]0;PWNS\x07[/x]\x9b31m.gguf"
    return config, create_app(settings, backend=ScriptedBackend([" " + VALID_CALL]), index=torchhub_index)


async def test_a_model_with_escapes_is_shown_escaped_and_saved_back_as_read(torchhub_index):
    """Ctrl+S with no edit leaves config.toml as it was (the stripped value was written); an edit of
    another field writes that field and keeps the model as read."""
    config, app = _app(torchhub_index)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+o")
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        assert screen.query_one("#set-model", Input).value == SHOWN  # escaped, never stripped
        text = screen_text(app)
        assert "\x1b" not in text and "\x9b" not in text and "control characters shown as \\x escapes" in text
        await pilot.press("ctrl+s")
        assert app.screen is app.main
        assert config.read_text() == CONFIG
        await pilot.press("ctrl+o")
        app.screen.query_one("#set-k", Input).value = "3"
        await pilot.press("ctrl+s")
        assert app.screen is app.main
    saved = load_settings()
    assert (saved.model, saved.k) == ("/tmp/\x1b]0;PWNS\x07[/x]\x9b31m.gguf", 3)
    assert config.read_text().startswith(CONFIG)


async def test_an_edited_model_is_saved_as_typed(torchhub_index):
    """The user's own edit is what is saved (the escapes shown are then plain text the user kept)."""
    config, app = _app(torchhub_index)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+o")
        app.screen.query_one("#set-model", Input).value = "/tmp/m.gguf"
        await pilot.press("ctrl+s")
        assert app.screen is app.main
    assert load_settings().model == "/tmp/m.gguf"
    assert config.read_text() == 'model = "/tmp/m.gguf"\n'
