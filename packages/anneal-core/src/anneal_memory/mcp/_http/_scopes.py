"""Which store and which server answer a token: one store per scope, one server per token.

The ``default`` scope is the ``--db`` store; scope ``S`` is the store ``<db>.scopes/S.db``
beside it (created on first use, folder 0700), or on a PostgreSQL ``--db`` URL the schema
``S`` of that database, so scopes never see each other's episodes, continuity or gate.
A token's server is an :class:`McpServer` over its scope's store with the token's session
id and its name as the source of the episodes it records.
"""

from __future__ import annotations

import threading
import urllib.parse
from pathlib import Path
from typing import TYPE_CHECKING

from anneal_memory.mcp import _resources
from anneal_memory.mcp._server import McpServer, ServerConfig

if TYPE_CHECKING:
    from anneal_memory._clock import Clock
    from anneal_memory.mcp._http._tokens import HttpToken
    from anneal_memory.mcp._tools import Tool
    from anneal_memory.store import Store

__all__ = ["DEFAULT_SCOPE", "ScopeServers", "scope_path"]

DEFAULT_SCOPE = "default"


def scope_path(db_path: Path | str, scope: str) -> Path | str:
    """The store of ``scope`` for a server whose ``--db`` is ``db_path`` (a path or a URL)."""
    if scope == DEFAULT_SCOPE:
        return db_path
    if isinstance(db_path, str):
        options = urllib.parse.quote(f"-csearch_path={scope}")
        return f"{db_path}{'&' if '?' in db_path else '?'}options={options}"
    return db_path.with_name(db_path.name + ".scopes") / f"{scope}.db"


class ScopeServers:
    """Opens each scope's store once and keeps one server per token, thread-safely.

    Args:
        db_path: The ``--db`` store (the ``default`` scope): a path, or a PostgreSQL URL.
        project_name: The agent's name for the continuity header.
        tools: The tool table served.
        clock: Where stores take time from (None: the system clock).
    """

    def __init__(
        self,
        db_path: Path | str,
        *,
        project_name: str,
        tools: tuple[Tool, ...],
        clock: Clock | None = None,
    ) -> None:
        self._db_path = db_path
        self._project_name = project_name
        self._tools = tools
        self._clock = clock
        self._lock = threading.Lock()
        self._stores: dict[str, Store] = {}
        self._servers: dict[tuple[str, str, str], McpServer] = {}

    def _store(self, scope: str) -> Store:
        store = self._stores.get(scope)
        if store is None:
            from anneal_memory.store import Store

            store = Store(
                scope_path(self._db_path, scope),
                project_name=self._project_name,
                clock=self._clock,
            )
            if store.created:
                _resources.enable_baton_policy(store)
            self._stores[scope] = store
        return store

    def server_for(self, token: HttpToken) -> McpServer:
        """The server answering ``token`` (its scope's store opened on first use)."""
        key = (token.name, token.scope, token.session_id)
        with self._lock:
            server = self._servers.get(key)
            if server is None:
                config = ServerConfig(
                    db_path=Path(str(scope_path(self._db_path, token.scope))),
                    project_name=self._project_name,
                    session_id=token.session_id,
                    source=token.name,
                    clock=self._clock,
                    tools=self._tools,
                )
                server = McpServer(config, store=self._store(token.scope))
                self._servers[key] = server
            return server

    def open_default(self) -> None:
        """Open the ``default`` scope's store now (a bad URL fails before serving)."""
        with self._lock:
            self._store(DEFAULT_SCOPE)

    def close(self) -> None:
        """Close every store opened."""
        with self._lock:
            for store in self._stores.values():
                store.close()
            self._stores.clear()
            self._servers.clear()
