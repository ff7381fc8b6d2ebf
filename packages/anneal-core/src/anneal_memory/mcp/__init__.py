"""The MCP server over stdio: newline-delimited JSON-RPC 2.0, standard library only.

``anneal-memory --project-name P serve --session-id NAME`` runs it. In code::

    from anneal_memory.mcp import McpServer, ServerConfig

    server = McpServer(ServerConfig(db_path=path, session_id="me"))
    reply = server.handle('{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
"""

from __future__ import annotations

from anneal_memory.mcp._server import (
    LATEST_PROTOCOL_VERSION,
    SUPPORTED_PROTOCOL_VERSIONS,
    McpServer,
    ServerConfig,
    serve_stdio,
)
from anneal_memory.mcp._tools import TOOLS, Tool, ToolContext

__all__ = [
    "LATEST_PROTOCOL_VERSION",
    "SUPPORTED_PROTOCOL_VERSIONS",
    "TOOLS",
    "McpServer",
    "ServerConfig",
    "Tool",
    "ToolContext",
    "serve_stdio",
]
