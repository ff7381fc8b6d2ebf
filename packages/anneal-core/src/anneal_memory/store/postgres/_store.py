"""``PgStore``: the ``Store`` API on PostgreSQL.

Every write is one transaction holding the change and its audit entry (the chain tip row is
locked in it), so concurrent writers on any host lose nothing and the chain never forks.
Validation is the SQLite store's own (``validate_episode``, ``build_filters``). The library
modules (wraps, the immune system, associations, the gate, crystals, spores) run their own
SQL on :meth:`PgStore.connection` (``_conn.PgConnection``), so their logic exists once. What
this backend does not have raises :class:`BackendNotSupportedError` (:data:`UNSUPPORTED`).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import os
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NoReturn

from anneal_memory._clock import Clock, SystemClock, format_timestamp
from anneal_memory.errors import (
    BackendNotSupportedError,
    InvalidInputError,
)
from anneal_memory.store._episodes import COLUMNS, episode_from_row
from anneal_memory.store._policy import POLICY_KEY
from anneal_memory.store._store import DEFAULT_PROJECT_NAME
from anneal_memory.store._validate import validate_episode, validate_scope
from anneal_memory.store.postgres import _audit, _recall
from anneal_memory.store.postgres._base import PgStoreBase
from anneal_memory.store.postgres._conn import Session, lock_key, lock_writes
from anneal_memory.store.postgres._driver import Pool
from anneal_memory.store.postgres._notify import AuditNotifier
from anneal_memory.store.postgres._provenance import pool_view, record_with_provenance
from anneal_memory.store.postgres._readonly import check_schema
from anneal_memory.store.postgres._rows import insert_episode, set_last_write
from anneal_memory.store.postgres._schema import PG_SCHEMA_VERSION, ensure_schema
from anneal_memory.store.postgres._transfer_api import PgTransferMixin
from anneal_memory.store.provenance._api import check_open_options, check_record_provenance
from anneal_memory.store.provenance._checks import parse_trust
from anneal_memory.store.provenance._evidence import citing_crystals, citing_crystals_before
from anneal_memory.store.recall._recall import build_filters, hide_superseded
from anneal_memory.types import (
    Episode,
    EpisodeType,
    PruneResult,
    RecallResult,
    StoreStatus,
    Trust,
)

if TYPE_CHECKING:
    import psycopg

    from anneal_memory.audit._verify import AuditVerifyResult

__all__ = ["UNSUPPORTED", "PgStore"]

UNSUPPORTED = ("sidecar", "path", "audit_trail")
"""``Store`` members that raise ``BackendNotSupportedError`` on PostgreSQL for now."""


class PgStore(PgTransferMixin, PgStoreBase):
    """A ``Store`` in a PostgreSQL database (``Store("postgresql://...")`` returns one).

    Args:
        path: The connection URL; credentials may come from ``PG*`` variables or ``.pgpass``.
        project_name: The agent's name.
        clock: Where time comes from.
        audit: Keep the hash-chained audit trail (in the database, same transaction).
        on_audit_event: Called with each audit entry dict after its transaction commits (never
            for a change rolled back); its errors are logged, as on SQLite.
        **options: Any other ``Store`` option: not supported on PostgreSQL yet.
        consolidate_requires_baton_on_create: Turn the gate on when this call creates the
            tables.
        trust_ceiling: The highest trust an episode may be recorded or set with.
        section_schema: Choose the continuity section schema, as on SQLite.
        retention_days: Delete episodes older than this many days on open, as on SQLite.
        read_only: Open existing tables without creating or migrating them; every
            transaction is read-only, so each write raises ``StoreDatabaseError``.

    Raises:
        StoreError: psycopg is not installed.
        StoreDatabaseError: The database could not be reached or its tables created.
        BackendNotSupportedError: An option this backend does not support yet.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        project_name: str = DEFAULT_PROJECT_NAME,
        clock: Clock | None = None,
        audit: bool = True,
        on_audit_event: Callable[[dict[str, Any]], None] | None = None,
        consolidate_requires_baton_on_create: bool = False,
        trust_ceiling: Trust | str = Trust.AGENT,
        section_schema: str | None = None,
        retention_days: float | None = None,
        read_only: bool = False,
        **options: Any,
    ) -> None:
        for name in options:  # options of the SQLite store this backend does not have yet
            raise BackendNotSupportedError(f"Store({name}=...)")
        check_open_options(section_schema, retention_days)
        if read_only and (section_schema is not None or retention_days is not None):
            raise InvalidInputError(
                "section_schema and retention_days change the store; open it without "
                "read_only=True to use them"
            )
        self._read_only = read_only
        self._trust_ceiling = parse_trust(trust_ceiling, ceiling=Trust.OPERATOR)
        self._url = str(path)
        self.project_name = project_name
        self._clock = clock or SystemClock()
        self._lock = threading.RLock()
        self._audit_on = audit
        self._conn = None
        self._audit_sink = None
        self._audit_trail = None
        self._notifier = None if on_audit_event is None else AuditNotifier(on_audit_event)
        key = self._open_tables(gate_on_create=consolidate_requires_baton_on_create)
        self._session = Session(self._url, key, read_only=read_only)
        self._session.notifier = self._notifier
        try:
            self._apply_section_schema(section_schema)
            if retention_days is not None:
                self.prune(retention_days)
        except BaseException:
            self.close()
            raise

    def _open_tables(self, *, gate_on_create: bool) -> int:
        """Open the pool, create or upgrade the tables (check them when read-only); the lock key."""
        pool = self._pool = Pool(self._url, read_only=self._read_only)
        pool.notifier = self._notifier
        try:
            with pool.transaction("open") as conn:
                if self._read_only:
                    found = check_schema(conn, url=self._url)
                else:
                    found = ensure_schema(conn, url=self._url)
                    self._on_opened(conn, found, gate_on_create=gate_on_create)
                key = lock_key(conn)
        except BaseException:
            pool.close()
            raise
        self._created = found == 0
        return key

    def _on_opened(
        self, conn: psycopg.Connection[Any], found: int, *, gate_on_create: bool
    ) -> None:
        """Inside the schema's transaction: the upgrade's audit entry and a new store's policy."""
        if 0 < found < PG_SCHEMA_VERSION:
            data = {"from_version": found, "to_version": PG_SCHEMA_VERSION}
            self.audited(conn, "schema_migrated", "agent", data)
        elif found == 0 and gate_on_create:
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (%s, '1')"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (POLICY_KEY,),
            )
            data = {"requires_baton": True, "was": False}
            self.audited(conn, "consolidate_policy_set", "agent", data)

    # -- what this backend does not do yet ---------------------------------------------------

    @property
    def read_only(self) -> bool:
        """True when opened with ``read_only=True``: PostgreSQL refuses every write."""
        return self._read_only

    @property
    def path(self) -> Path:
        """Not a file: raises ``BackendNotSupportedError`` (see :attr:`url`)."""
        raise BackendNotSupportedError("Store.path (a PostgreSQL store has no file; use .url)")

    @property
    def _path(self) -> Path:  # type: ignore[override]
        # The SQLite store's file; code written for it gets the documented error, not an
        # AttributeError.
        raise BackendNotSupportedError("a SQLite file path")

    @property
    def audit_trail(self) -> NoReturn:
        """Not a file trail: use :meth:`verify_audit` and :meth:`export_audit`."""
        raise BackendNotSupportedError("Store.audit_trail (use verify_audit / export_audit)")

    def sidecar(self, suffix: str) -> NoReturn:
        """Raises ``BackendNotSupportedError``: no files beside a database server."""
        raise BackendNotSupportedError(f"sidecar files ({suffix})")

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
        """Record one episode (see ``Store.record``); row and audit entries commit together.

        The same validation and rules as on SQLite. A record with provenance (trust,
        ``supersedes``, ``state_key``, ``derived_from``) takes the store's exclusive write
        lock; a plain one runs beside other records.

        Raises:
            InvalidEpisodeError: A field is invalid; nothing was written.
            TrustError: ``trust`` is above the store's ceiling; nothing was written.
            SupersessionError: A ``supersedes`` link is invalid; nothing was written.
            IdempotencyConflictError: The key was used for a different episode.
            StoreDatabaseError: PostgreSQL failed; nothing was written.
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
        if not prov.is_default:
            return record_with_provenance(self, item, prov)
        with self._open_pool("record").transaction("record") as conn:
            # Shared: records run side by side, but never while a wrap reads its seq range.
            lock_writes(conn, self._session.key, shared=True)
            episode, new = insert_episode(conn, item)
            if new:
                data = {
                    "episode_id": episode.id,
                    "type": episode.type.value,
                    "content": item.content,
                }
                self.audited(conn, "record", episode.source, data)
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
        """Find episodes (see ``Store.recall``), full text on PostgreSQL's ``tsvector``.

        Superseded episodes are left out unless ``include_superseded``; ``scope`` keeps one
        scope's episodes ("" the shared one), None searches every scope.
        """
        filters = build_filters(
            episode_type=episode_type,
            since=since,
            until=until,
            source=source,
            clock=self._clock,
            scope=scope,
        )
        if not include_superseded:
            filters = hide_superseded(filters)
        with self._open_pool("recall").read("recall") as conn:
            return _recall.recall(
                conn, keyword=keyword, filters=filters, limit=limit, offset=offset
            )

    def get(self, episode_id: str) -> Episode | None:
        """The episode with this id, or None."""
        with self._open_pool("get").read("get") as conn:
            row = conn.execute(
                f"SELECT {COLUMNS} FROM episodes WHERE id = %s",  # noqa: S608
                (str(episode_id),),
            ).fetchone()
        return None if row is None else episode_from_row(row)

    def delete(self, episode_id: str) -> bool:
        """Delete an episode; a tombstone keeps its id. False when there was none."""
        ident = str(episode_id)
        with self._open_pool("delete").transaction("delete") as conn:
            lock_writes(conn, self._session.key, shared=True)
            now = self._now()
            losing = citing_crystals(pool_view(conn, self._session, "delete"), [ident])
            gone = conn.execute("DELETE FROM episodes WHERE id = %s", (ident,)).rowcount
            if gone:
                conn.execute(
                    "INSERT INTO tombstones (id, deleted_at, reason) VALUES (%s, %s, 'delete')"
                    " ON CONFLICT DO NOTHING",
                    (ident, now),
                )
                set_last_write(conn, now)
                data: dict[str, Any] = {"episode_id": ident}
                if losing:
                    data["crystals_losing_evidence"] = list(losing)
                self.audited(conn, "delete", "agent", data)
        return bool(gone)

    def prune(self, older_than_days: float) -> PruneResult:
        """Delete every episode older than ``older_than_days`` days (tombstones kept)."""
        if (
            isinstance(older_than_days, bool)
            or not isinstance(older_than_days, (int, float))
            or not (older_than_days >= 0)
        ):
            raise InvalidInputError(
                f"older_than_days must be a number of 0 or more, got {older_than_days!r}"
            )
        moment = self._clock.now()
        now = format_timestamp(moment)
        cutoff = format_timestamp(moment - _dt.timedelta(days=older_than_days))
        with self._open_pool("prune").transaction("prune") as conn:
            lock_writes(conn, self._session.key, shared=True)
            losing = citing_crystals_before(pool_view(conn, self._session, "prune"), cutoff)
            deleted = conn.execute(
                "WITH gone AS (DELETE FROM episodes WHERE ts < %s RETURNING id) "
                "INSERT INTO tombstones (id, deleted_at, reason) "
                "SELECT id, %s, 'prune' FROM gone ON CONFLICT DO NOTHING",
                (cutoff, now),
            ).rowcount
            if deleted:
                set_last_write(conn, now)
                data: dict[str, Any] = {"deleted": deleted, "cutoff": cutoff}
                if losing:
                    data["crystals_losing_evidence"] = list(losing)
                self.audited(conn, "prune", "agent", data)
        return PruneResult(deleted=deleted, cutoff=cutoff, crystals_losing_evidence=losing)

    # -- status, export, audit ---------------------------------------------------------------

    def status(self) -> StoreStatus:
        """Counts by type, deletions, episodes since the last wrap, table sizes, the last write."""
        with self._open_pool("status").transaction("status") as conn:
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            counts = {t.value: 0 for t in EpisodeType}
            counts.update(
                (str(k), int(n))
                for k, n in conn.execute("SELECT type, count(*) FROM episodes GROUP BY type")
            )
            row = conn.execute(
                "SELECT (SELECT count(*) FROM tombstones),"
                " greatest((SELECT value FROM meta WHERE key = 'last_write'),"
                " (SELECT max(ts) FROM episodes)),"
                " (SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class AS c"
                "  WHERE c.relnamespace = current_schema()::regnamespace"
                "  AND c.relkind IN ('r', 'm')),"
                " (SELECT count(*) FROM episodes AS e WHERE e.seq > coalesce((SELECT through_seq"
                "  FROM wraps AS w WHERE w.scope = e.scope AND w.status = 'completed'"
                "  ORDER BY w.id DESC LIMIT 1), 0))"
            ).fetchone()
        deleted, last, size, waiting = row if row is not None else (0, None, 0, 0)
        total = sum(counts.values())
        return StoreStatus(
            path=self.url,
            total_episodes=total,
            episodes_by_type=counts,
            deleted_episodes=int(deleted),
            episodes_since_wrap=int(waiting),
            db_bytes=int(size or 0),
            wal_bytes=0,
            last_write=None if last is None else str(last),
            schema_version=PG_SCHEMA_VERSION,
        )

    def verify_audit(self) -> AuditVerifyResult:
        """Verify the database-held audit chain (one consistent snapshot)."""
        with self._open_pool("verify").transaction("verify") as conn:
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            return _audit.verify_chain(conn)

    def read_audit(
        self, *, since: str | None = None, event: str | None = None, limit: int | None = None
    ) -> list[dict[str, Any]]:
        """The newest ``limit`` audit entries matching the filters, oldest first."""
        with self._open_pool("read audit").read("read audit") as conn:
            return _audit.read_entries(conn, since=since, event=event, limit=limit)

    def export_audit(self, out: IO[str]) -> int:
        """Write the audit trail as JSONL (the lines a SQLite store's trail holds)."""
        with self._open_pool("export audit").transaction("export audit") as conn:
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            return _audit.export_lines(conn, out)

    def _now(self) -> str:
        return format_timestamp(self._clock.now())
