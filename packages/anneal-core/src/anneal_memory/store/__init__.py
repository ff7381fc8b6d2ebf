"""The store: one ``Store`` facade over its SQLite or PostgreSQL backend, and the unit of work.

The rooms above ``store/`` (gate, continuity, crystal, spores, the CLI, ...) use only the
names exported here and by the room packages (``store.wraps``, ``store.provenance``,
``store.recall``): a unit of work (``Store.writing``/``Store.reading``, whose ``Tx`` and
``Reader`` they annotate with, and ``SqlConnection`` for the SQL they run on ``tx.conn``), and
the store's own functions. They never import a private module of ``store/``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anneal_memory._lazy import lazy_exports

if TYPE_CHECKING:
    from anneal_memory.store._contract import Reader, SqlConnection, Tx
    from anneal_memory.store._episodes import episode_column, set_meta
    from anneal_memory.store._params import in_chunks
    from anneal_memory.store._policy import POLICY_KEY, write_policy
    from anneal_memory.store._reports import (
        EpisodeStats,
        PrunePreview,
        episode_stats,
        prune_preview,
    )
    from anneal_memory.store._scope_erase import ScopeErasure
    from anneal_memory.store._store import DEFAULT_PROJECT_NAME, Store
    from anneal_memory.store._target import database_url, is_database_url, location_of
    from anneal_memory.store._validate import MAX_CONTENT_BYTES, MAX_SOURCE_CHARS, validate_scope
    from anneal_memory.store.sqlite._check import CheckProblem, CheckReport
    from anneal_memory.store.sqlite._open import discard_created, refuse_newer_schema

_EXPORTS: dict[str, str] = {
    "CheckProblem": "anneal_memory.store.sqlite._check",
    "CheckReport": "anneal_memory.store.sqlite._check",
    "DEFAULT_PROJECT_NAME": "anneal_memory.store._store",
    "EpisodeStats": "anneal_memory.store._reports",
    "MAX_CONTENT_BYTES": "anneal_memory.store._validate",
    "MAX_SOURCE_CHARS": "anneal_memory.store._validate",
    "POLICY_KEY": "anneal_memory.store._policy",
    "PrunePreview": "anneal_memory.store._reports",
    "Reader": "anneal_memory.store._contract",
    "ScopeErasure": "anneal_memory.store._scope_erase",
    "SqlConnection": "anneal_memory.store._contract",
    "Store": "anneal_memory.store._store",
    "Tx": "anneal_memory.store._contract",
    "database_url": "anneal_memory.store._target",
    "discard_created": "anneal_memory.store.sqlite._open",
    "episode_column": "anneal_memory.store._episodes",
    "episode_stats": "anneal_memory.store._reports",
    "in_chunks": "anneal_memory.store._params",
    "is_database_url": "anneal_memory.store._target",
    "location_of": "anneal_memory.store._target",
    "prune_preview": "anneal_memory.store._reports",
    "refuse_newer_schema": "anneal_memory.store.sqlite._open",
    "set_meta": "anneal_memory.store._episodes",
    "validate_scope": "anneal_memory.store._validate",
    "write_policy": "anneal_memory.store._policy",
}

__all__ = [
    "DEFAULT_PROJECT_NAME",
    "MAX_CONTENT_BYTES",
    "MAX_SOURCE_CHARS",
    "POLICY_KEY",
    "CheckProblem",
    "CheckReport",
    "EpisodeStats",
    "PrunePreview",
    "Reader",
    "ScopeErasure",
    "SqlConnection",
    "Store",
    "Tx",
    "database_url",
    "discard_created",
    "episode_column",
    "episode_stats",
    "in_chunks",
    "is_database_url",
    "location_of",
    "prune_preview",
    "refuse_newer_schema",
    "set_meta",
    "validate_scope",
    "write_policy",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
