"""The MCP server: a pure ``handle(line) -> reply | None`` and one stdio loop around it.

``McpServer.handle`` takes one line as read from the client and returns the reply to write,
or None (notifications, responses, blank lines). It never writes to stdout itself; the only
I/O loop is :func:`serve_stdio`. The store is opened on the first call that needs it, so
``initialize``, ``server/discover`` and ``tools/list`` answer without touching the database.
Both protocol eras go through the same methods; :mod:`anneal_memory.mcp._eras` decides each
request's era and finishes a 2026-07-28 result.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import IO, TYPE_CHECKING, Any, NamedTuple

from anneal_memory.errors import AnnealMemoryError
from anneal_memory.mcp import _eras, _resources
from anneal_memory.mcp import _jsonrpc as rpc
from anneal_memory.mcp._arguments import check_arguments, normalize_arguments
from anneal_memory.mcp._toolkit import ToolReply
from anneal_memory.mcp._tools import TOOLS, Tool

if TYPE_CHECKING:
    from pathlib import Path

    from anneal_memory._clock import Clock
    from anneal_memory.agent._echoes import SurfacedEpisodes
    from anneal_memory.store import Store

__all__ = [
    "LATEST_PROTOCOL_VERSION",
    "MODERN_PROTOCOL_VERSIONS",
    "SUPPORTED_PROTOCOL_VERSIONS",
    "McpServer",
    "ServerConfig",
    "serve_stdio",
]

SUPPORTED_PROTOCOL_VERSIONS: tuple[str, ...] = _eras.LEGACY_PROTOCOL_VERSIONS
"""The versions ``initialize`` negotiates (the handshake era)."""
LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[-1]
MODERN_PROTOCOL_VERSIONS: tuple[str, ...] = _eras.MODERN_PROTOCOL_VERSIONS
"""The stateless versions served per request (``_meta``), without a handshake."""

SERVER_NAME = "anneal-memory"
INSTRUCTIONS = (
    "Long-term memory for this agent. At the start of a session read the resource "
    "anneal://continuity (or call read_continuity). While you work, call record for each "
    "decision, observation, tension, question or outcome worth keeping, and recall before "
    "decisions that past experience could inform. At the end of the session call "
    "prepare_wrap, compress the package it returns into the continuity document it "
    "describes, and pass that text with the wrap token to save_continuity."
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
        scope: The scope this server works in (``serve --scope``): it records into it, recalls
            from it and wraps it. "" (the default) records and wraps the shared scope and
            recalls across every scope.
        url: A PostgreSQL URL to serve instead of ``db_path`` (``serve --db URL``); None
            serves the SQLite file.
    """

    db_path: Path
    project_name: str = "Agent"
    session_id: str | None = None
    source: str = "agent"
    clock: Clock | None = None
    tools: tuple[Tool, ...] = TOOLS
    log: Callable[[str], None] = _stderr_log
    scope: str = ""
    url: str | None = None


_CAPABILITIES: Mapping[str, Any] = {
    "tools": {"listChanged": False},
    "resources": {"subscribe": False, "listChanged": False},
}
_LEGACY_ONLY = frozenset({"ping"})


def _negotiate(params: Mapping[str, Any]) -> str:
    requested = params.get("protocolVersion")
    if not isinstance(requested, str):
        raise rpc.ProtocolError(
            code=rpc.INVALID_PARAMS, message="Invalid params: protocolVersion must be a string"
        )
    return requested if requested in SUPPORTED_PROTOCOL_VERSIONS else LATEST_PROTOCOL_VERSION


def _text_result(text: str, *, is_error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


def _tool_result(reply: str | ToolReply) -> dict[str, Any]:
    if isinstance(reply, str):
        return _text_result(reply)
    result = _text_result(reply.text)
    result["structuredContent"] = dict(reply.structured)
    return result


def _discover_needs_meta(params: Mapping[str, Any]) -> rpc.ProtocolError:
    return rpc.ProtocolError(
        code=rpc.INVALID_PARAMS,
        message=(
            "Invalid params: server/discover needs _meta with "
            f"{_eras.PROTOCOL_KEY} (one of {', '.join(_eras.MODERN_PROTOCOL_VERSIONS)}) and "
            f"{_eras.CAPABILITIES_KEY}; handshake-era clients call initialize"
        ),
    )


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
        self._surfaced: SurfacedEpisodes | None = None
        self._tools: dict[str, Tool] = {tool.name: tool for tool in config.tools}
        self._methods: dict[str, Callable[[Mapping[str, Any]], Mapping[str, Any]]] = {
            "initialize": self._initialize,
            "server/discover": self._discover,
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
            from anneal_memory.errors import StoreError
            from anneal_memory.store import Store

            if self.config.url is None and self.config.db_path.is_dir():
                raise StoreError(
                    f"the database {self.config.db_path} is a directory; configure the path "
                    "of a database file",
                    operation="open",
                    path=self.config.db_path,
                )

            opened = Store(
                self.config.url or self.config.db_path,
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

    @property
    def scope(self) -> str:
        """The scope this server records into, recalls from and wraps."""
        return self.config.scope

    @property
    def surfaced(self) -> SurfacedEpisodes:
        """The episodes ``recall`` showed this session (made on first use)."""
        if self._surfaced is None:
            from anneal_memory.agent._echoes import SurfacedEpisodes

            self._surfaced = SurfacedEpisodes()
        return self._surfaced

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

    def _method(self, name: str, era: str | None) -> Callable[[Mapping[str, Any]], Any]:
        method = self._methods.get(name)
        if method is None or (era is not None and name in _LEGACY_ONLY):
            removed = f" (not part of {era})" if method is not None else ""
            raise rpc.ProtocolError(
                code=rpc.METHOD_NOT_FOUND, message=f"Method not found: {name}{removed}"
            )
        if era is None and name == "server/discover":
            raise _discover_needs_meta({})
        return method

    def _answer(self, name: str, params: Mapping[str, Any]) -> Mapping[str, Any]:
        era = None if name == "initialize" else _eras.modern_version(params)
        method = self._method(name, era)
        if era is None:
            return method(params)  # type: ignore[no-any-return]
        try:
            result = method(params)
        except rpc.ProtocolError as exc:
            raise _eras.modern_error(exc, params) from None
        return _eras.complete(name, params, result, server_info=self._server_info())

    def _dispatch(
        self, name: str, params: Mapping[str, Any], request_id: rpc.RequestId
    ) -> dict[str, Any]:
        try:
            return rpc.result_response(request_id, self._answer(name, params))
        except rpc.ProtocolError as exc:
            return rpc.error_response(request_id, exc.code, exc.message, data=exc.data)
        except (AnnealMemoryError, OSError) as exc:
            return rpc.error_response(request_id, rpc.INTERNAL_ERROR, f"Internal error: {exc}")
        except Exception as exc:  # a bug must not end the session; the client gets -32603
            self.config.log(_traceback())
            return rpc.error_response(
                request_id, rpc.INTERNAL_ERROR, f"Internal error: {type(exc).__name__}: {exc}"
            )

    def _server_info(self) -> dict[str, str]:
        from anneal_memory import __version__

        return {"name": SERVER_NAME, "version": __version__}

    def _initialize(self, params: Mapping[str, Any]) -> Mapping[str, Any]:
        return {
            "protocolVersion": _negotiate(params),
            "capabilities": _CAPABILITIES,
            "serverInfo": self._server_info(),
            "instructions": INSTRUCTIONS,
        }

    def _discover(self, params: Mapping[str, Any]) -> Mapping[str, Any]:
        return {
            "supportedVersions": _eras.all_versions(),
            "capabilities": {"tools": {}, "resources": {}},
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
        return self._run_tool(tool, normalize_arguments(tool.input_schema, arguments))

    def _run_tool(self, tool: Tool, arguments: Mapping[str, Any]) -> Mapping[str, Any]:
        try:
            return _tool_result(tool.handler(self, arguments))
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
