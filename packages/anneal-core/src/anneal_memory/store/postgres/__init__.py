"""The PostgreSQL backend of ``Store`` (the optional ``anneal-memory[postgres]`` extra).

``Store("postgresql://...")`` returns a :class:`~anneal_memory.store.postgres._store.PgStore`.
The SQL dialect lives in this package alone; psycopg is imported only when a store is
opened, so SQLite users never import it. What works and what raises
:class:`~anneal_memory.errors.BackendNotSupportedError` is listed in ``docs/teams.md``.
"""

from __future__ import annotations

__all__ = ["backend_class"]


def backend_class() -> type:
    """The ``Store`` subclass serving PostgreSQL URLs."""
    from anneal_memory.store.postgres._store import PgStore

    return PgStore
