"""``SqliteBackend``: the ``store/_contract.Backend`` of one SQLite file (the default).

One connection per store object, serialised by :attr:`SqliteBackend.lock`; writes run in
``BEGIN IMMEDIATE`` (``_connection.write_transaction``), so processes sharing the file
queue for each other. Audit entries are staged in the change's transaction (the outbox,
``_outbox.py``) and appended to the trail file after the commit. ``Store`` validates before
it calls anything here.
"""

from __future__ import annotations

import _thread  # threading.RLock() is _thread.RLock(); threading is not needed (#25)
import contextlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from anneal_memory._scope_files import continuity_suffix
from anneal_memory._staging import remove_orphaned_staging
from anneal_memory.audit._intents import StagedEntry
from anneal_memory.audit._trail import AuditTrail, EventCallback
from anneal_memory.errors import StoreClosedError
from anneal_memory.store._policy import write_policy
from anneal_memory.store._unit import Reader, Tx
from anneal_memory.store.sqlite._connection import read_guard, write_transaction
from anneal_memory.store.sqlite._dialect import SqliteDialect
from anneal_memory.store.sqlite._fingerprint import Session
from anneal_memory.store.sqlite._open import (
    close_database,
    open_database,
    remove_orphaned_temp_files,
)
from anneal_memory.store.sqlite._outbox import StoreAuditSink
from anneal_memory.store.sqlite._schema import SCHEMA_VERSION

if TYPE_CHECKING:
    import sqlite3

    from anneal_memory._clock import Clock
    from anneal_memory.audit._search import TrailPage
    from anneal_memory.audit._verify import AuditVerifyResult
    from anneal_memory.store.recall._fts5 import Fts5Ranker
    from anneal_memory.store.sqlite._check import CheckReport
    from anneal_memory.store.wraps._place import FilePlace
    from anneal_memory.types import ImportReport, StoreStatus, Trust

__all__ = ["SqliteBackend"]


def _staged(entries: Sequence[object]) -> list[StagedEntry]:
    return [e for e in entries if isinstance(e, StagedEntry)]


class SqliteBackend:
    """A store in one SQLite file, with its trail and continuity files beside it.

    Args:
        path: The database file (absolute).
        clock: Where time comes from.
        audit: Keep the hash-chained audit trail beside the database.
        on_audit_event: Called with each audit entry dict after it is written.
        gate_on_create: Turn the gate on when this open creates the database.
        read_only: Never write: no creation, migration, audit entries or tidying.

    Raises:
        StoreDatabaseError: The file could not be opened or migrated, or is not a store.
    """

    def __init__(
        self,
        path: Path,
        *,
        clock: Clock,
        audit: bool,
        on_audit_event: EventCallback | None,
        gate_on_create: bool,
        read_only: bool,
    ) -> None:
        self._path = path
        self._clock = clock
        self._lock = _thread.RLock()
        self._audit_trail: AuditTrail | None = None
        self._outbox: StoreAuditSink | None = None
        if audit and not read_only:
            self._audit_trail = AuditTrail(path, clock=clock, on_event=on_audit_event)
            self._outbox = StoreAuditSink(self, self._audit_trail)
        self._conn: sqlite3.Connection | None = None
        self._session: Session | None = None
        opened = open_database(
            path,
            read_only=read_only,
            on_migrated=lambda conn, found: self._on_migrated(conn, found, gate_on_create),
        )
        self._conn = opened.conn
        self._session = opened.session
        self._dialect = SqliteDialect(opened.conn)
        self._created = opened.created
        self._created_dirs = opened.created_dirs
        if not read_only:
            remove_orphaned_temp_files(path)
            remove_orphaned_staging(path)
            if self._outbox is not None:
                self._outbox.recover()

    def _on_migrated(self, conn: sqlite3.Connection, found: int, gate_on_create: bool) -> None:
        """Inside the migration's transaction: its audit entry and a new store's policy."""
        outbox = self._outbox
        if found > 0:
            if outbox is not None:
                data = {"from_version": found, "to_version": SCHEMA_VERSION}
                outbox.stage(conn, "schema_migrated", "agent", data)
        elif gate_on_create:
            was = write_policy(conn, True)
            if outbox is not None:
                outbox.stage(
                    conn, "consolidate_policy_set", "agent", {"requires_baton": True, "was": was}
                )

    # -- what the facade asks ----------------------------------------------------------------

    @property
    def lock(self) -> _thread.RLock:
        """Serialises this process's threads around the one connection."""
        return self._lock

    @property
    def path(self) -> Path:
        """The database file."""
        return self._path

    @property
    def clock(self) -> Clock:
        """The store's clock (the outbox stamps failures with it)."""
        return self._clock

    @property
    def url(self) -> None:
        """None: a file, not a database server."""
        return None

    @property
    def location(self) -> str:
        """What ``--db`` names: the file."""
        return str(self._path)

    @property
    def created(self) -> bool:
        """True when this open created the database file."""
        return self._created

    @property
    def created_dirs(self) -> tuple[Path, ...]:
        """Folders this open created for the database (outermost first)."""
        return self._created_dirs

    @property
    def audit_trail(self) -> AuditTrail | None:
        """The trail file's writer (None without an audit trail)."""
        return self._audit_trail

    @property
    def local(self) -> SqliteBackend:
        """Itself: a SQLite store has files beside its database."""
        return self

    def sidecar(self, suffix: str) -> Path:
        """Path of a file beside the database, e.g. ``sidecar(".continuity.md")``."""
        return self._path.with_name(self._path.stem + suffix)

    def sqlite_connection(self, operation: str) -> sqlite3.Connection:
        """The open connection (for this backend's own modules: the outbox, the checks).

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

    @contextlib.contextmanager
    def writing(
        self, operation: str, *, durable: bool = True, shared: bool = False
    ) -> Iterator[Tx]:
        """The lock and one ``BEGIN IMMEDIATE`` transaction; staged audit appended after it.

        ``durable=False`` commits without the fsync, unless ``tx.audit`` staged an entry: the
        trail file gets it after the commit, so the commit is flushed to disk first (an entry
        must never outlive its change). ``shared`` changes nothing here: SQLite has one
        writer at a time.

        Raises:
            StoreClosedError: The store was closed.
            StoreDatabaseError: The database failed or stayed locked; nothing was written.
        """
        del shared
        with self._lock:
            conn = self.sqlite_connection(operation)
            outbox = self._outbox
            tx = Tx(conn, self._dialect, operation, None if outbox is None else self._stage)
            with write_transaction(conn, operation=operation, path=self._path, durable=durable):
                yield tx
            if outbox is not None:
                outbox.flush(_staged(tx.staged), synced=durable)

    @contextlib.contextmanager
    def reading(self, operation: str) -> Iterator[Reader]:
        """The lock; SQLite errors become ``StoreDatabaseError``."""
        with self._lock:
            conn = self.sqlite_connection(operation)
            with read_guard(conn, operation=operation, path=self._path):
                yield Reader(conn, self._dialect, operation)

    @contextlib.contextmanager
    def _snapshot(self, operation: str) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self.sqlite_connection(operation)
            with read_guard(conn, operation=operation, path=self._path):
                conn.execute("BEGIN")
                try:
                    yield conn
                finally:
                    conn.execute("COMMIT")

    @contextlib.contextmanager
    def recalling(self, operation: str) -> Iterator[tuple[Reader, Fts5Ranker]]:
        """One read transaction (one committed state) and the FTS5 ranker on it."""
        from anneal_memory.store.recall._fts5 import Fts5Ranker  # recall only: start-up speed

        with self._snapshot(operation) as conn:
            yield Reader(conn, self._dialect, operation), Fts5Ranker(conn)

    def after_erase(self) -> None:
        """Checkpoint and truncate the ``-wal``, which still holds the deleted text."""
        from anneal_memory.store.sqlite._erase import checkpoint_wal

        with self._lock:
            checkpoint_wal(self.sqlite_connection("delete"))

    def status(self) -> StoreStatus:
        """Counts by type, deletions, unwrapped episodes, file sizes and the last write."""
        from anneal_memory.store.sqlite import _files

        with self._lock:
            conn = self.sqlite_connection("status")
            with read_guard(conn, operation="status", path=self._path):
                return _files.status(conn, self._path)

    def export_json(self, out: IO[str], *, exported_at: str) -> int:
        """Write the export document from one read transaction; the episode count."""
        from anneal_memory.store.sqlite import _files

        with self._snapshot("export") as conn:
            return _files.export_json(
                conn, out, exported_at=exported_at, continuity_of=self.load_continuity
            )

    def export_markdown(self, out: IO[str], *, project_name: str, exported_at: str) -> int:
        """Write the readable dump from one read transaction; the episode count."""
        from anneal_memory.store.sqlite import _files

        continuity = self.load_continuity("")
        with self._snapshot("export") as conn:
            return _files.export_markdown(
                conn, out, project_name=project_name, exported_at=exported_at, continuity=continuity
            )

    def import_from(self, source: Path, *, dry_run: bool, trust_ceiling: Trust) -> ImportReport:
        """Import a file of any known format in one transaction (see ``Store.import_from``)."""
        from anneal_memory.store.transfer._apply import apply_import

        with self._lock:
            report = apply_import(
                self.sqlite_connection("import"),
                self._dialect,
                source,
                db_path=self._path,
                clock=self._clock,
                continuity_file=self.sidecar(".continuity.md"),
                dry_run=dry_run,
                audit=self._stage_import,
                trust_ceiling=trust_ceiling,
            )
            if not dry_run and self._outbox is not None:
                self._outbox.flush()
        return report

    def _stage_import(self, conn: sqlite3.Connection, report: ImportReport) -> None:
        data: dict[str, Any] = {
            "format": report.format,
            "source_sha256": report.sha256,
            "counts": {c.kind: c.imported for c in report.counts},
            "not_carried": {c.kind: c.not_carried for c in report.counts},
        }
        if report.redacted:  # issue 30: episodes redacted per kind, never the secrets
            data["redacted"] = dict(report.redacted)
        capped = {c.kind: c.capped for c in report.counts if c.capped}
        if capped:
            data["capped"] = capped
        self._stage(conn, "import", actor="operator", data=data)

    def check(self, *, full: bool) -> CheckReport:
        """Look for damage without writing anything (``_check.run_checks``)."""
        from anneal_memory.store.sqlite._check import run_checks

        with self._lock:
            conn = self.sqlite_connection("check")
            continuity = self.sidecar(".continuity.md")
            return run_checks(conn, self._path, continuity=continuity, full=full)

    def continuity_place(self, scope: str) -> FilePlace:
        """``scope``'s continuity file beside the database."""
        from anneal_memory.store.wraps._place import FilePlace

        return FilePlace(self.sidecar(continuity_suffix(scope)), scope)

    def load_continuity(self, scope: str) -> str | None:
        """``scope``'s continuity file's text (replaced atomically: no lock needed)."""
        from anneal_memory.store.wraps._place import read_file

        return read_file(self.sidecar(continuity_suffix(scope)))

    # -- the audit trail ---------------------------------------------------------------------

    def _stage(
        self, conn: object, event: str, *, actor: str, data: Mapping[str, Any]
    ) -> StagedEntry | None:
        """Stage one entry in the outbox inside the open write transaction (``_outbox``).

        ``conn`` is the store's one connection, whatever handed it over.

        Raises:
            InvalidInputError: ``event`` is outside the audit vocabulary.
        """
        del conn
        outbox = self._outbox
        if outbox is None:
            return None
        return outbox.stage(self.sqlite_connection("audit"), event, actor, data)

    def verify_audit(self) -> AuditVerifyResult:
        """Verify the trail files beside the database (``anneal_memory.audit``)."""
        from anneal_memory.audit._verify import verify_trail

        return verify_trail(self._path)

    def read_audit(
        self, *, since: str | None, event: str | None, limit: int | None
    ) -> list[dict[str, Any]]:
        """The newest ``limit`` trail entries matching the filters, oldest first."""
        from anneal_memory.audit._read import read_entries

        return read_entries(self._path, since=since, event=event, limit=limit)

    def audit_page(
        self,
        *,
        limit: int,
        offset: int,
        event: str | None,
        needles: Sequence[bytes],
        since: str | None,
    ) -> TrailPage:
        """Entries newest first from the trail files (sealed weeks before ``since`` unread)."""
        from anneal_memory.audit import page_entries

        return page_entries(
            self._path, limit=limit, offset=offset, event=event, needles=needles, since=since
        )

    def export_audit(self, out: IO[str]) -> int:
        """Write the trail's complete lines, oldest first; the line count."""
        from anneal_memory.store.sqlite import _files

        return _files.export_trail(self._path, out)

    def close(self) -> None:
        """Flush and tidy the outbox, close the connection and the trail. Safe twice."""
        with self._lock:
            if self._conn is not None:
                if self._outbox is not None:
                    self._outbox.close()
                close_database(self._conn, self._session)
                self._conn = None
            if self._audit_trail is not None:
                self._audit_trail.close()
