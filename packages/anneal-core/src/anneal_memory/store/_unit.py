"""The unit of work of the rooms above ``store/``: ``store.writing(op)``, ``store.reading(op)``.

``writing`` takes the store's lock, opens one write transaction and hands over a :class:`Tx`:
its ``conn`` runs the rooms' SQL, ``tx.audit(...)`` stages audit entries in the same
transaction. They are appended to the trail once the transaction has committed, never
otherwise. ``reading`` takes the lock and hands over a :class:`Reader` for reads. Both
backends build these same two classes (the types are declared in ``_contract.py``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from anneal_memory.store._contract import Dialect, SqlConnection

if TYPE_CHECKING:
    from anneal_memory.store import _contract

__all__ = ["Reader", "Stage", "Tx", "UnitOfWork"]

Stage = Callable[..., object]
"""``stage(conn, event, *, actor=, data=)``: stage one entry; what to flush after the commit."""


class Reader:
    """Reads inside ``store.reading(operation)``: ``conn`` is the store's connection."""

    __slots__ = ("conn", "dialect", "operation")

    def __init__(self, conn: SqlConnection, dialect: Dialect, operation: str) -> None:
        self.conn = conn
        self.dialect = dialect
        self.operation = operation

    def episode_total(self) -> int:
        """How many live episodes the store holds."""
        return self.dialect.episode_total()

    def word_match_count(self, word: str, cap: int) -> int:
        """How many episodes hold ``word`` (stemmed as the full-text index stems), up to ``cap``.

        ``word`` must be letters and digits only: it becomes one literal full-text term.
        """
        return self.dialect.word_match_count(word, cap)


class Tx(Reader):
    """One write transaction inside ``store.writing(operation)``."""

    __slots__ = ("_stage", "staged")

    def __init__(
        self, conn: SqlConnection, dialect: Dialect, operation: str, stage: Stage | None
    ) -> None:
        super().__init__(conn, dialect, operation)
        self._stage = stage
        self.staged: list[object] = []

    def inserted_id(self, sql: str, params: Sequence[object], column: str) -> int:
        """Run one ``INSERT`` and return the new row's integer key ``column``."""
        return self.dialect.inserted_id(sql, params, column)

    def audit(self, event: str, *, actor: str, data: Mapping[str, Any]) -> None:
        """Stage one audit entry; it is appended after this transaction commits.

        Without an audit trail (``audit=False``, ``read_only=True``) it does nothing.

        Raises:
            InvalidInputError: ``event`` is outside the audit vocabulary.
        """
        if self._stage is None:
            return
        entry = self._stage(self.conn, event, actor=actor, data=data)
        if entry is not None:
            self.staged.append(entry)


class UnitOfWork:
    """``Store.writing`` and ``Store.reading`` (a mixin of ``Store``)."""

    if TYPE_CHECKING:
        _backend: _contract.Backend

    def writing(
        self, operation: str, *, durable: bool = True
    ) -> contextlib.AbstractContextManager[_contract.Tx]:
        """One unit of work: the store's lock and one write transaction, committed on success.

        Entries staged with ``tx.audit(...)`` are appended to the audit trail after the commit,
        never after a rollback. ``durable=False`` skips the commit's fsync (for writes whose
        loss on power failure is harmless and visible), except where the entries ``tx.audit``
        staged go to a trail file after the commit (SQLite): then the commit is flushed to
        disk before they are appended. For the library's own modules.

        Raises:
            StoreClosedError: The store was closed.
            StoreDatabaseError: The database failed or stayed locked; nothing was written.
        """
        return self._backend.writing(operation, durable=durable)

    def reading(self, operation: str) -> contextlib.AbstractContextManager[_contract.Reader]:
        """Reads under the store's lock; database errors become ``StoreDatabaseError``.

        Raises:
            StoreClosedError: The store was closed.
            StoreDatabaseError: The database failed.
        """
        return self._backend.reading(operation)
