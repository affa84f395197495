"""The MCP server (`gorilla-tui mcp`): tools.py holds the headless tools, server.py the SDK wiring."""
