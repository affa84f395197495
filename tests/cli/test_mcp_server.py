"""`gorilla-tui mcp`: a real MCP client session (the SDK's stdio client) against the real server process."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[2]


def _params(home: Path) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    env |= {"GORILLA_TUI_HOME": str(home), "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    return StdioServerParameters(command=sys.executable, args=["-m", "gorilla_tui", "mcp"], env=env)


def _error(result: Any) -> str:
    assert result.is_error, result
    return result.content[0].text


def test_mcp_without_an_index_says_how_to_build_one(gorilla_home: Path) -> None:
    async def session() -> None:
        with open(os.devnull, "w") as errlog:
            async with stdio_client(_params(gorilla_home), errlog=errlog) as (read, write):
                async with ClientSession(read, write) as s:
                    await s.initialize()
                    msg = _error(await s.call_tool("search_api_docs", {"task": "classify images"}))
                    assert "index --refresh" in msg

    anyio.run(session)
