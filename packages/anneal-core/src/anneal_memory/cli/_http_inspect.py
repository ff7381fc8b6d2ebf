"""The inspector under ``serve --http``: ``/inspect/``, each bearer token reading its scope.

The page is the one ``anneal-memory inspect`` serves; here the token file decides which
scope's store a request reads, and each scope's store is opened a second time, read-only, so
the inspector never writes whatever the MCP tools of the same server do.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from anneal_memory.inspect import InspectorApp
    from anneal_memory.mcp._http._tokens import TokenFile
    from anneal_memory.store import Store

__all__ = ["INSPECT_PREFIX", "http_inspector"]

INSPECT_PREFIX = "/inspect"


def http_inspector(
    tokens: TokenFile, target: Path | str, project_name: str, origins: frozenset[str]
) -> InspectorApp:
    """The inspector app of a ``serve --http`` server over ``target`` (a path or a URL)."""
    from anneal_memory.inspect import InspectorApp, InspectSettings, TokenScopes
    from anneal_memory.mcp._http._scopes import scope_path

    def scope_of(bearer: str) -> str | None:
        found = tokens.authenticate(bearer)
        return None if found is None else found.scope

    def open_scope(scope: str) -> Store:
        from anneal_memory.store import Store

        return Store(scope_path(target, scope), project_name=project_name, read_only=True)

    settings = InspectSettings(prefix=INSPECT_PREFIX, allowed_origins=origins)
    return InspectorApp(TokenScopes(scope_of, open_scope), settings)
