"""The store: one ``Store`` facade over its SQLite or PostgreSQL backend, and the unit of work."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anneal_memory._lazy import lazy_exports

if TYPE_CHECKING:
    from anneal_memory.store._contract import Reader, SqlConnection, Tx
    from anneal_memory.store._store import DEFAULT_PROJECT_NAME, Store
    from anneal_memory.store._validate import MAX_CONTENT_BYTES
    from anneal_memory.store.sqlite._check import CheckProblem, CheckReport

_EXPORTS: dict[str, str] = {
    "CheckProblem": "anneal_memory.store.sqlite._check",
    "CheckReport": "anneal_memory.store.sqlite._check",
    "DEFAULT_PROJECT_NAME": "anneal_memory.store._store",
    "MAX_CONTENT_BYTES": "anneal_memory.store._validate",
    "Reader": "anneal_memory.store._contract",
    "SqlConnection": "anneal_memory.store._contract",
    "Store": "anneal_memory.store._store",
    "Tx": "anneal_memory.store._contract",
}

__all__ = [
    "DEFAULT_PROJECT_NAME",
    "MAX_CONTENT_BYTES",
    "CheckProblem",
    "CheckReport",
    "Reader",
    "SqlConnection",
    "Store",
    "Tx",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
