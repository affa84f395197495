"""APIBench tier of tests/cli/test_mcp_server.py: `gorilla-tui mcp`: a real MCP client session (the SDK's
stdio client) against the real server process."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import stdio_client

from gorilla_tui.cli import main
from tests.cli.test_mcp_server import _error, _params

TOOLS = {"search_api_docs", "check_api_call", "propose_api_call"}


def _payload(result: Any) -> dict:
    assert result.content and result.content[0].type == "text"
    return json.loads(result.content[0].text)


async def _call(session: ClientSession, tool: str, **arguments: Any) -> dict:
    return _payload(await session.call_tool(tool, arguments))


@pytest.mark.model
def test_mcp_session_lists_and_calls_each_tool(home_with_index: Path, apibench: Path) -> None:
    async def session() -> None:
        with open(os.devnull, "w") as errlog:
            async with stdio_client(_params(home_with_index), errlog=errlog) as (read, write):
                async with ClientSession(read, write) as s:
                    await s.initialize()
                    tools = {t.name: t for t in (await s.list_tools()).tools}
                    assert set(tools) == TOOLS
                    schema = tools["search_api_docs"].input_schema
                    assert schema["required"] == ["task"]
                    assert schema["properties"]["k"]["maximum"] == 50
                    assert "description" in schema["properties"]["task"]
                    assert "hallucination" in tools["check_api_call"].description

                    task = "classify sports activities in videos"
                    found = await _call(s, "search_api_docs", task=task, k=3, source="torchhub")
                    assert len(found["hits"]) == 3 and found["source"] == "torchhub"
                    assert all(h["source"] == "torchhub" and "torch.hub.load" in h["api_call"]
                               for h in found["hits"])  # fmt: skip
                    assert any(h["domain"] == "Video Classification" for h in found["hits"])

                    code = "torch.hub.load('pytorch/vision', 'resnet-201', pretrained=True)"
                    wrong = await _call(s, "check_api_call", code=code)
                    assert wrong["verdict"] == "wrong_args" and wrong["reason"] == "wrong_args:unknown_model"
                    assert any("resnet101" in x for x in wrong["did_you_mean"])
                    tool_call = (  # issue 39: the JSON tool call an agent emits, checked as that call
                        '[{"name": "torch.hub.load", "arguments": '
                        '{"repo_or_dir": "pytorch/vision", "model": "resnet-201"}}]'
                    )
                    as_json = await _call(s, "check_api_call", code=tool_call)
                    assert as_json["reason"] == "wrong_args:unknown_model", as_json
                    good = await _call(
                        s, "check_api_call", code=found["hits"][0]["api_call"], source="torchhub"
                    )
                    assert (
                        good["verdict"] == "valid"
                        and good["matched"]["api_call"] == found["hits"][0]["api_call"]
                    )

                    proposal = await _call(s, "propose_api_call", task=task)
                    assert proposal["verdict"]["verdict"] == "valid"
                    assert proposal["api_call"] in [h["api_call"] for h in proposal["hits"]]
                    assert proposal["model"] == "gemma3-270m"
                    assert proposal["translation"] == ""  # an English task
                    # a task in another language: searched with its English translation, as `ask --json` says
                    german = await _call(s, "propose_api_call", task="Bilder von Katzen klassifizieren")
                    assert german["translation"] and german["task"] == "Bilder von Katzen klassifizieren"
                    assert german["warnings"][0] == (
                        f"searched in English as: {german['translation']} (translated by the model)"
                    )

                    # the index is swapped by a refresh while the server runs: the next call sees it
                    await anyio.to_thread.run_sync(
                        main, ["index", "--refresh", "--from", str(apibench), "--only", "tensorflowhub"]
                    )
                    task = "image classification mobilenet"
                    swapped = await _call(s, "search_api_docs", task=task, k=2, source="tensorflowhub")
                    assert [h["source"] for h in swapped["hits"]] == ["tensorflowhub"] * 2

    anyio.run(session)


def test_mcp_hostile_calls_get_tool_errors_and_the_server_lives_on(
    gorilla_home: Path, apibench: Path
) -> None:
    assert main(["index", "--refresh", "--from", str(apibench), "--only", "torchhub"]) == 0

    async def session() -> None:
        with open(os.devnull, "w") as errlog:
            async with stdio_client(_params(gorilla_home), errlog=errlog) as (read, write):
                async with ClientSession(read, write) as s:
                    await s.initialize()
                    huge = "classify images " * 200_000  # 3.2 MB
                    assert "task" in _error(await s.call_tool("search_api_docs", {"task": huge}))
                    assert "code" in _error(await s.call_tool("check_api_call", {"code": "x(" * 100_000}))
                    assert "k" in _error(
                        await s.call_tool("search_api_docs", {"task": "resnet", "k": "many"})
                    )
                    assert "k" in _error(
                        await s.call_tool("search_api_docs", {"task": "resnet", "k": 10_000})
                    )
                    assert _error(await s.call_tool("search_api_docs", {"task": ["not", "a", "string"]}))
                    assert _error(await s.call_tool("check_api_call", {}))
                    assert "empty" in _error(await s.call_tool("search_api_docs", {"task": "   "}))
                    assert "unknown source 'nohub'" in _error(
                        await s.call_tool("check_api_call", {"code": "f(1)", "source": "nohub"})
                    )
                    unparseable = _payload(await s.call_tool("check_api_call", {"code": "def (:"}))
                    assert unparseable["verdict"] == "unparseable"
                    deep = await _call(s, "check_api_call", code="f(" * 20_000 + ")" * 20_000)  # 40k chars
                    assert deep["verdict"] == "unparseable" and deep["reason"].startswith("unparseable:")
                    assert "nesting" in " ".join(deep["diagnostics"])
                    # after all that, the same process still answers
                    alive = _payload(
                        await s.call_tool("search_api_docs", {"task": "object detection", "k": 1})
                    )
                    assert len(alive["hits"]) == 1

    anyio.run(session)
