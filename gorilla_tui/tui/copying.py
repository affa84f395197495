"""The app's copy action: OSC 52 through the terminal at once, then the tmux buffer and the system
clipboard tool in a thread worker; the notice says only what is confirmed (a file in the user cache dir as
last resort)."""

from __future__ import annotations

from textual import work

from gorilla_tui.paths import get_paths
from gorilla_tui.textsafe import strip_controls
from gorilla_tui.tui import clipboard


class CopyMixin:
    """GorillaApp's copy_text, mixed into the App (it uses App.copy_to_clipboard, call_from_thread and the
    driver, and GorillaApp's notice and copy_tool: clipboard.find_tool())."""

    copy_tool: tuple[str, ...] | None

    def copy_text(self, text: str, what: str = "text") -> None:
        """Copy `text`: OSC 52 via App.copy_to_clipboard (sets self.clipboard; wrapped again for tmux
        passthrough only where tmux's allow-passthrough is on), then in a thread worker the tmux buffer
        (inside tmux) and the system clipboard tool, if any. The notice says only what is confirmed;
        when nothing is, the text is saved to a file in the user cache dir and the notice names it.
        Never raises. Terminal escape sequences and control characters other than newline and tab (from a
        hostile doc's api_call or example code) are removed first (textsafe.strip_controls): a paste must
        not drive the terminal it lands in; the notice says so."""
        clean = strip_controls(text)
        if clean != text:
            text, what = clean, f"{what} (control characters removed)"
        sent, failures = [], []
        try:
            self.copy_to_clipboard(text)
            sent.append("OSC 52")
        except Exception as e:  # a closed terminal must not crash the app
            failures.append(f"OSC 52 failed: {e}")
        self._copy_confirmed(text, what, sent, failures)

    @work(thread=True, group="copy", exit_on_error=False)
    def _copy_confirmed(self, text: str, what: str, sent: list[str], failures: list[str]) -> None:
        confirmed: list[str] = []
        if clipboard.tmux_env():
            if sent and clipboard.tmux_option("allow-passthrough") in ("on", "all"):
                driver = self._driver
                if driver is not None:
                    self.call_from_thread(driver.write, clipboard.tmux_passthrough(clipboard.osc52(text)))
                    sent = [*sent[:-1], "OSC 52 (tmux passthrough)"]
            ok, why = clipboard.copy_to_tmux(text)
            if ok:
                confirmed.append("the tmux buffer (prefix+] pastes it)")
            elif why:
                failures = failures + [why]
        if self.copy_tool:
            error = clipboard.copy_with_tool(text, self.copy_tool)
            if error is None:
                confirmed.append(self.copy_tool[0])
            else:
                failures = failures + [error]
        saved = None if confirmed else clipboard.save_copy(text, get_paths().cache)
        self.call_from_thread(self.notice, f"{what}: {clipboard.describe(confirmed, sent, failures, saved)}")
