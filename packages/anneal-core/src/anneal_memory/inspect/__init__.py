"""The memory inspector: a read-only web page over one store, served on the loopback.

``anneal-memory inspect`` serves it with a random token in its URL; ``serve --http`` serves it
at ``/inspect/`` behind its bearer tokens. The page (``static/``) holds no data; it reads the
JSON API of :class:`InspectorApp`, whose endpoints only read (the stores it opens are
``read_only=True``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anneal_memory._lazy import lazy_exports

if TYPE_CHECKING:
    from anneal_memory.inspect._access import SingleStore, TokenScopes
    from anneal_memory.inspect._app import ENDPOINTS, InspectorApp, InspectSettings, StoreAccess
    from anneal_memory.inspect._mount import Mount

_EXPORTS: dict[str, str] = {
    "ENDPOINTS": "anneal_memory.inspect._app",
    "InspectSettings": "anneal_memory.inspect._app",
    "InspectorApp": "anneal_memory.inspect._app",
    "Mount": "anneal_memory.inspect._mount",
    "SingleStore": "anneal_memory.inspect._access",
    "StoreAccess": "anneal_memory.inspect._app",
    "TokenScopes": "anneal_memory.inspect._access",
}

__all__ = [
    "ENDPOINTS",
    "InspectSettings",
    "InspectorApp",
    "Mount",
    "SingleStore",
    "StoreAccess",
    "TokenScopes",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
