"""The unit of work of the rooms above ``store/``: ``store.writing(op)``, ``store.reading(op)``.

``writing`` takes the store's lock, opens one write transaction and hands over a :class:`Tx`:
its ``conn`` runs the rooms' SQL, ``tx.audit(...)`` stages audit entries in the same
transaction. They are appended to the trail once the transaction has committed, never
otherwise. ``reading`` takes the lock and hands over a :class:`Reader` for reads.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from anneal_memory.audit._intents import StagedEntry
from anneal_memory.store import _dialect
from anneal_memory.store._target import file_of
from anneal_memory.store.sqlite._connection import read_guard, write_transaction

__all__ = ["Reader", "Tx", "UnitOfWork"]

StageAudit = Callable[..., "StagedEntry | None"]


class Reader:
    """Reads inside ``store.reading(operation)``: ``conn`` is the store's connection."""

    __slots__ = ("conn", "operation")

    def __init__(self, conn: sqlite3.Connection, operation: str) -> None:
        self.conn = conn
        self.operation = operation

    def episode_total(self) -> int:
        """How many live episodes the store holds."""
        return _dialect.episode_total(self.conn)

    def word_match_count(self, word: str, cap: int) -> int:
        """How many episodes hold ``word`` (stemmed as the full-text index stems), up to ``cap``.

        ``word`` must be letters and digits only: it becomes one literal full-text term.
        """
        return _dialect.word_match_count(self.conn, word, cap)


class Tx(Reader):
    """One write transaction inside ``store.writing(operation)``."""

    __slots__ = ("_stage", "staged")

    def __init__(self, conn: sqlite3.Connection, operation: str, stage: StageAudit) -> None:
        super().__init__(conn, operation)
        self._stage = stage
        self.staged: list[StagedEntry] = []

    def inserted_id(self, sql: str, params: Sequence[object], column: str) -> int:
        """Run one ``INSERT`` and return the new row's integer key ``column``."""
        return _dialect.inserted_id(self.conn, sql, params, column)

    def audit(self, event: str, *, actor: str, data: Mapping[str, Any]) -> None:
        """Stage one audit entry; it is appended after this transaction commits.

        Without an audit trail (``audit=False``, ``read_only=True``) it does nothing.

        Raises:
            InvalidInputError: ``event`` is outside the audit vocabulary.
        """
        entry = self._stage(self.conn, event, actor=actor, data=data)
        if entry is not None:
            self.staged.append(entry)


class UnitOfWork:
    """``Store.writing`` and ``Store.reading`` (a mixin of ``Store``)."""

    _lock: threading.RLock

    def connection(self, operation: str) -> sqlite3.Connection:
        """The open connection (the store's)."""
        raise NotImplementedError

    def stage_audit(
        self, conn: sqlite3.Connection, event: str, *, actor: str, data: Mapping[str, Any]
    ) -> StagedEntry | None:
        """Stage one audit entry in ``conn``'s open transaction (the store's)."""
        raise NotImplementedError

    def flush_audit(self, committed: Sequence[StagedEntry | None] = ()) -> None:
        """Append staged entries after their commit (the store's)."""
        raise NotImplementedError

    @contextlib.contextmanager
    def writing(self, operation: str, *, durable: bool = True) -> Iterator[Tx]:
        """One unit of work: the store's lock and one write transaction, committed on success.

        Entries staged with ``tx.audit(...)`` are appended to the audit trail after the commit,
        never after a rollback. ``durable=False`` skips the commit's fsync (for writes whose
        loss on power failure is harmless and visible). For the library's own modules.

        Raises:
            StoreClosedError: The store was closed.
            StoreDatabaseError: The database failed or stayed locked; nothing was written.
        """
        with self._lock:
            conn = self.connection(operation)
            tx = Tx(conn, operation, self.stage_audit)
            with write_transaction(conn, operation=operation, path=file_of(self), durable=durable):
                yield tx
            self.flush_audit(tx.staged)

    @contextlib.contextmanager
    def reading(self, operation: str) -> Iterator[Reader]:
        """Reads under the store's lock; database errors become ``StoreDatabaseError``.

        Raises:
            StoreClosedError: The store was closed.
            StoreDatabaseError: The database failed.
        """
        with self._lock:
            conn = self.connection(operation)
            with read_guard(conn, operation=operation, path=file_of(self)):
                yield Reader(conn, operation)
