"""The bridge from ``Store.emit_audit`` to the trail: hash content, never fail the operation.

Episode and continuity text never reach the trail. A ``content`` (or ``text``) field becomes
``content_hash`` (``text_hash``) = ``hmac-sha256:<hex>``, keyed by a random per-store salt
kept in the database's ``meta`` table. Without the salt, a short guessable text cannot be
confirmed from the trail alone.

An append that fails is logged, counted in ``meta`` (``audit_write_failures``, lifetime) and
reported as ``dropped_before`` on the next entry; the memory operation still succeeds.
"""

from __future__ import annotations

import hmac
import os
import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from anneal_memory._clock import format_timestamp
from anneal_memory.audit._events import parse_event
from anneal_memory.audit._trail import AuditTrail
from anneal_memory.store._connection import write_transaction

if TYPE_CHECKING:
    import logging

    from anneal_memory.store._store import Store

__all__ = [
    "FAILURES_KEY",
    "LAST_FAILURE_KEY",
    "SALT_KEY",
    "StoreAuditSink",
    "content_hash",
    "read_failure_count",
]

SALT_KEY = "audit_content_salt"
FAILURES_KEY = "audit_write_failures"
LAST_FAILURE_KEY = "audit_last_failure"
_HASHED_FIELDS = {"content": "content_hash", "text": "text_hash"}


def _log() -> logging.Logger:
    # logging costs milliseconds to import; only failures need it.
    import logging

    return logging.getLogger("anneal_memory.audit")


def content_hash(keyed: hmac.HMAC, text: str) -> str:
    """The salted hash the trail records in place of ``text``.

    ``keyed`` is ``hmac.new(salt, digestmod="sha256")``, made once: copying a keyed HMAC is
    cheaper than keying a new one on every entry.
    """
    digest = keyed.copy()
    digest.update(text.encode("utf-8"))
    return f"hmac-sha256:{digest.hexdigest()}"


def read_failure_count(conn: sqlite3.Connection) -> int:
    """Lifetime count of audit appends that failed for this store."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (FAILURES_KEY,)).fetchone()
    return 0 if row is None else int(row[0])


class StoreAuditSink:
    """Receives ``(event, actor, data)`` from a store and appends it to the trail."""

    def __init__(self, store: Store, trail: AuditTrail) -> None:
        self._store = store
        self._trail = trail
        self._salt: bytes | None = None
        self._keyed: hmac.HMAC | None = None

    @property
    def trail(self) -> AuditTrail:
        """The trail this sink writes to."""
        return self._trail

    def recover(self) -> None:
        """Tidy up after a crash (see ``AuditTrail.recover``); failures are only logged."""
        try:
            self._trail.recover()
        except Exception as exc:
            _log().warning("audit recovery failed (the store still opens): %s", exc)

    def __call__(self, event: str, actor: str, data: Mapping[str, Any]) -> None:
        """Append one event; failures are counted, never raised.

        Raises:
            InvalidInputError: ``event`` is outside the audit vocabulary (a library bug).
        """
        kind = parse_event(event)
        try:
            scrubbed = self._scrub(data)
        except Exception as exc:
            self._trail.note_drop()
            self._count_failure(exc)
            return
        try:
            self._trail.append(kind, actor=actor, data=scrubbed)
        except Exception as exc:
            self._count_failure(exc)

    def _scrub(self, data: Mapping[str, Any]) -> dict[str, Any]:
        clean = dict(data)
        for field, hashed in _HASHED_FIELDS.items():
            if field in clean:
                value = clean.pop(field)
                clean[hashed] = content_hash(self._keyed_salt(), str(value))
        return clean

    def _keyed_salt(self) -> hmac.HMAC:
        if self._keyed is None:
            self._keyed = hmac.new(self._salt_bytes(), digestmod="sha256")
        return self._keyed

    def _salt_bytes(self) -> bytes:
        if self._salt is None:
            store = self._store
            with store._lock:
                conn = store.connection("audit")
                row = conn.execute("SELECT value FROM meta WHERE key = ?", (SALT_KEY,)).fetchone()
                if row is None:
                    with write_transaction(conn, operation="audit salt", path=store.path):
                        conn.execute(
                            "INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)",
                            (SALT_KEY, os.urandom(32).hex()),
                        )
                        row = conn.execute(
                            "SELECT value FROM meta WHERE key = ?", (SALT_KEY,)
                        ).fetchone()
            self._salt = bytes.fromhex(str(row[0]))
        return self._salt

    def _count_failure(self, exc: BaseException) -> None:
        _log().warning("audit entry dropped (the operation itself succeeded): %s", exc)
        store = self._store
        try:
            with store._lock:
                conn = store.connection("audit")
                with write_transaction(conn, operation="audit failure count", path=store.path):
                    conn.execute(
                        "INSERT INTO meta(key, value) VALUES (?, '1') ON CONFLICT(key) "
                        "DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)",
                        (FAILURES_KEY,),
                    )
                    conn.execute(
                        "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) "
                        "DO UPDATE SET value = excluded.value",
                        (LAST_FAILURE_KEY, f"{format_timestamp(store.clock.now())} {exc}"),
                    )
        except Exception:
            _log().exception("could not count a dropped audit entry")
