"""The SQLite audit outbox: stage in the change's transaction, append to the trail after it.

Episode and continuity text never reach the trail, and a name that is not a plain word is
hashed (``store._audit_scrub``, the rule PostgreSQL's audit rows follow too), keyed by a
random per-store salt kept in the database's ``meta`` table. Without the salt, a short
guessable text cannot be confirmed from the trail alone.

Each entry is first written to the ``audit_outbox`` table inside the write transaction of
the change it describes (:meth:`StoreAuditSink.stage`), then appended to the JSONL trail
after the commit (:meth:`StoreAuditSink.flush`). A crash between the two leaves the entry
staged; the next flush, from this process or any other, or the next open appends it. So a
committed change always gets its entry, at worst late. An append that fails is logged and
counted in ``meta`` (``audit_write_failures``, lifetime); the entry stays staged and the
memory operation still succeeds.
"""

from __future__ import annotations

import hmac
import json
import os
import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from anneal_memory._clock import Clock, format_timestamp
from anneal_memory.audit._events import parse_event
from anneal_memory.audit._intents import StagedEntry
from anneal_memory.audit._trail import AuditTrail
from anneal_memory.store._audit_scrub import scrub_entry
from anneal_memory.store.sqlite._connection import (
    damage_of,
    write_pending_check,
    write_transaction,
)

if TYPE_CHECKING:
    import _thread
    import logging

__all__ = [
    "FAILURES_KEY",
    "LAST_FAILURE_KEY",
    "SALT_KEY",
    "SinkHost",
    "StoreAuditSink",
    "pending_count",
    "read_failure_count",
]

SALT_KEY = "audit_content_salt"
FAILURES_KEY = "audit_write_failures"
LAST_FAILURE_KEY = "audit_last_failure"
_LOAD_BATCH = 500
# Appended rows are deleted in small batches inside a later write: the outbox stays within
# a page or two, so a batch frees (and secure_delete rewrites) a page at most.
_FORGET_EVERY = 8
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def _log() -> logging.Logger:
    # logging costs milliseconds to import; only failures need it.
    import logging

    return logging.getLogger("anneal_memory.audit")


class SinkHost(Protocol):
    """What the sink needs from its store (``SqliteBackend`` provides it)."""

    @property
    def lock(self) -> _thread.RLock:
        """The store's lock."""
        ...

    @property
    def path(self) -> Path:
        """The database file."""
        ...

    @property
    def clock(self) -> Clock:
        """The store's clock."""
        ...

    def sqlite_connection(self, operation: str) -> sqlite3.Connection:
        """The open connection."""
        ...


def read_failure_count(conn: sqlite3.Connection) -> int:
    """Lifetime count of audit appends that failed for this store."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (FAILURES_KEY,)).fetchone()
    return 0 if row is None else int(row[0])


def pending_count(conn: sqlite3.Connection, trail_mark: int) -> int:
    """Staged entries above ``trail_mark`` (the trail's newest intent): not appended yet."""
    row = conn.execute("SELECT count(*) FROM audit_outbox WHERE id > ?", (trail_mark,)).fetchone()
    return int(row[0])


def _load_staged(conn: sqlite3.Connection, after: int) -> list[StagedEntry]:
    rows = conn.execute(
        "SELECT id, event, actor, data FROM audit_outbox WHERE id > ? ORDER BY id LIMIT ?",
        (after, _LOAD_BATCH),
    ).fetchall()
    return [
        StagedEntry(
            intent=int(ident),
            event=parse_event(str(event)),
            actor=str(actor),
            data=json.loads(data),
        )
        for ident, event, actor, data in rows
    ]


def _sync_log(db: Path) -> None:
    """Flush the write-ahead log of ``db`` to disk (what a ``synchronous=FULL`` commit does).

    Raises:
        OSError: The log could not be opened or flushed.
    """
    fd = os.open(db.with_name(db.name + "-wal"), os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _contiguous(entries: Sequence[StagedEntry]) -> bool:
    """True when ``entries`` are outbox rows ``n, n+1, ...`` (one transaction's, in order)."""
    if not entries:
        return False
    first = entries[0].intent
    return first > 0 and all(e.intent == first + i for i, e in enumerate(entries))


class StoreAuditSink:
    """Stages ``(event, actor, data)`` in the store's transactions and appends them after."""

    def __init__(self, host: SinkHost, trail: AuditTrail) -> None:
        self._host = host
        self._trail = trail
        self._keyed: hmac.HMAC | None = None
        self._flushed_through = 0
        self._forgotten_through = 0
        self._dirty = False
        self._staged_here = False

    @property
    def trail(self) -> AuditTrail:
        """The trail this sink writes to."""
        return self._trail

    def recover(self) -> None:
        """After a crash: tidy the trail, then append what was staged and not appended.

        Failures are only logged: the store still opens and the entries stay staged.
        """
        try:
            self._trail.recover()
        except Exception as exc:
            _log().warning("audit recovery failed (the store still opens): %s", exc)
        self._dirty = True
        self.flush()

    def stage(
        self, conn: sqlite3.Connection, event: str, actor: str, data: Mapping[str, Any]
    ) -> StagedEntry:
        """Write one entry to the outbox, inside the caller's open write transaction.

        Returns the staged entry: once the transaction has committed, passing it to
        :meth:`flush` spares reading it back from the outbox.

        Raises:
            InvalidInputError: ``event`` is outside the audit vocabulary (a library bug).
            sqlite3.Error: The insert failed (the caller's transaction rolls back).
        """
        kind = parse_event(event)
        actor, scrubbed = scrub_entry(str(actor), data, lambda: self._keyed_salt(conn))
        if self._flushed_through - self._forgotten_through >= _FORGET_EVERY:
            # Keep the newest flushed row: ids must never repeat.
            conn.execute("DELETE FROM audit_outbox WHERE id < ?", (self._flushed_through,))
            self._forgotten_through = self._flushed_through
        cursor = conn.execute(
            "INSERT INTO audit_outbox(event, actor, data) VALUES (?, ?, ?)",
            (kind.value, actor, _CANONICAL.encode(scrubbed)),
        )
        self._dirty = True
        self._staged_here = True
        return StagedEntry(
            intent=int(cursor.lastrowid or 0), event=kind, actor=actor, data=scrubbed
        )

    def flush(self, committed: Sequence[StagedEntry] = (), *, synced: bool = True) -> None:
        """Append every staged entry the trail lacks. Never raises; failures are counted.

        ``committed``: entries :meth:`stage` returned in a transaction that has committed
        (never one that rolled back). When they are the next the trail needs, they are
        appended as they are, without reading the outbox; any other staged entry is
        appended by a later flush or the next open. ``synced=False``: that transaction
        committed without its fsync, so the log is flushed to disk before the trail names
        its entries (an entry must never outlive its change on a power cut).
        """
        if not self._dirty:
            return
        with self._host.lock:
            try:
                if committed and not synced:
                    _sync_log(self._host.path)
                mark = self._append_pending(self._host.sqlite_connection("audit"), committed)
            except Exception as exc:
                self._count_failure(exc)
                return
            self._flushed_through = max(self._flushed_through, mark)
            self._dirty = False
            self._staged_here = False

    def _append_pending(
        self, conn: sqlite3.Connection, committed: Sequence[StagedEntry] = ()
    ) -> int:
        if not self._staged_here:
            newest = conn.execute("SELECT max(id) FROM audit_outbox").fetchone()[0]
            if newest is None or int(newest) <= self._flushed_through:
                # Nothing staged since the last flush: leave the trail's files alone.
                return self._flushed_through
        loaded = [_LOAD_BATCH]
        known = [committed] if _contiguous(committed) else []

        def load(after: int) -> Sequence[StagedEntry]:
            if known and known[0][0].intent == after + 1:
                batch = known.pop()
            else:
                known.clear()
                batch = _load_staged(conn, after)
            loaded[0] = len(batch)
            return batch

        mark = self._trail.append_staged(load)
        while loaded[0] == _LOAD_BATCH:
            mark = self._trail.append_staged(load)
        return mark

    def close(self) -> None:
        """Flush, then drop outbox rows the trail holds (best effort; never raises)."""
        self.flush()
        if self._flushed_through <= self._forgotten_through:
            return
        host = self._host
        try:
            with host.lock:
                conn = host.sqlite_connection("audit")
                if damage_of(conn) is not None or write_pending_check(conn):
                    # Damaged, or this session wrote nothing (its damage check has not
                    # run): the rows stay until a session that writes tidies them.
                    return
                with write_transaction(conn, operation="audit", path=host.path, durable=False):
                    conn.execute("DELETE FROM audit_outbox WHERE id < ?", (self._flushed_through,))
            self._forgotten_through = self._flushed_through
        except Exception as exc:
            _log().warning("could not tidy the audit outbox (harmless): %s", exc)

    def _keyed_salt(self, conn: sqlite3.Connection) -> hmac.HMAC:
        if self._keyed is None:
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (SALT_KEY,)).fetchone()
            if row is None:
                # Inside the caller's transaction: the salt commits with the first entry.
                conn.execute(
                    "INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)",
                    (SALT_KEY, os.urandom(32).hex()),
                )
                row = conn.execute("SELECT value FROM meta WHERE key = ?", (SALT_KEY,)).fetchone()
            self._keyed = hmac.new(bytes.fromhex(str(row[0])), digestmod="sha256")
        return self._keyed

    def _count_failure(self, exc: BaseException) -> None:
        _log().warning(
            "audit entry not appended yet (the operation itself succeeded; it stays staged "
            "and is appended later): %s",
            exc,
        )
        host = self._host
        try:
            with host.lock:
                conn = host.sqlite_connection("audit")
                if conn.in_transaction:
                    return
                with write_transaction(conn, operation="audit failure count", path=host.path):
                    conn.execute(
                        "INSERT INTO meta(key, value) VALUES (?, '1') ON CONFLICT(key) "
                        "DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)",
                        (FAILURES_KEY,),
                    )
                    conn.execute(
                        "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) "
                        "DO UPDATE SET value = excluded.value",
                        (LAST_FAILURE_KEY, f"{format_timestamp(host.clock.now())} {exc}"),
                    )
        except Exception as again:
            _log().warning("could not count an audit append failure either: %s", again)
