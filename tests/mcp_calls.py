"""Call the in-memory MCP server the way a client does (a test helper, imported by name)."""

from __future__ import annotations

import json
from typing import Any

from anneal_memory.mcp import McpServer

__all__ = ["call_tool", "read_resource"]


def call_tool(server: McpServer, name: str, **arguments: Any) -> tuple[str, bool]:
    """``tools/call`` ``name``: the reply's text and whether it is an error."""
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    reply = server.handle(json.dumps(message))
    assert reply is not None
    return reply["result"]["content"][0]["text"], reply["result"]["isError"]


def read_resource(server: McpServer, uri: str) -> str:
    """``resources/read`` ``uri``: the first content's text."""
    message = {"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": uri}}
    reply = server.handle(json.dumps(message))
    assert reply is not None
    return str(reply["result"]["contents"][0]["text"])
