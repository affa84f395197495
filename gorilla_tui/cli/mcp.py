"""`gorilla-tui mcp`: serve the API pool, the retriever and the validator as MCP tools over stdio."""

from __future__ import annotations

import argparse

from gorilla_tui.cli.options import add_model_command, settings_from_args


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `mcp` subcommand."""
    add_model_command(
        subparsers,
        "mcp",
        help="run an MCP server (stdio) with search_api_docs, check_api_call and propose_api_call",
        description=(
            "Run a Model Context Protocol server over stdin/stdout for coding agents and chat apps (Claude "
            "Desktop/Code, Cursor, Zed, Continue, ...). Tools: search_api_docs(task, k, source), "
            "check_api_call(code, source), propose_api_call(task, source) (select mode; the model loads on "
            "its first use). The index is loaded once and reloaded when `index --refresh` swaps it. "
            "Model flags override config.toml for propose_api_call."
        ),
        run=run,
        hub=False,
        max_tokens=False,
    )


def run(args: argparse.Namespace) -> int:
    """Serve until the client closes stdin; exit 0."""
    settings = settings_from_args(args)
    from gorilla_tui.mcp.server import (
        serve,
    )  # the MCP SDK (pydantic, anyio, starlette): only for this command

    serve(settings)
    return 0
