"""The protocol errors of `gorilla-tui mcp` after a message is read: the SDK middleware `ProtocolErrors`
(a request before initialize, an unknown prompt, an unknown tool) and `unknown_arguments`, the tool error
for an argument a tool does not take. The errors of a line that is no message are mcp/replies.py's; the
wiring that installs the middleware is mcp/server.py.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, INVALID_REQUEST, CallToolResult, TextContent


def unknown_arguments(tool: Any, arguments: Any) -> str | None:
    """The tool error for `arguments` (a tools/call's) naming one the tool's input schema does not list,
    or None: "Error executing tool search_api_docs: unknown argument 'hub'; it takes task, k, source
    (source names one source of the index, as the CLI's --hub; empty for all)", worded as the SDK's own
    tool errors for arguments of the wrong type. The SDK's argument models ignore such a name: the call
    ran as if it were not given (`hub: "nosuchhub"` searched every source)."""
    if not isinstance(arguments, dict):
        return None  # the SDK says what is wrong with it
    schema = getattr(tool, "input_schema", None) or getattr(tool, "inputSchema", None) or {}
    takes = list(schema.get("properties", {}))
    unknown = [key for key in arguments if key not in takes]
    if not unknown:
        return None
    names = ", ".join(repr(key[:40]) for key in unknown[:5])
    plural = "s" if len(unknown) > 1 else ""
    msg = f"Error executing tool {tool.name}: unknown argument{plural} {names}; it takes {', '.join(takes)}"
    if "source" in takes:
        msg += " (source names one source of the index, as the CLI's --hub; empty for all)"
    return msg


class ProtocolErrors:
    """SDK middleware (MCPServer(middleware=...)) that gives two protocol errors their JSON-RPC code and a
    message that says what to do (break-it pass 4):

    - a request before `initialize` (ping excepted) was -32602 "Invalid request parameters"; it is -32600
      "Invalid Request: the server is not initialized; send initialize first";
    - `prompts/get` of a prompt that does not exist was error code 0 (the SDK's code for any exception of a
      handler, with a traceback on stderr); it is -32602 invalid params naming the prompt (this server has
      none; prompts/list says so), as `resources/read` of an unknown resource already is;
    - `tools/call` of a tool that is not listed was a tool result with isError; MCP (2025-06-18 and
      2025-11-25, Tools, "Error Handling") lists an unknown tool among the protocol errors: it is -32602
      "Unknown tool: NAME" (break-it round 7). Arguments of the wrong type stay a tool result with isError,
      as MCP 2025-11-25 asks (the model can correct them); so is an argument the tool does not take
      (`unknown_arguments`: the SDK dropped it, and `hub` naming no source searched every source where
      the CLI refuses an unknown --hub, break-it round 8).

    tools: the server's list_tools (set once the server exists), None until then.
    """

    def __init__(self) -> None:
        self.initialized = False
        self.tools: Callable[[], Awaitable[list[Any]]] | None = None

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        params = getattr(ctx, "params", None)
        name = params.get("name") if ctx.method == "tools/call" and isinstance(params, dict) else None
        if self.initialized and isinstance(name, str) and self.tools is not None:
            tools = {tool.name: tool for tool in await self.tools()}
            if name not in tools:
                raise MCPError(
                    code=INVALID_PARAMS, message=f"Unknown tool: {name[:200]}", data={"name": name[:200]}
                )
            unknown = unknown_arguments(tools[name], params.get("arguments"))
            if unknown:
                return CallToolResult(content=[TextContent(type="text", text=unknown)], is_error=True)
        try:
            result = await call_next(ctx)
        except MCPError as e:
            gate = not self.initialized and ctx.method not in ("initialize", "ping")
            if gate and e.error.code == INVALID_PARAMS:  # the SDK's gate for requests before initialize
                why = "Invalid Request: the server is not initialized; send initialize first"
                raise MCPError(code=INVALID_REQUEST, message=why, data=ctx.method) from None
            raise
        except ValueError as e:  # not a bug of ours: the SDK's own "Unknown prompt: NAME"
            if ctx.method != "prompts/get":
                raise
            raise MCPError(code=INVALID_PARAMS, message=f"Invalid params: {str(e)[:200]}") from None
        if ctx.method in ("initialize", "server/discover"):  # the handshake, or the SDK client's discovery
            self.initialized = True
        return result
