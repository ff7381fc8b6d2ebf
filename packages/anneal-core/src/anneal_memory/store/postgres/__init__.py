"""The PostgreSQL backend of ``Store`` (the optional ``anneal-memory[postgres]`` extra).

``Store("postgresql://...")`` holds a :class:`._backend.PostgresBackend`.
The SQL dialect lives in this package alone; psycopg is imported only when a store is
opened, so SQLite users never import it. What works on it is listed in ``docs/teams.md``.
"""

from __future__ import annotations

__all__: list[str] = []
