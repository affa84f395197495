"""`gorilla-tui tui` (and bare `gorilla-tui`): open the Textual app."""

from __future__ import annotations

import argparse
import sys

from gorilla_tui.cli.options import add_model_command, settings_from_args
from gorilla_tui.errors import GorillaError, UsageError

#: The one line for a TUI started without a terminal (piped, cron, CI): it would draw into a file forever.
NO_TERMINAL = "the TUI needs a terminal: stdin and stdout must both be one"
NO_TERMINAL_HINT = 'for one answer without a terminal: gorilla-tui ask "TASK" (add --json for a program)'


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `tui` subcommand."""
    add_model_command(
        subparsers,
        "tui",
        help="open the terminal UI (the default when no command is given)",
        description=(
            "Open the terminal UI: type a task, see the retrieved API docs (hits), the model's API call, "
            "its code and the verdict of the AST sub-tree match. This is the default command: "
            "`gorilla-tui --model M` is `gorilla-tui tui --model M`. "
            "Flags override config.toml for this session."
        ),
        run=run,
        endpoint=False,
        max_tokens=False,
    )


def has_terminal() -> bool:
    """True when stdin and stdout are both terminals, as the TUI needs (a pipe, a file, /dev/null: False)."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def run(args: argparse.Namespace) -> int:
    """Load settings (config.toml, overridden by flags), build the app, run it; exit 0. Keys typed while it
    starts (Ctrl+Q included) are kept for the app: cli.main set the terminal up (tui/terminal.py).

    Raises:
        UsageError: stdin or stdout is not a terminal (NO_TERMINAL; exit 2), before the model or index
            loads; TEXTUAL_DRIVER names no driver textual can load (tui/app.py)."""
    settings = settings_from_args(args)  # a bad config.toml is said first, terminal or not
    if not has_terminal():
        raise UsageError(NO_TERMINAL, hint=NO_TERMINAL_HINT)
    from gorilla_tui.tui.session import Session  # no Textual: the model starts loading before it is imported

    session = Session(settings)
    session.start_backend_load()  # llama.cpp's load overlaps the Textual import, first paint and index load
    from gorilla_tui.tui.app import create_app  # textual: ~0.15 s import, only for the TUI

    try:
        app = create_app(session=session)
    except GorillaError:  # TEXTUAL_DRIVER that textual cannot load (tui/app.py get_driver_class): exit 2
        session.close()  # the model's load started above: given up, not waited for
        raise
    app.run()
    return 0
