"""`gorilla-tui mcp`: serve the API pool, the retriever and the validator as MCP tools over stdio."""

from __future__ import annotations

import argparse

from gorilla_tui.cli.options import add_model_command, settings_from_args
from gorilla_tui.cli.output import BaseExceptionGroup, output_lost_in, raise_if_stdout_closed


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
    """Serve until the client closes stdin; exit 0. Standard output that refuses a write follows every
    command's rule (cli/output.py): a client that went away (EPIPE) ends the server quietly, exit 0; a full
    disk or a closed descriptor is "could not write the output: ...", exit 2. They were "internal error:
    ExceptionGroup" from the SDK's writer inside anyio's task groups (break-it round 24, R24-4).

    Raises:
        OutputLost: standard output was closed at start, or refused a write of the SDK's writer."""
    settings = settings_from_args(args)
    raise_if_stdout_closed()  # before the SDK claims file descriptor 1
    from gorilla_tui.mcp.server import (
        serve,
    )  # the MCP SDK (pydantic, anyio, starlette): only for this command

    try:
        serve(settings)
    except BaseExceptionGroup as group:
        lost = output_lost_in(group)
        if lost is None:
            raise
        raise lost from None
    return 0
