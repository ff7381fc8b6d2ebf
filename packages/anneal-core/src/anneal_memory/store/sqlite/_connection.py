"""The one place that opens SQLite connections and runs write transactions.

Connection policy, with the reason for each choice:

- ``journal_mode=WAL``: readers never block the writer and several processes of one agent
  can share the store.
- ``synchronous=FULL``: under WAL, FULL fsyncs the log at every commit, so an acknowledged
  ``record`` survives power loss. NORMAL would be faster but may lose the last commits; a
  memory store that forgets what it confirmed is worse than a slower one.
  One exception: ``write_transaction(..., durable=False)`` commits without the fsync (NORMAL
  for that commit), for writes whose loss on power failure is harmless and visible, such as
  the open-wrap marker (the next durable commit flushes it along).
- ``page_size=2048`` (set before WAL, so it only applies to new stores): a record dirties
  about ten pages, and smaller pages mean fewer bytes to write and flush per commit; FTS5's
  ~1000-byte index leaves still fit one page. ``wal_autocheckpoint=2000`` keeps the log's
  checkpoint point at 4 MB, as with the default 4 KiB pages.
- ``busy_timeout`` (set through ``sqlite3.connect(timeout=...)``): concurrent writers wait
  for each other instead of failing at once; on top of it, write transactions retry a
  bounded number of times.
- ``foreign_keys=ON``: referential integrity. (``trusted_schema`` stays on: the FTS5
  index is maintained by triggers, which SQLite refuses under ``trusted_schema=OFF``.)
- ``secure_delete=ON``: deleted episode text is overwritten on disk, not just unlinked.
- Paths are passed as plain file names, never as ``file:`` URIs.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from anneal_memory.errors import StoreDatabaseError

__all__ = [
    "BUSY_TIMEOUT_MS",
    "WRITE_ATTEMPTS",
    "check_before_writing",
    "connect",
    "damage_of",
    "database_error",
    "defer_until_write",
    "is_corruption",
    "mark_damaged",
    "read_guard",
    "write_pending_check",
    "write_transaction",
]

BUSY_TIMEOUT_MS = 5000
WRITE_ATTEMPTS = 4
_RETRY_SLEEP_SECONDS = 0.05

_SYNCHRONOUS = "PRAGMA synchronous=FULL"
_NEW_FILE_PRAGMAS = ("PRAGMA page_size=2048",)
_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA wal_autocheckpoint=2000",
    _SYNCHRONOUS,
    "PRAGMA foreign_keys=ON",
    "PRAGMA secure_delete=ON",
    "PRAGMA temp_store=MEMORY",
)


class _Connection(sqlite3.Connection):
    """A connection that remembers damage and the check its first write must run first.

    ``damaged``: SQLite reported the file damaged (writes are refused).
    ``before_first_write``: the deferred damage check (``defer_until_write``).
    """

    damaged: str | None = None
    before_first_write: Callable[[], None] | None = None


def defer_until_write(conn: sqlite3.Connection, check: Callable[[], None]) -> None:
    """Run ``check`` just before this connection's first write (at once on a plain one)."""
    if isinstance(conn, _Connection):
        conn.before_first_write = check
    else:
        check()


def check_before_writing(conn: sqlite3.Connection) -> None:
    """Run the deferred damage check now, if it has not run (every write path calls this)."""
    if not isinstance(conn, _Connection):
        return
    check = conn.before_first_write
    if check is not None:
        conn.before_first_write = None
        check()


def write_pending_check(conn: sqlite3.Connection) -> bool:
    """True while a deferred damage check has not run: this connection has not written."""
    return isinstance(conn, _Connection) and conn.before_first_write is not None


def is_corruption(exc: BaseException) -> bool:
    """True when SQLite says the file is damaged (malformed pages, not a database)."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    text = str(exc).lower()
    return "malformed" in text or "not a database" in text


def mark_damaged(conn: sqlite3.Connection, reason: str) -> None:
    """Remember that ``conn``'s file is damaged: every later write transaction refuses."""
    if isinstance(conn, _Connection) and conn.damaged is None:
        words = " ".join(reason.replace("*** in database main ***", "").split())
        conn.damaged = words[:300]


def damage_of(conn: sqlite3.Connection) -> str | None:
    """Why ``conn``'s file is known damaged, or None."""
    return conn.damaged if isinstance(conn, _Connection) else None


@contextlib.contextmanager
def read_guard(
    conn: sqlite3.Connection, *, operation: str, path: Path | None
) -> Iterator[sqlite3.Connection]:
    """Turn SQLite errors of a read into ``StoreDatabaseError`` (and remember damage).

    Raises:
        StoreDatabaseError: SQLite failed.
    """
    try:
        yield conn
    except sqlite3.Error as exc:
        if is_corruption(exc):
            mark_damaged(conn, str(exc))
        raise database_error(exc, operation=operation, path=path) from exc


def connect(
    path: Path,
    *,
    read_only: bool = False,
    new_file: bool = False,
    inspect: Callable[[sqlite3.Connection], None] | None = None,
) -> sqlite3.Connection:
    """Open ``path`` with the store's connection policy, in autocommit mode.

    Transactions are explicit: writes go through :func:`write_transaction`. ``new_file``
    says the database file was just created empty, so its page size can still be chosen.
    ``inspect`` runs on the bare connection before any pragma changes the file (the journal
    mode is written to the file): it may refuse the file by raising.

    Raises:
        StoreDatabaseError: SQLite could not open or configure the file.
    """
    try:
        conn = sqlite3.connect(  # noqa: TID251
            str(path),
            isolation_level=None,
            check_same_thread=False,
            timeout=BUSY_TIMEOUT_MS / 1000,
            factory=_Connection,
        )
    except sqlite3.Error as exc:
        raise database_error(exc, operation="open", path=path) from exc
    if read_only:
        conn.execute("PRAGMA query_only=ON")
    if inspect is not None:
        try:
            inspect(conn)
        except BaseException:
            conn.close()
            raise
    pragmas = [*_NEW_FILE_PRAGMAS, *_PRAGMAS] if new_file else list(_PRAGMAS)
    if read_only:
        pragmas = [p for p in pragmas if not p.startswith(("PRAGMA journal_mode", "PRAGMA page"))]
    try:
        # One script: one call into SQLite for the whole policy (opening is a measured goal).
        conn.executescript(";".join(pragmas))
    except sqlite3.Error as exc:
        conn.close()
        raise database_error(exc, operation="open", path=path) from exc
    return conn


def _is_busy(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def database_error(exc: sqlite3.Error, *, operation: str, path: Path | None) -> StoreDatabaseError:
    """Wrap a SQLite error in the library's error type, naming the operation."""
    busy = _is_busy(exc)
    text = str(exc).lower()
    hint = " (the database stayed busy; retry later)" if busy else ""
    if "readonly" in text or "read-only" in text:
        hint = " (the store was opened read-only)"
    elif "malformed" in text or "not a database" in text:
        hint = " (the database file is damaged; run 'anneal-memory check' and restore a backup)"
    return StoreDatabaseError(
        f"{operation} failed: SQLite error: {exc}{hint}",
        operation=operation,
        path=path,
        retryable=busy,
    )


@contextlib.contextmanager
def write_transaction(
    conn: sqlite3.Connection, *, operation: str, path: Path | None = None, durable: bool = True
) -> Iterator[sqlite3.Connection]:
    """Run the block inside ``BEGIN IMMEDIATE`` ... ``COMMIT``; roll back on any error.

    Taking the write lock at BEGIN avoids the deadlock of two readers upgrading at once.
    Acquiring the lock is retried ``WRITE_ATTEMPTS`` times, each waiting up to the busy timeout.
    ``durable=False`` skips the commit's fsync: the transaction is atomic and visible to every
    reader at once, but a power cut before the next durable commit may undo it.

    Raises:
        StoreDatabaseError: SQLite failed, or the database stayed locked through every attempt.
    """
    check_before_writing(conn)
    damage = damage_of(conn)
    if damage is not None:
        raise StoreDatabaseError(
            f"{operation} refused: the database {path} is damaged ({damage}); nothing was "
            "written. Run 'anneal-memory check', then restore a backup or export what still "
            "reads",
            operation=operation,
            path=path,
        )
    if not durable:
        # The safety level can only change outside a transaction; FULL comes back either way.
        conn.execute("PRAGMA synchronous=NORMAL")
    try:
        _begin(conn, operation=operation, path=path)
        try:
            yield conn
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            if is_corruption(exc):
                mark_damaged(conn, str(exc))
            raise database_error(exc, operation=operation, path=path) from exc
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise
        try:
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise database_error(exc, operation=operation, path=path) from exc
    finally:
        if not durable:
            conn.execute(_SYNCHRONOUS)


def _begin(conn: sqlite3.Connection, *, operation: str, path: Path | None) -> None:
    for attempt in range(1, WRITE_ATTEMPTS + 1):
        try:
            conn.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.OperationalError as exc:
            if not _is_busy(exc) or attempt == WRITE_ATTEMPTS:
                raise database_error(exc, operation=operation, path=path) from exc
            time.sleep(_RETRY_SLEEP_SECONDS * attempt)
