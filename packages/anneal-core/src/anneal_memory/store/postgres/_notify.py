"""``on_audit_event`` on PostgreSQL: each entry handed over once its transaction commits.

Entries are appended inside the change's own transaction, so the callback cannot run at the
append: the transaction may still roll back. The notifier keeps each connection's appended
entries until its outermost transaction ends; a commit hands them to the callback in order,
a rollback (of the transaction, or of the savepoint they were appended in) drops them.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["AuditNotifier", "ended"]

EventCallback = Callable[[dict[str, Any]], None]
Connection = Any
"""A ``psycopg.Connection`` (not imported here: the core names psycopg only where it uses it)."""


def _log() -> logging.Logger:
    return logging.getLogger("anneal_memory.audit")


class AuditNotifier:
    """Holds each connection's uncommitted entries and calls ``callback`` after commit.

    Args:
        callback: Called with each entry dict after its transaction committed; its errors are
            logged, as on SQLite, never raised into the change that committed.
    """

    def __init__(self, callback: EventCallback) -> None:
        self._callback = callback
        self._pending: dict[int, list[dict[str, Any]]] = {}

    def add(self, conn: Connection, entry: dict[str, Any]) -> None:
        """Keep ``entry``, appended in ``conn``'s open transaction."""
        self._pending.setdefault(id(conn), []).append(entry)

    def mark(self, conn: Connection) -> int:
        """How many entries ``conn`` holds now (where a (sub)transaction starts)."""
        return len(self._pending.get(id(conn), ()))

    def end(self, conn: Connection, mark: int, *, committed: bool) -> None:
        """A (sub)transaction of ``conn`` begun at ``mark`` ended."""
        held = self._pending.get(id(conn))
        if held is None:
            return
        if not committed:
            del held[mark:]
        elif _idle(conn):
            del self._pending[id(conn)]
            self._notify(held)
            return
        if not held:
            del self._pending[id(conn)]

    def _notify(self, entries: list[dict[str, Any]]) -> None:
        for entry in entries:
            try:
                self._callback(entry)
            except Exception:
                _log().exception("audit on_event callback failed (entry seq %s)", entry["seq"])


def _idle(conn: Connection) -> bool:
    return bool(conn.info.transaction_status.name == "IDLE")


@contextlib.contextmanager
def ended(notifier: AuditNotifier | None, conn: Connection) -> Iterator[None]:
    """Wrap one ``conn.transaction()`` block: hand over or drop its entries when it ends.

    Entered outside the transaction block, so the commit has happened when it exits.
    """
    if notifier is None:
        yield
        return
    mark = notifier.mark(conn)
    try:
        yield
    except BaseException:
        notifier.end(conn, mark, committed=False)
        raise
    notifier.end(conn, mark, committed=True)
