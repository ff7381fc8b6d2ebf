"""The MCP server: a pure ``handle(line) -> reply | None`` and one stdio loop around it.

``McpServer.handle`` takes one line as read from the client and returns the reply to write,
or None (notifications, responses, blank lines). It never writes to stdout itself; the only
I/O loop is :func:`serve_stdio`. The store is opened on the first call that needs it, so
``initialize`` and ``tools/list`` answer without touching the database.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import IO, TYPE_CHECKING, Any, NamedTuple

from anneal_memory.errors import AnnealMemoryError
from anneal_memory.mcp import _jsonrpc as rpc
from anneal_memory.mcp import _resources
from anneal_memory.mcp._arguments import check_arguments
from anneal_memory.mcp._tools import TOOLS, Tool

if TYPE_CHECKING:
    from pathlib import Path

    from anneal_memory._clock import Clock
    from anneal_memory.store import Store

__all__ = [
    "LATEST_PROTOCOL_VERSION",
    "SUPPORTED_PROTOCOL_VERSIONS",
    "McpServer",
    "ServerConfig",
    "serve_stdio",
]

SUPPORTED_PROTOCOL_VERSIONS: tuple[str, ...] = (
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
)
LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[-1]

SERVER_NAME = "anneal-memory"
INSTRUCTIONS = (
    "Long-term memory for this agent. At the start of a session read the resource "
    "anneal://continuity. While you work, call record for each decision, observation, "
    "tension, question or outcome worth keeping, and recall before decisions that past "
    "experience could inform. At the end of the session call prepare_wrap, compress the "
    "package it returns into the continuity document it describes, and pass that text with "
    "the wrap token to save_continuity."
)


def _stderr_log(text: str) -> None:
    sys.stderr.write(text if text.endswith("\n") else text + "\n")
    sys.stderr.flush()


def _traceback() -> str:
    import traceback

    return traceback.format_exc()


# A NamedTuple, not a dataclass: ``dataclasses`` imports ``inspect`` and would add ~10 ms
# to the server's start-up, which clients wait for.
class ServerConfig(NamedTuple):
    """How the server opens its store and whom it speaks for.

    Attributes:
        db_path: The database file (created on first use when missing).
        project_name: The agent's name, used in the continuity header.
        session_id: This server's session id for the wrap gate (``serve --session-id`` or
            ``ANNEAL_MEMORY_SESSION_ID``); never taken from a tool argument.
        source: The source recorded on every episode written through this server.
        clock: Where the store takes time from (tests pass a frozen clock).
        tools: The tool table.
        log: Where diagnostics go (stderr by default; never stdout).
    """

    db_path: Path
    project_name: str = "Agent"
    session_id: str | None = None
    source: str = "agent"
    clock: Clock | None = None
    tools: tuple[Tool, ...] = TOOLS
    log: Callable[[str], None] = _stderr_log


def _negotiate(params: Mapping[str, Any]) -> str:
    requested = params.get("protocolVersion")
    if not isinstance(requested, str):
        raise rpc.ProtocolError(
            code=rpc.INVALID_PARAMS, message="Invalid params: protocolVersion must be a string"
        )
    return requested if requested in SUPPORTED_PROTOCOL_VERSIONS else LATEST_PROTOCOL_VERSION


def _text_result(text: str, *, is_error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


class McpServer:
    """Answers MCP requests for one store.

    Args:
        config: The server's settings.
        store: An already open store to serve (tests); otherwise one is opened from
            ``config.db_path`` on first use and closed by :meth:`close`.
    """

    def __init__(self, config: ServerConfig, *, store: Store | None = None) -> None:
        self.config = config
        self._store = store
        self._owns_store = store is None
        self._tools: dict[str, Tool] = {tool.name: tool for tool in config.tools}
        self._methods: dict[str, Callable[[Mapping[str, Any]], Mapping[str, Any]]] = {
            "initialize": self._initialize,
            "ping": lambda _params: {},
            "tools/list": self._tools_list,
            "tools/call": self._tools_call,
            "resources/list": lambda _params: {"resources": list(_resources.RESOURCES)},
            "resources/templates/list": lambda _params: {"resourceTemplates": []},
            "resources/read": self._resources_read,
        }

    # -- ToolContext ---------------------------------------------------------------------------

    @property
    def store(self) -> Store:
        """The store, opened (and on creation given the baton policy) on first use."""
        if self._store is None:
            from anneal_memory.store import Store

            opened = Store(
                self.config.db_path,
                project_name=self.config.project_name,
                clock=self.config.clock,
            )
            if opened.created:
                _resources.enable_baton_policy(opened)
            self._store = opened
        return self._store

    @property
    def session_id(self) -> str | None:
        """The configured session id."""
        return self.config.session_id

    @property
    def source(self) -> str:
        """The source recorded on episodes written through this server."""
        return self.config.source

    def close(self) -> None:
        """Close the store if this server opened it."""
        if self._store is not None and self._owns_store:
            self._store.close()
            self._store = None

    # -- dispatch ------------------------------------------------------------------------------

    def handle(self, line: bytes | str) -> dict[str, Any] | None:
        """Answer one line from the client.

        Args:
            line: One JSON-RPC message as read (bytes or text, line ending optional).

        Returns:
            The reply to send, or None when nothing is to be sent.
        """
        try:
            message = rpc.decode(line)
        except rpc.ProtocolError as exc:
            return exc.reply()
        if message is None or message.id is None:
            return None
        return self._dispatch(message.method, message.params, message.id)

    def _dispatch(
        self, name: str, params: Mapping[str, Any], request_id: rpc.RequestId
    ) -> dict[str, Any]:
        method = self._methods.get(name)
        if method is None:
            return rpc.error_response(request_id, rpc.METHOD_NOT_FOUND, f"Method not found: {name}")
        try:
            return rpc.result_response(request_id, method(params))
        except rpc.ProtocolError as exc:
            return rpc.error_response(request_id, exc.code, exc.message)
        except (AnnealMemoryError, OSError) as exc:
            return rpc.error_response(request_id, rpc.INTERNAL_ERROR, f"Internal error: {exc}")
        except Exception as exc:  # a bug must not end the session; the client gets -32603
            self.config.log(_traceback())
            return rpc.error_response(
                request_id, rpc.INTERNAL_ERROR, f"Internal error: {type(exc).__name__}: {exc}"
            )

    def _initialize(self, params: Mapping[str, Any]) -> Mapping[str, Any]:
        from anneal_memory import __version__

        return {
            "protocolVersion": _negotiate(params),
            "capabilities": {
                "tools": {"listChanged": False},
                "resources": {"subscribe": False, "listChanged": False},
            },
            "serverInfo": {"name": SERVER_NAME, "version": __version__},
            "instructions": INSTRUCTIONS,
        }

    def _tools_list(self, params: Mapping[str, Any]) -> Mapping[str, Any]:
        return {"tools": [tool.to_dict() for tool in self._tools.values()]}

    def _tools_call(self, params: Mapping[str, Any]) -> Mapping[str, Any]:
        name = params.get("name")
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(name, str) or not isinstance(arguments, dict):
            raise rpc.ProtocolError(
                code=rpc.INVALID_PARAMS,
                message="Invalid params: tools/call needs a string name and an object arguments",
            )
        tool = self._tools.get(name)
        if tool is None:
            known = ", ".join(self._tools)
            raise rpc.ProtocolError(
                code=rpc.INVALID_PARAMS, message=f"Unknown tool: {name} (tools: {known})"
            )
        problems = check_arguments(tool.input_schema, arguments)
        if problems:
            return _text_result(
                f"Error: invalid arguments for {name}: {'; '.join(problems)}", is_error=True
            )
        return self._run_tool(tool, arguments)

    def _run_tool(self, tool: Tool, arguments: Mapping[str, Any]) -> Mapping[str, Any]:
        try:
            return _text_result(tool.handler(self, arguments))
        except (AnnealMemoryError, ValueError, OSError) as exc:
            return _text_result(f"Error: {exc}", is_error=True)
        except Exception as exc:  # keep serving; the traceback goes to stderr only
            self.config.log(_traceback())
            return _text_result(
                f"Error: {tool.name} failed unexpectedly ({type(exc).__name__}: {exc})",
                is_error=True,
            )

    def _resources_read(self, params: Mapping[str, Any]) -> Mapping[str, Any]:
        uri = params.get("uri")
        if not isinstance(uri, str):
            raise rpc.ProtocolError(
                code=rpc.INVALID_PARAMS, message="Invalid params: uri must be a string"
            )
        content = _resources.read(self, uri)
        if content is None:
            raise rpc.ProtocolError(
                code=rpc.RESOURCE_NOT_FOUND, message=f"Resource not found: {uri}"
            )
        return {"contents": [content]}


def serve_stdio(
    server: McpServer,
    stdin: IO[bytes] | None = None,
    stdout: IO[bytes] | None = None,
) -> int:
    """Serve requests line by line until the input ends; the only I/O loop of the server.

    Returns:
        0 when the input ended (the client closed the pipe).
    """
    reader = stdin if stdin is not None else sys.stdin.buffer
    writer = stdout if stdout is not None else sys.stdout.buffer
    try:
        while True:
            try:
                line = rpc.read_line(reader)
            except rpc.ProtocolError as exc:
                reply = exc.reply()
            else:
                if line is None:
                    return 0
                reply = server.handle(line)
            if reply is not None:
                rpc.write_message(writer, reply)
    except (BrokenPipeError, KeyboardInterrupt):
        return 0
    finally:
        server.close()
