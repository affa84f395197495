"""`gorilla-tui tui` (and bare `gorilla-tui`): open the Textual app."""

from __future__ import annotations

import argparse

from gorilla_tui.config import load_settings


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `tui` subcommand."""
    p = subparsers.add_parser(
        "tui",
        help="open the terminal UI (the default when no command is given)",
        description=(
            "Open the terminal UI: type a task, see the retrieved API docs (hits), the model's API call, "
            "its code and the verdict of the AST sub-tree match. This is the default command: "
            "`gorilla-tui --model M` is `gorilla-tui tui --model M`. "
            "Flags override config.toml for this session."
        ),
    )
    p.add_argument("--model", help="model: a .gguf path, hf:OWNER/REPO/FILE.gguf or a registry name")
    p.add_argument("--mode", choices=("select", "generate"), help="select (GBNF choice) or generate")
    p.add_argument("-k", type=int, help="hits retrieved per task (1-50)")
    p.add_argument("--hub", help="search one source only (e.g. torchhub)")
    p.add_argument("--kernel", help="kernel profile (cpu, cuda, metal, vulkan)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Load settings (config.toml, overridden by flags), build the app, run it; exit 0."""
    settings = load_settings().replace(
        model=getattr(args, "model", None),
        mode=getattr(args, "mode", None),
        k=getattr(args, "k", None),
        hub=getattr(args, "hub", None),
        kernel=getattr(args, "kernel", None),
    )
    from gorilla_tui.tui.app import create_app  # textual: ~0.15 s import, only for the TUI

    create_app(settings).run()
    return 0
