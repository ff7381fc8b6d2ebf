"""Which backend a ``Store`` opens: a PostgreSQL URL's, else a SQLite file's.

The PostgreSQL backend (and psycopg) is imported only when a URL is opened.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from anneal_memory.errors import BackendNotSupportedError
from anneal_memory.store._contract import Backend
from anneal_memory.store._target import is_database_url

__all__ = ["open_backend", "refuse_options"]


def open_backend(target: str | os.PathLike[str], options: Mapping[str, Any]) -> Backend:
    """Open the backend ``target`` names with the facade's checked ``options``.

    Raises:
        StoreDatabaseError: The store could not be opened (see ``Store``).
        StoreError: A PostgreSQL URL without the ``[postgres]`` extra installed.
    """
    if is_database_url(target):
        from anneal_memory.store.postgres._backend import PostgresBackend

        return PostgresBackend(str(target), **options)
    from anneal_memory.store.sqlite._backend import SqliteBackend

    return SqliteBackend(Path(target).expanduser().absolute(), **options)


def refuse_options(target: object, options: Mapping[str, Any]) -> None:
    """Refuse keyword options ``Store`` does not have (on PostgreSQL: SQLite-only ones).

    Raises:
        BackendNotSupportedError: ``target`` is a PostgreSQL URL.
        TypeError: ``target`` is a file path (as for any unknown keyword).
    """
    for name in options:
        if is_database_url(target):
            raise BackendNotSupportedError(f"Store({name}=...)")
        raise TypeError(f"Store() got an unexpected keyword argument {name!r}")
