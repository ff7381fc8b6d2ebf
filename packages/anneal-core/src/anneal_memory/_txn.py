"""Transactions on a store for the rooms above it (crystal/, spores/).

``writing`` holds the store's thread lock and one ``BEGIN IMMEDIATE`` transaction (on
PostgreSQL: one transaction under the store's exclusive advisory lock); ``reading`` holds the
thread lock around reads of the shared connection.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator

from anneal_memory.store import Store
from anneal_memory.store._target import file_of
from anneal_memory.store.sqlite._connection import write_transaction

__all__ = ["reading", "writing"]


@contextlib.contextmanager
def writing(store: Store, operation: str) -> Iterator[sqlite3.Connection]:
    """The store's connection inside one write transaction, committed on success.

    Audit entries emitted inside the block are staged in the same transaction and appended
    to the trail once it has committed.
    """
    with store._lock:
        conn = store.connection(operation)
        with write_transaction(conn, operation=operation, path=file_of(store)):
            yield conn
        store.flush_audit()


@contextlib.contextmanager
def reading(store: Store, operation: str) -> Iterator[sqlite3.Connection]:
    """The store's connection, held for this thread."""
    with store._lock:
        yield store.connection(operation)
