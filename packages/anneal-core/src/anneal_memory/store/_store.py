"""``Store``: the episodic memory of one agent, in one SQLite file."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import os
import sqlite3
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

from anneal_memory._clock import Clock, SystemClock, format_timestamp
from anneal_memory.audit._intents import StagedEntry
from anneal_memory.audit._sink import StoreAuditSink, read_failure_count
from anneal_memory.audit._trail import AuditTrail, EventCallback
from anneal_memory.errors import (
    InvalidInputError,
    StoreClosedError,
)
from anneal_memory.store import _episodes
from anneal_memory.store._audit_hooks import AuditHooks
from anneal_memory.store._params import prune_cutoff
from anneal_memory.store._target import backend_class, is_database_url
from anneal_memory.store._unit import UnitOfWork
from anneal_memory.store._validate import validate_episode, validate_scope
from anneal_memory.store.provenance import _supersession
from anneal_memory.store.provenance._api import (
    ProvenanceMixin,
    RecordProvenance,
    apply_record_provenance,
    check_open_options,
    check_record_provenance,
)
from anneal_memory.store.provenance._checks import parse_trust
from anneal_memory.store.provenance._evidence import citing_crystals, citing_crystals_before
from anneal_memory.store.recall import _recall
from anneal_memory.store.sqlite._check import CheckReport, run_checks
from anneal_memory.store.sqlite._connection import read_guard, write_transaction
from anneal_memory.store.sqlite._erase import checkpoint_wal, purge_deleted_text
from anneal_memory.store.sqlite._open import open_database, remove_orphaned_temp_files
from anneal_memory.store.sqlite._schema import SCHEMA_VERSION
from anneal_memory.store.sqlite._watermarks import counts_by_type
from anneal_memory.store.transfer._api import TransferMixin
from anneal_memory.store.wraps._place import ContinuityFiles
from anneal_memory.store.wraps._rows import unwrapped_count
from anneal_memory.types import (
    Episode,
    EpisodeType,
    PruneResult,
    RecallResult,
    StoreStatus,
    Trust,
)

__all__ = ["DEFAULT_PROJECT_NAME", "AuditSink", "Store"]

DEFAULT_PROJECT_NAME = "Agent"
AuditSink = Callable[[str, str, Mapping[str, Any]], None]


class Store(ProvenanceMixin, TransferMixin, ContinuityFiles, AuditHooks, UnitOfWork):
    """An agent's episodic memory: typed, timestamped episodes in a local SQLite file.

    Several processes may open the same path at once; each write is one transaction.
    One ``Store`` object may be shared by threads of one process (calls are serialised).

    Args:
        path: The database file. Missing folders are created (mode 0700) and the file is
            created mode 0600 before SQLite opens it. A file that is not an anneal-memory
            store is refused before anything is written to it.
            A ``postgresql://`` URL opens the PostgreSQL backend instead (the
            ``[postgres]`` extra; see ``docs/teams.md``).
        project_name: The agent's name, used in the continuity file's header.
        clock: Where time comes from (tests pass a frozen clock).
        audit: Keep the hash-chained audit trail beside the database (default on).
        on_audit_event: Called with each audit entry dict after it is written.
        consolidate_requires_baton_on_create: When this call creates the database, turn
            the single-consolidator gate on (see ``anneal_memory.gate``). Existing stores
            keep their policy.
        trust_ceiling: The highest trust an episode may be recorded or set with
            (default ``agent``; ``operator`` is for operator tools only, never MCP).
        section_schema: Choose the continuity section schema (``default``, ``partnership``,
            ``project``); None keeps the stored one.
        retention_days: Delete episodes older than this many days on open (tombstones kept,
            audited as ``prune``); None keeps everything.
        read_only: Open an existing store without ever writing: no creation, migration,
            audit entries or tidying (SQLite ``query_only``); write calls raise
            ``StoreDatabaseError``. ``section_schema`` and ``retention_days`` need a
            writable store.

    Raises:
        StoreDatabaseError: The file could not be opened or migrated, is not an
            anneal-memory store (another application's database, the public 1.0.2 format,
            not SQLite), or is a store whose tables vanished. A store this call created is
            removed again when opening fails.
    """

    def __new__(cls, path: str | os.PathLike[str], *args: Any, **kwargs: Any) -> Store:
        # A PostgreSQL URL selects the PostgreSQL backend (store/postgres, imported only then).
        if cls is Store and is_database_url(path):
            backend: Store = super().__new__(backend_class())
            return backend
        return super().__new__(cls)

    @classmethod
    def connect(cls, target: str | os.PathLike[str], **options: Any) -> Store:
        """Open a store: a SQLite file path, or a ``postgresql://`` URL (needs the extra)."""
        return cls(target, **options)

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        project_name: str = DEFAULT_PROJECT_NAME,
        clock: Clock | None = None,
        audit: bool = True,
        on_audit_event: EventCallback | None = None,
        consolidate_requires_baton_on_create: bool = False,
        trust_ceiling: Trust | str = Trust.AGENT,
        section_schema: str | None = None,
        retention_days: float | None = None,
        read_only: bool = False,
    ) -> None:
        self._trust_ceiling = parse_trust(trust_ceiling, ceiling=Trust.OPERATOR)
        check_open_options(section_schema, retention_days)
        if read_only and (section_schema is not None or retention_days is not None):
            raise InvalidInputError(
                "section_schema and retention_days change the store; open it without "
                "read_only=True to use them"
            )
        self._path = Path(path).expanduser().absolute()
        self.project_name = project_name
        self._clock: Clock = clock or SystemClock()
        self._lock = threading.RLock()
        self._read_only = read_only
        self._audit_trail: AuditTrail | None = None
        self._audit_sink: StoreAuditSink | None = None
        if audit and not read_only:
            self._audit_trail = AuditTrail(self._path, clock=self._clock, on_event=on_audit_event)
            self._audit_sink = StoreAuditSink(self, self._audit_trail)
        self._conn: sqlite3.Connection | None = None
        opened = open_database(
            self._path,
            read_only=read_only,
            on_migrated=lambda conn, found: self._on_migrated(
                conn, found, gate_on_create=consolidate_requires_baton_on_create
            ),
        )
        self._conn = opened.conn
        self._created = opened.created
        self._created_dirs = opened.created_dirs
        if not read_only:
            remove_orphaned_temp_files(self._path)
            if self._audit_sink is not None:
                self._audit_sink.recover()
            self._apply_section_schema(section_schema)
            if retention_days is not None:
                self.prune(retention_days)

    # -- lifecycle ---------------------------------------------------------------------------

    @property
    def path(self) -> Path:
        """The database file."""
        return self._path

    @property
    def read_only(self) -> bool:
        """True when opened with ``read_only=True``: nothing is written, migrated or created."""
        return self._read_only

    @property
    def created(self) -> bool:
        """True when this ``Store`` created the database file."""
        return self._created

    @property
    def created_dirs(self) -> tuple[Path, ...]:
        """Folders this ``Store`` created for the database (outermost first)."""
        return self._created_dirs

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

    def close(self) -> None:
        """Close the database connection. Safe to call twice."""
        with self._lock:
            if self._conn is not None:
                if self._audit_sink is not None:
                    self._audit_sink.close()
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
        trust: Trust | str = Trust.AGENT,
        supersedes: list[str] | tuple[str, ...] | None = None,
        state_key: str | None = None,
        derived_from: list[str] | tuple[str, ...] | None = None,
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
            trust: ``external``, ``tool``, ``agent`` (default) or ``operator``; at most the
                store's ``trust_ceiling``.
            supersedes: Ids of older episodes this one replaces (see ``supersede``).
            state_key: The single-valued fact this episode sets (``user.home_city``); the
                newest episode of a key replaces the others.
            derived_from: Ids of the episodes this one was derived from; its effective
                trust is capped by the most trusted of them.
            scope: The memory this episode belongs to (a user, a thread, an agent); ""
                is the shared memory. ``recall(scope=...)`` finds only that scope's episodes.

        Raises:
            InvalidEpisodeError: A field is invalid; nothing was written.
            TrustError: ``trust`` is above the store's ceiling; nothing was written.
            SupersessionError: A ``supersedes`` link is invalid; nothing was written.
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
        prov = check_record_provenance(
            trust=trust,
            state_key=state_key,
            supersedes=supersedes,
            derived_from=derived_from,
            ceiling=self._trust_ceiling,
        )
        with self._lock:
            conn = self.connection("record")
            staged: list[StagedEntry | None] = []
            with write_transaction(conn, operation="record", path=self._path):
                before = conn.total_changes
                episode = _episodes.insert_episode(conn, item)
                if conn.total_changes != before:  # not an idempotent retry
                    episode = self._stage_record(conn, episode, prov, staged)
            self.flush_audit(staged)
        return episode

    def _stage_record(
        self,
        conn: sqlite3.Connection,
        episode: Episode,
        prov: RecordProvenance,
        staged: list[StagedEntry | None],
    ) -> Episode:
        replaced: list[str] = []
        if not prov.is_default:
            episode, replaced = apply_record_provenance(conn, episode, prov, now=self._now())
        data = {"episode_id": episode.id, "type": episode.type.value, "content": episode.content}
        if episode.trust is not Trust.AGENT:
            data["trust"] = episode.trust.value
        staged.append(self.stage_audit(conn, "record", actor=episode.source, data=data))
        staged.extend(
            self.stage_audit(
                conn,
                "supersede",
                actor=episode.source,
                data={"old_id": old_id, "new_id": episode.id, "via": "explicit"},
            )
            for old_id in replaced
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
        include_superseded: bool = False,
        scope: str | None = None,
    ) -> RecallResult:
        """Find episodes: by relevance to ``keyword``, or newest first without one.

        Any string is a valid keyword; its words are matched literally, every match counts
        whatever its age, and when no word matches the words are tried as prefixes
        (``docs/recall.md``). ``since``/``until`` take datetimes, ISO-8601 dates or times
        (UTC when they carry no zone; a date as ``until`` means through its end) or ages like
        ``7d``. At most 1,000 episodes are returned; past offset 10,000 pages are empty.
        Superseded episodes are left out (and not counted) unless ``include_superseded``;
        then they come back with ``superseded_by`` set. ``scope`` keeps the episodes recorded
        in that scope ("" is the shared one); None searches every scope.

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
            with read_guard(conn, operation="recall", path=self._path):
                if not include_superseded and _supersession.has_superseded(conn):
                    filters = _recall.hide_superseded(filters)
                return _recall.recall(
                    conn, keyword=keyword, filters=filters, limit=limit, offset=offset
                )

    def get(self, episode_id: str) -> Episode | None:
        """Return the episode with this id, or None if it does not exist (or was deleted)."""
        with self._lock:
            conn = self.connection("get")
            with read_guard(conn, operation="get", path=self._path):
                return _episodes.fetch_by_id(conn, str(episode_id))

    def delete(self, episode_id: str) -> bool:
        """Delete an episode: its row and index entry go, a tombstone keeps its id.

        Crystals citing it keep the id in their evidence, listed as deleted; the audit
        entry names them (ask first with ``anneal_memory.crystal.crystals_citing``).

        Returns:
            True if it was deleted, False if no such episode exists.
        """
        with self._lock:
            conn = self.connection("delete")
            with write_transaction(conn, operation="delete", path=self._path):
                now = self._now()
                losing = citing_crystals(conn, [str(episode_id)])
                deleted = _episodes.delete_episode(conn, str(episode_id), now=now, reason="delete")
                if deleted:
                    _episodes.set_meta(conn, [("last_write", now)])
                    purge_deleted_text(conn)
                    data: dict[str, Any] = {"episode_id": str(episode_id)}
                    if losing:
                        data["crystals_losing_evidence"] = list(losing)
                    self.stage_audit(conn, "delete", actor="agent", data=data)
            self.flush_audit()
            if deleted:
                checkpoint_wal(conn)
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
        cutoff = prune_cutoff(now, older_than_days)
        with self._lock:
            conn = self.connection("prune")
            with write_transaction(conn, operation="prune", path=self._path):
                losing = citing_crystals_before(conn, cutoff)
                deleted = _episodes.prune_before(conn, cutoff, now=format_timestamp(now))
                if deleted:
                    _episodes.set_meta(conn, [("last_write", format_timestamp(now))])
                    purge_deleted_text(conn)
                    data: dict[str, Any] = {"deleted": deleted, "cutoff": cutoff}
                    if losing:
                        data["crystals_losing_evidence"] = list(losing)
                    self.stage_audit(conn, "prune", actor="agent", data=data)
            self.flush_audit()
            if deleted:
                checkpoint_wal(conn)
        return PruneResult(deleted=deleted, cutoff=cutoff, crystals_losing_evidence=losing)

    # -- status, export, import --------------------------------------------------------------

    def status(self) -> StoreStatus:
        """Counts by type, deletions, unwrapped episodes, file sizes and the last write."""
        with self._lock:
            conn = self.connection("status")
            with read_guard(conn, operation="status", path=self._path):
                return self._status(conn)

    def _status(self, conn: sqlite3.Connection) -> StoreStatus:
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

    def check(self, *, full: bool = True) -> CheckReport:
        """Look for damage without writing anything; see ``CheckReport.ok``.

        Runs SQLite's ``integrity_check`` (``quick_check`` with ``full=False``), then checks
        the schema, the search index, the audit trail, the continuity file and orphaned
        temp files. Each problem is named with what to do.
        """
        with self._lock:
            conn = self.connection("check")
            return run_checks(
                conn, self._path, continuity=self.sidecar(".continuity.md"), full=full
            )
