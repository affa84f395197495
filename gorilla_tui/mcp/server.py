"""`gorilla-tui mcp`: the API pool, retriever and validator as Model Context Protocol tools over stdio.

Built on the official MCP Python SDK (PyPI `mcp` >= 2: mcp.server.mcpserver.MCPServer). Coding agents and
chat apps (Claude Desktop/Code, Cursor, Zed, Continue, ...) start this command and call three tools:
search_api_docs, check_api_call and propose_api_call (gorilla_tui/mcp/tools.py does the work; the stdio
transport that answers every line is gorilla_tui/mcp/transport.py, a bad line's JSON-RPC error
gorilla_tui/mcp/replies.py, the protocol errors of a request read gorilla_tui/mcp/protocol_errors.py). The
SDK itself diverts file descriptor 1 while the transport runs, so stray output cannot corrupt the protocol.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from pydantic import Field, ValidationError

from gorilla_tui import __version__
from gorilla_tui.config import Settings
from gorilla_tui.errors import GorillaError
from gorilla_tui.mcp.lines import in_daemon_thread
from gorilla_tui.mcp.logs import one_line, route_logs
from gorilla_tui.mcp.protocol_errors import ProtocolErrors
from gorilla_tui.mcp.tools import K_MAX, MAX_CODE_CHARS, MAX_TASK_CHARS, ToolBox
from gorilla_tui.mcp.transport import serve_stdio
from gorilla_tui.paths import get_paths

_log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "Grounding for code that calls machine-learning model hubs and Python libraries (Gorilla, arXiv "
    "2305.15334). Before you write a call to Torch Hub, TensorFlow Hub, Hugging Face or an indexed library, "
    "call search_api_docs to see the real API entries; after you write one, call check_api_call: a verdict "
    "other than 'valid' means the call is not in the API pool (hallucination) or has the wrong identifying "
    "arguments (wrong_args, with a did-you-mean). propose_api_call picks one real entry for a task with a "
    "local language model (slower: the model loads on its first use)."
)

SEARCH_DOC = """Find real API entries for a task in plain English (BM25 over the local API pool: Torch Hub,
TensorFlow Hub, Hugging Face, APIZoo, Python libraries, whatever the index holds).

Returns JSON: {"task", "source", "k", "hits": [{"rank", "score", "api_call", "api_name", "domain",
"provider", "source", "summary", "env_requirements", "constraints"?}], "constraints", "note"}.
"api_call" is the exact call to write, e.g. torch.hub.load(repo_or_dir='pytorch/vision', model='resnet50',
pretrained=True). Constraints stated in the task ("at least 80 % top-1", "runs on a Raspberry Pi") rerank the
hits; each hit then lists them as satisfied / violated / unknown. An empty "hits" list means no entry shares
a word with the task."""

CHECK_DOC = """Check an API call (or a code snippet) against the API pool by an AST sub-tree match: callee
and identifying arguments (Torch Hub repo and model, pipeline task and model, from_pretrained model id,
hub.KerasLayer/hub.load handle, required parameters of library functions; for function-calling entries with
a JSON Schema: required parameters, unknown names, literal values of the declared type and enum).
`code` may also be a JSON tool call as function-calling models emit it, checked as the call it names:
[{"name": "shutil.copytree", "arguments": {"src": "a", "dst": "b"}}], one such object, "arguments" as a
JSON string, or OpenAI's {"type": "function", "function": {...}} wrapper.

Returns JSON: {"verdict", "reason", "api_call", "matched", "did_you_mean", "diagnostics"}. reason is a code
such as "wrong_args:unknown_model" or "hallucination:unknown_callee" ("" when valid); diagnostics explain
it in words. verdict is one of
valid (matches an entry), wrong_args (a known API with arguments no entry has or its schema refuses; see
did_you_mean), hallucination (no such API in the pool), unparseable (not Python), no_call (no call found).
Use it on every hub or library call you write before showing it to the user."""

PROPOSE_DOC = """Propose one real API call for a task: retrieve the best entries (as search_api_docs) and
let the local model choose one of their api_calls (select mode, so the answer is always an entry of the
pool), then check it. The first call loads the model (a few seconds); later calls take about a second or
more on a CPU.

Returns JSON: {"task", "translation" (the task put into English by the model when it was written in another
language, searched after it; else ""), "api_call", "code" (the matched entry's example code when it has one),
"code_source", "verdict" (as check_api_call, or "incomplete": a valid call that still holds placeholders for
values the task did not give, named in "needs" and in the diagnostic "needs: src, dst"; ask the user for
them), "needs", "select_by", "model", "hits", "constraints", "warnings"}."""

Task = Annotated[
    str,
    Field(
        description="What the user wants to do, in plain words, e.g. 'classify sports activities in "
        "videos' or 'detect objects in images, must run on a Raspberry Pi' (propose_api_call puts another "
        "language into English with the model before its search; search_api_docs reads it with the "
        "multilingual embedder alone).",
        min_length=1,
        max_length=MAX_TASK_CHARS,
        strict=True,
    ),
]
Source = Annotated[
    str,
    Field(
        description="Search or check one source of the index only (e.g. 'torchhub', 'tensorflowhub', "
        "'huggingface', 'apizoo', 'python-env'); empty for all of them.",
        max_length=100,
        strict=True,
    ),
]


def _got(value: Any) -> str:
    """What a tool argument of the wrong type or range was, in JSON's words and short (a string's length,
    never its text): "true", "the number inf", "an integer of 5000 digits", "a string of 0 characters"."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, int):
        digits = len(str(abs(value)))
        return f"the integer {value}" if digits <= 20 else f"an integer of {digits} digits"
    if isinstance(value, float):  # JSON 1e400 reads as inf
        return f"the number {value!r}" + (" (out of range)" if value in (float("inf"), float("-inf")) else "")
    if isinstance(value, str):
        return f"a string of {len(value)} characters"
    return {list: "an array", dict: "an object"}.get(type(value), type(value).__name__)


def argument_errors(error: ValidationError) -> str:
    """One line for the arguments pydantic refused, each naming the argument, what it expects and what it
    got: "argument 'k' should be a valid integer, got true; argument 'task' is missing (required)".
    pydantic's own text (the SDK's tool error) took four lines per argument, with the rejected value and a
    URL (break-it round 9)."""
    parts = []
    for err in error.errors(include_url=False):
        name = ".".join(str(p) for p in err["loc"]) or "arguments"
        first, _, rest = " ".join(str(err["msg"]).split()).partition(" ")
        if err["type"] == "missing":
            parts.append(f"argument {name!r} is missing (required)")
        elif first in ("Input", "String", "Value", "List") and rest.startswith("should"):
            parts.append(f"argument {name!r} {rest}, got {_got(err.get('input'))}")
        else:
            parts.append(f"argument {name!r}: {first} {rest}".rstrip())
    return "; ".join(parts)


class _Server(MCPServer):
    """MCPServer whose tool errors for arguments of the wrong type or range are one line
    (argument_errors), as the other bad arguments are (protocol_errors.unknown_arguments, GorillaError)."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as e:
            cause = e.__cause__
            if isinstance(e, UnexpectedToolError) or not isinstance(cause, ValidationError):
                raise
            raise ToolError(f"Error executing tool {name}: {argument_errors(cause)}") from cause


def internal_error(tool: str, error: Exception, log_file: Path | None) -> ToolError:
    """The one-line tool error of a bug in a tool (an exception that is no GorillaError), after logging it
    with its traceback (mcp/logs.py: the bounded log file; one line on stderr):
    "internal error in check_api_call: RecursionError: maximum recursion depth exceeded (a bug; its
    traceback is in LOG)". The SDK itself answered "Error executing tool check_api_call" and wrote the
    whole traceback to stderr (break-it round 16, P2)."""
    _log.error("internal error in %s: %s: %s", tool, type(error).__name__, one_line(str(error), 200),
               exc_info=(type(error), error, error.__traceback__))  # fmt: skip
    where = f"its traceback is in {log_file}" if log_file else "run with GORILLA_TUI_DEBUG=1 to see it"
    return ToolError(
        f"internal error in {tool}: {type(error).__name__}: {one_line(str(error), 200)} (a bug; {where})"
    )


def build_server(box: ToolBox, log_file: Path | None = None) -> MCPServer:
    """An MCPServer with the three tools bound to `box`. A GorillaError raised by a tool (bad argument,
    no index, model or endpoint failure) becomes an MCP tool error carrying its one-line message and hint;
    argument type and range errors are reported by the SDK's schema validation the same way, and an
    argument the tool does not take (`hub` for `source`) by protocol_errors.unknown_arguments: a tool error
    (isError), not a JSON-RPC -32602, as MCP 2025-11-25 asks for arguments the model can correct. Every
    argument is strict (pydantic strict mode): a JSON true/false, "5" or 5.0 is no integer, a number is no
    string. Any other exception of a tool (a bug) is one line too (internal_error), its traceback only in
    `log_file`."""
    errors = ProtocolErrors()
    server = _Server(name="gorilla-tui", version=__version__, instructions=INSTRUCTIONS, middleware=[errors])
    errors.tools = server.list_tools  # tools/call of a name not listed: -32602 (ProtocolErrors)

    async def call(tool: str, fn: Any, *args: Any) -> dict[str, Any]:
        try:  # in a daemon thread: BM25, validation and the model block; the event loop keeps serving and
            return await in_daemon_thread(fn, *args)  # stops waiting at once on Ctrl+C or end of input
        except GorillaError as e:
            raise ToolError(f"{e}" + (f" (hint: {e.hint})" if e.hint else "")) from None
        except Exception as e:  # a bug: one line to the client, the traceback to the log file alone
            raise internal_error(tool, e, log_file) from None

    @server.tool(name="search_api_docs", title="Search API docs", description=SEARCH_DOC)
    async def search_api_docs(
        task: Task,
        k: Annotated[
            int, Field(description=f"How many hits to return (1..{K_MAX}).", ge=1, le=K_MAX, strict=True)
        ] = 5,
        source: Source = "",
    ) -> dict[str, Any]:
        return await call("search_api_docs", box.search, task, k, source)

    @server.tool(name="check_api_call", title="Check an API call", description=CHECK_DOC)
    async def check_api_call(
        code: Annotated[
            str,
            Field(
                description="The API call, Python snippet or JSON tool call to check, e.g. "
                "\"torch.hub.load('pytorch/vision', 'resnet50', pretrained=True)\".",
                min_length=1,
                max_length=MAX_CODE_CHARS,
                strict=True,
            ),
        ],
        source: Source = "",
    ) -> dict[str, Any]:
        return await call("check_api_call", box.check, code, source)

    @server.tool(name="propose_api_call", title="Propose an API call", description=PROPOSE_DOC)
    async def propose_api_call(task: Task, source: Source = "") -> dict[str, Any]:
        return await call("propose_api_call", box.propose, task, source)

    return server


def serve(settings: Settings) -> None:
    """Run the server over stdio until the client closes it (blocks). Every line the client sends gets
    an answer, a JSON-RPC error for one that is no message (mcp/transport.py, mcp/replies.py; issue 42).
    Ctrl+C (SIGINT) or the end of input cancels a running tool call (ToolBox.cancel) and ends the server at
    once.

    Raises:
        KeyboardInterrupt: SIGINT ended it (the CLI says "interrupted", exit 130).
    """
    box = ToolBox(settings)
    # before the MCPServer is made: its logging.basicConfig (rich tracebacks on stderr) then does nothing
    log_file = route_logs(get_paths().logs)
    if anyio.run(serve_stdio, build_server(box, log_file), box.cancel):
        raise KeyboardInterrupt
