"""``Store``: the episodic memory of one agent, in one SQLite file."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from anneal_memory._clock import Clock, SystemClock, format_timestamp
from anneal_memory._fsio import ensure_private_dir, ensure_private_file
from anneal_memory.audit._sink import StoreAuditSink, read_failure_count
from anneal_memory.audit._trail import AuditTrail, EventCallback
from anneal_memory.errors import ImportFormatError, InvalidInputError, StoreClosedError
from anneal_memory.store import _episodes, _recall
from anneal_memory.store._connection import connect, database_error, write_transaction
from anneal_memory.store._schema import SCHEMA_VERSION, migrate
from anneal_memory.store._transfer import import_document, iter_export_chunks
from anneal_memory.store._validate import validate_episode, validate_scope
from anneal_memory.store._watermarks import counts_by_type
from anneal_memory.store._wraps import unwrapped_count
from anneal_memory.types import (
    Episode,
    EpisodeType,
    ImportResult,
    PruneResult,
    RecallResult,
    StoreStatus,
)

__all__ = ["DEFAULT_PROJECT_NAME", "AuditSink", "Store"]

DEFAULT_PROJECT_NAME = "Agent"
AuditSink = Callable[[str, str, Mapping[str, Any]], None]


class Store:
    """An agent's episodic memory: typed, timestamped episodes in a local SQLite file.

    Several processes may open the same path at once; each write is one transaction.
    One ``Store`` object may be shared by threads of one process (calls are serialised).

    Args:
        path: The database file. Its folder is created (mode 0700) and the file is created
            mode 0600 before SQLite opens it.
        project_name: The agent's name, used in the continuity file's header.
        clock: Where time comes from (tests pass a frozen clock).
        audit: Keep the hash-chained audit trail beside the database (default on).
        on_audit_event: Called with each audit entry dict after it is written.
        consolidate_requires_baton_on_create: When this call creates the database, turn
            the single-consolidator gate on (see ``anneal_memory.gate``). Existing stores
            keep their policy.

    Raises:
        StoreDatabaseError: The file could not be opened or migrated.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        project_name: str = DEFAULT_PROJECT_NAME,
        clock: Clock | None = None,
        audit: bool = True,
        on_audit_event: EventCallback | None = None,
        consolidate_requires_baton_on_create: bool = False,
    ) -> None:
        self._path = Path(path).expanduser().absolute()
        self.project_name = project_name
        self._clock: Clock = clock or SystemClock()
        self._lock = threading.RLock()
        self._audit_sink: AuditSink | None = None
        ensure_private_dir(self._path.parent)
        self._created = ensure_private_file(self._path)
        self._conn: sqlite3.Connection | None = connect(self._path, new_file=self._created)
        try:
            found_version = migrate(self._conn, path=self._path)
        except BaseException:
            self._conn.close()
            self._conn = None
            raise
        self._audit_trail: AuditTrail | None = None
        if audit:
            self._audit_trail = AuditTrail(self._path, clock=self._clock, on_event=on_audit_event)
            sink = StoreAuditSink(self, self._audit_trail)
            sink.recover()
            self._audit_sink = sink
        if 0 < found_version < SCHEMA_VERSION:
            self.emit_audit(
                "schema_migrated",
                actor="agent",
                data={"from_version": found_version, "to_version": SCHEMA_VERSION},
            )
        if self._created and consolidate_requires_baton_on_create:
            from anneal_memory.gate import set_consolidate_policy  # gate imports the store

            set_consolidate_policy(self, True, actor="agent")

    # -- lifecycle ---------------------------------------------------------------------------

    @property
    def path(self) -> Path:
        """The database file."""
        return self._path

    @property
    def created(self) -> bool:
        """True when this ``Store`` created the database file."""
        return self._created

    @property
    def clock(self) -> Clock:
        """The clock this store stamps time with."""
        return self._clock

    @property
    def audit_trail(self) -> AuditTrail | None:
        """The audit trail this store appends to (None when opened with ``audit=False``)."""
        return self._audit_trail

    def sidecar(self, suffix: str) -> Path:
        """Path of a file beside the database, e.g. ``sidecar(".continuity.md")``."""
        return self._path.with_name(self._path.stem + suffix)

    def load_continuity(self) -> str | None:
        """The continuity file's text (``<stem>.continuity.md``), or None before the first save."""
        try:
            return self.sidecar(".continuity.md").read_text(encoding="utf-8")
        except FileNotFoundError:
            return None

    def close(self) -> None:
        """Close the database connection. Safe to call twice."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            if self._audit_trail is not None:
                self._audit_trail.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def connection(self, operation: str) -> sqlite3.Connection:
        """The open connection, for the library's own modules (not a public API).

        Raises:
            StoreClosedError: The store was closed.
        """
        if self._conn is None:
            raise StoreClosedError(
                f"cannot {operation}: the store {self._path} is closed",
                operation=operation,
                path=self._path,
            )
        return self._conn

    def _now(self) -> str:
        return format_timestamp(self._clock.now())

    def emit_audit(self, event: str, *, actor: str, data: Mapping[str, Any]) -> None:
        """Log one event to the audit trail, after the commit it describes. Never raises.

        Library modules call this for every mutating operation; without an audit trail
        attached it does nothing.
        """
        sink = self._audit_sink
        if sink is not None:
            sink(event, actor, data)

    # -- episodes ----------------------------------------------------------------------------

    def record(
        self,
        content: str,
        episode_type: EpisodeType | str,
        *,
        source: str = "agent",
        metadata: Mapping[str, Any] | None = None,
        timestamp: _dt.datetime | str | None = None,
        idempotency_key: str | None = None,
        scope: str = "",
    ) -> Episode:
        """Record one episode and return it.

        Args:
            content: The text; not empty, at most 64 KiB of UTF-8.
            episode_type: An ``EpisodeType`` or its value (``"decision"``).
            source: Who records it.
            metadata: A JSON object stored with the episode.
            timestamp: When it happened (aware datetime or ISO-8601); defaults to now.
            idempotency_key: Retrying with the same key returns the first episode.
            scope: The memory this episode belongs to (a user, a thread, an agent); ""
                is the shared memory. ``recall(scope=...)`` finds only that scope's episodes.

        Raises:
            InvalidEpisodeError: A field is invalid; nothing was written.
            IdempotencyConflictError: The key was used for a different episode.
            StoreDatabaseError: SQLite failed; nothing was written.
        """
        item = validate_episode(
            content,
            episode_type,
            source=source,
            metadata=metadata,
            timestamp=timestamp,
            idempotency_key=idempotency_key,
            clock=self._clock,
        )
        item = dataclasses.replace(item, scope=validate_scope(scope))
        with self._lock:
            conn = self.connection("record")
            with write_transaction(conn, operation="record", path=self._path):
                episode = _episodes.insert_episode(conn, item)
        self.emit_audit(
            "record",
            actor=episode.source,
            data={"episode_id": episode.id, "type": episode.type.value, "content": episode.content},
        )
        return episode

    def recall(  # noqa: PLR0917 - positional order is the documented public API
        self,
        keyword: str | None = None,
        episode_type: EpisodeType | str | None = None,
        since: _dt.datetime | str | None = None,
        until: _dt.datetime | str | None = None,
        source: str | None = None,
        limit: int = 100,
        offset: int = 0,
        *,
        scope: str | None = None,
    ) -> RecallResult:
        """Find episodes: by relevance to ``keyword``, or newest first without one.

        Any string is a valid keyword; its words are matched literally (see ``_search``).
        ``since``/``until`` take aware datetimes, ISO-8601 strings or ages like ``7d``.
        ``scope`` keeps the episodes recorded in that scope ("" is the shared one); None
        searches every scope.

        Raises:
            InvalidQueryError: A filter, ``limit`` or ``offset`` is invalid.
        """
        filters = _recall.build_filters(
            episode_type=episode_type,
            since=since,
            until=until,
            source=source,
            clock=self._clock,
            scope=scope,
        )
        with self._lock:
            conn = self.connection("recall")
            try:
                return _recall.recall(
                    conn, keyword=keyword, filters=filters, limit=limit, offset=offset
                )
            except sqlite3.Error as exc:
                raise database_error(exc, operation="recall", path=self._path) from exc

    def get(self, episode_id: str) -> Episode | None:
        """Return the episode with this id, or None if it does not exist (or was deleted)."""
        with self._lock:
            return _episodes.fetch_by_id(self.connection("get"), str(episode_id))

    def delete(self, episode_id: str) -> bool:
        """Delete an episode: its row and index entry go, a tombstone keeps its id.

        Returns:
            True if it was deleted, False if no such episode exists.
        """
        with self._lock:
            conn = self.connection("delete")
            with write_transaction(conn, operation="delete", path=self._path):
                now = self._now()
                deleted = _episodes.delete_episode(conn, str(episode_id), now=now, reason="delete")
                if deleted:
                    _episodes.set_meta(conn, [("last_write", now)])
        if deleted:
            self.emit_audit("delete", actor="agent", data={"episode_id": str(episode_id)})
        return deleted

    def prune(self, older_than_days: float) -> PruneResult:
        """Delete every episode older than ``older_than_days`` days (tombstones kept).

        Raises:
            InvalidInputError: ``older_than_days`` is negative or not a number.
        """
        if (
            isinstance(older_than_days, bool)
            or not isinstance(older_than_days, (int, float))
            or not (older_than_days >= 0)
        ):
            raise InvalidInputError(
                f"older_than_days must be a number of 0 or more, got {older_than_days!r}"
            )
        now = self._clock.now()
        cutoff = format_timestamp(now - _dt.timedelta(days=older_than_days))
        with self._lock:
            conn = self.connection("prune")
            with write_transaction(conn, operation="prune", path=self._path):
                deleted = _episodes.prune_before(conn, cutoff, now=format_timestamp(now))
                if deleted:
                    _episodes.set_meta(conn, [("last_write", format_timestamp(now))])
        if deleted:
            self.emit_audit("prune", actor="agent", data={"deleted": deleted, "cutoff": cutoff})
        return PruneResult(deleted=deleted, cutoff=cutoff)

    # -- status, export, import --------------------------------------------------------------

    def status(self) -> StoreStatus:
        """Counts by type, deletions, unwrapped episodes, file sizes and the last write."""
        with self._lock:
            conn = self.connection("status")
            counts = {t.value: 0 for t in EpisodeType}
            counts.update(counts_by_type(conn))
            unwrapped = unwrapped_count(conn)
            # Records do not touch `meta` (one page less per commit); other writes stamp it.
            last = conn.execute(
                "SELECT max(coalesce((SELECT value FROM meta WHERE key = 'last_write'), ''),"
                " coalesce((SELECT ts FROM episodes ORDER BY seq DESC LIMIT 1), ''))"
            ).fetchone()
            deleted = _episodes.tombstone_count(conn)
            audit_failures = read_failure_count(conn)
        wal = self._path.with_name(self._path.name + "-wal")
        return StoreStatus(
            path=str(self._path),
            total_episodes=sum(counts.values()),
            episodes_by_type=counts,
            deleted_episodes=deleted,
            episodes_since_wrap=int(unwrapped),
            db_bytes=self._path.stat().st_size,
            wal_bytes=wal.stat().st_size if wal.exists() else 0,
            last_write=str(last[0]) or None,
            schema_version=SCHEMA_VERSION,
            audit_write_failures=audit_failures,
        )

    def export_json(self, out: IO[str]) -> int:
        """Write every episode and tombstone as one JSON document; return the episode count."""
        with self._lock:
            conn = self.connection("export")
            conn.execute("BEGIN")
            try:
                count = int(conn.execute("SELECT count(*) FROM episodes").fetchone()[0])
                for chunk in iter_export_chunks(
                    conn, exported_at=self._now(), schema_version=SCHEMA_VERSION
                ):
                    out.write(chunk)
            finally:
                conn.execute("COMMIT")
        return count

    def import_json(self, document: str | Mapping[str, Any]) -> ImportResult:
        """Import an export (its text or parsed object) in one transaction.

        Raises:
            ImportFormatError: Not a valid export, or an id clash; nothing was written.
        """
        if isinstance(document, str):
            try:
                document = json.loads(document)
            except json.JSONDecodeError as exc:
                raise ImportFormatError(f"import file is not JSON: {exc}") from None
        with self._lock:
            conn = self.connection("import")
            with write_transaction(conn, operation="import", path=self._path):
                result = import_document(conn, document, clock=self._clock)
                _episodes.set_meta(conn, [("last_write", self._now())])
        self.emit_audit(
            "import",
            actor="operator",
            data={"imported": result.imported, "tombstones_added": result.tombstones_added},
        )
        return result
