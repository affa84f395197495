"""`gorilla-tui mcp`: a real MCP client session (the SDK's stdio client) against the real server process."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
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


SMALL_POOL = Path(__file__).resolve().parents[1] / "data" / "pool"


def test_mcp_integer_and_string_arguments_are_strict(gorilla_home: Path) -> None:
    """Issue 19: `k: true` was taken as k=1 (a bool is an int in Python), "3" and 3.0 as 3. Every argument
    is checked strictly: a tool error naming the argument (one line, break-it round 9), and the server answers
    the next call."""
    from mcp import Client

    from gorilla_tui.cli import main
    from gorilla_tui.config import load_settings
    from gorilla_tui.mcp.server import build_server
    from gorilla_tui.mcp.tools import ToolBox, ToolInputError

    only = ["--only", "torchhub", "--only", "huggingface"]
    assert main(["index", "--refresh", "--from", str(SMALL_POOL), *only, "--no-dense"]) == 0
    box = ToolBox(load_settings())
    server = build_server(box)
    # the tools themselves check the same way (a caller without the SDK's schema)
    for call in (lambda: box.search("classify images", True), lambda: box.search("classify images", 3, 1),
                 lambda: box.check(1), lambda: box.check("f(1)", None), lambda: box.search(5)):  # fmt: skip
        with pytest.raises(ToolInputError):
            call()
    # a JSON tool call cut short is said to be bad JSON, as `check` says, not checked as code (no_call)
    with pytest.raises(ToolInputError, match=r"^not valid JSON: Expecting"):
        box.check('[{"name": "torch.hub.load", "arguments": {"repo_or_dir": "pytorch/vision"}')

    async def session() -> None:
        async with Client(server) as c:
            for bad_k in (True, False, "3", 3.0, 2.5, None, [3]):
                msg = _error(await c.call_tool("search_api_docs", {"task": "classify images", "k": bad_k}))
                assert "argument 'k' should be a valid integer, got " in msg and "\n" not in msg, (bad_k, msg)
            for tool, args in (
                ("search_api_docs", {"task": 5}),
                ("search_api_docs", {"task": True}),
                ("search_api_docs", {"task": "classify images", "source": 1}),
                ("search_api_docs", {"task": "classify images", "source": False}),
                ("check_api_call", {"code": 1}),
                ("check_api_call", {"code": "f(1)", "source": ["torchhub"]}),
                ("propose_api_call", {"task": False}),
            ):
                msg = _error(await c.call_tool(tool, args))
                wrong = "source" if "source" in args else next(iter(args))
                assert f"argument '{wrong}' should be a valid string, got " in msg, (tool, args, msg)
            ok = await c.call_tool("search_api_docs", {"task": "classify images", "k": 3})
            assert not ok.is_error and 1 <= len(ok.structured_content["hits"]) <= 3

    anyio.run(session)


def test_mcp_search_of_a_task_without_words_says_so(gorilla_home: Path) -> None:
    """Break-it finding: search_api_docs("🚀🔥") (no BM25 term) said "no API doc shares a word with the
    task"; its note says the task has no searchable words."""
    from gorilla_tui.cli import main
    from gorilla_tui.config import load_settings
    from gorilla_tui.mcp.tools import ToolBox

    assert main(["index", "--refresh", "--from", str(SMALL_POOL), "--only", "torchhub", "--no-dense"]) == 0
    box = ToolBox(load_settings())
    empty = box.search("🚀🔥")
    assert empty["hits"] == [] and empty["note"].startswith("the task has no searchable words")
    found = box.search("detect objects in an image")
    assert found["hits"] and "searchable" not in found["note"]
