"""Opening a store's database: refuse what is not ours, create all or nothing, tidy up.

A write-capable open creates the folder (0700) and file (0600) when missing, refuses any
file that is not an anneal-memory store (see ``_identity``) before writing to it, migrates
the schema and stamps the application id. When this open created the file and anything
after that fails, the file, its ``-wal``/``-shm`` and the folders it made are removed, so
a failed create leaves nothing behind.

A read-only open never creates, migrates or writes: SQLite runs with ``query_only``.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from anneal_memory._fsio import ensure_private_dir, ensure_private_file
from anneal_memory.errors import StoreDatabaseError, StoreError, StoreVersionError
from anneal_memory.store.sqlite import _fingerprint
from anneal_memory.store.sqlite._connection import (
    check_before_writing,
    connect,
    damage_of,
    database_error,
    defer_until_write,
    mark_damaged,
)
from anneal_memory.store.sqlite._identity import (
    APPLICATION_ID,
    StoreKind,
    identify,
    refuse_unless_ours,
)
from anneal_memory.store.sqlite._schema import SCHEMA_VERSION, migrate

__all__ = [
    "ORPHAN_AGE_SECONDS",
    "QUICK_CHECK_MAX_BYTES",
    "Opened",
    "close_database",
    "discard_created",
    "open_database",
    "orphaned_temp_files",
    "remove_orphaned_temp_files",
]

ORPHAN_AGE_SECONDS = 60.0
QUICK_CHECK_MAX_BYTES = 8 * 1024 * 1024
_TEMP_SUFFIX = re.compile(r"\.tmp-[0-9a-f]{12}$")
_SIDE_FILES = ("-wal", "-shm", "-journal")

MigratedHook = Callable[[sqlite3.Connection, int], None]


class Opened(NamedTuple):
    """A database connection ready for use.

    Attributes:
        conn: The connection, with the store's policy applied.
        created: True when this open created the database file.
        created_dirs: Folders this open created (outermost first).
        found_version: The schema version before migrating (0 for a new store).
        session: For a small store known good at open (checked, unchanged since, or new):
            what its close needs to record the file as known good again (``_fingerprint``).
    """

    conn: sqlite3.Connection
    created: bool
    created_dirs: tuple[Path, ...]
    found_version: int
    session: _fingerprint.Session | None = None


def _refuse_non_regular(path: Path) -> None:
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise StoreDatabaseError(
            f"{path} is not a regular file (a directory, FIFO or device); --db takes the "
            "database file's path",
            operation="open",
            path=path,
        )


def _glob_escape(text: str) -> str:
    """``glob.escape`` of a file-name fragment on POSIX, without loading ``glob`` at every open."""
    return re.sub(r"([*?\[])", r"[\1]", text)


def discard_created(path: Path, created_dirs: tuple[Path, ...] | list[Path]) -> None:
    """Remove a store this process just created (its file, side files, new folders).

    Its audit files go too: a new store's trail holds only what this process wrote.
    """
    for suffix in ("", *_SIDE_FILES):
        with contextlib.suppress(OSError):
            path.with_name(path.name + suffix).unlink()
    for sidecar in path.parent.glob(f"{_glob_escape(path.stem)}.audit*"):
        with contextlib.suppress(OSError):
            sidecar.unlink()
    for folder in reversed(tuple(created_dirs)):
        with contextlib.suppress(OSError):
            folder.rmdir()


def _inspector(path: Path, *, read_only: bool) -> Callable[[sqlite3.Connection], None]:
    def inspect(conn: sqlite3.Connection) -> None:
        found = identify(conn, path, schema_version=SCHEMA_VERSION)
        refuse_unless_ours(found, path)
        if found.user_version > SCHEMA_VERSION:
            raise StoreVersionError(
                str(path), found=found.user_version, supported=SCHEMA_VERSION, path=path
            )
        if not read_only:
            return
        if found.kind is StoreKind.EMPTY:
            raise StoreDatabaseError(
                f"{path} is empty: no store has been created there yet",
                operation="open",
                path=path,
            )
        if found.user_version < SCHEMA_VERSION:
            raise StoreDatabaseError(
                f"{path} has schema version {found.user_version}, older than this "
                f"anneal-memory's {SCHEMA_VERSION}; a read-only open does not migrate. Run "
                f"'anneal-memory --db {path} migrate' (or open it once without read_only)",
                operation="open",
                path=path,
            )

    return inspect


def _stamp(conn: sqlite3.Connection, path: Path) -> None:
    try:
        if int(conn.execute("PRAGMA application_id").fetchone()[0]) != APPLICATION_ID:
            check_before_writing(conn)
            conn.execute(f"PRAGMA application_id={APPLICATION_ID:d}")
    except sqlite3.Error as exc:
        raise database_error(exc, operation="open", path=path) from exc


def _check_pages(conn: sqlite3.Connection, path: Path) -> bool:
    """Before the first write to a small store, look for damaged pages.

    A damaged store still opens (to read and export what survives) but refuses writes.
    Larger stores are checked by ``anneal-memory check``; any write or read that meets a
    damaged page also marks the store damaged. A file byte-for-byte as a checked state
    left it (``_fingerprint``) is not walked again. True when the file is known good.
    """
    try:
        if _fingerprint.matches(path):
            return True
        rows = conn.execute("PRAGMA quick_check(5)").fetchall()
    except (OSError, sqlite3.Error) as exc:
        mark_damaged(conn, str(exc))
        return False
    problems = [str(r[0]) for r in rows if str(r[0]) != "ok"]
    if problems:
        mark_damaged(conn, "; ".join(problems)[:300])
        return False
    _fingerprint.record(path)
    return True


def _session(conn: sqlite3.Connection, path: Path, *, created: bool) -> _fingerprint.Session | None:
    """Arrange the damage check of a write-capable open of a small store.

    It runs where it costs nothing: before the session's first write (a migration, a record,
    the outbox's tidying), so a session that only reads never pays it, and no write lands
    on a file this session has not checked.
    """
    try:
        small = path.stat().st_size <= QUICK_CHECK_MAX_BYTES
    except OSError as exc:
        mark_damaged(conn, str(exc))
        return None
    if not small:
        return None
    session = _fingerprint.Session(conn, path, good=created)
    if not created:
        defer_until_write(conn, lambda: session.checked(_check_pages(conn, path)))
    return session


def open_database(
    path: Path, *, read_only: bool = False, on_migrated: MigratedHook | None = None
) -> Opened:
    """Open (and for a write-capable open, create or migrate) the database at ``path``.

    ``on_migrated(conn, found_version)`` runs inside the migration's transaction.

    Raises:
        StoreDatabaseError: The file is missing (read-only), not ours, damaged, or SQLite
            failed; a store this call created is removed again.
    """
    _refuse_non_regular(path)
    if read_only:
        if not path.exists():
            raise StoreDatabaseError(
                f"database not found: {path} (a read-only open never creates a store)",
                operation="open",
                path=path,
            )
        conn = connect(path, read_only=True, inspect=_inspector(path, read_only=True))
        return Opened(conn=conn, created=False, created_dirs=(), found_version=SCHEMA_VERSION)
    created_dirs = tuple(ensure_private_dir(path.parent))
    created = ensure_private_file(path)
    try:
        conn = connect(path, new_file=created, inspect=_inspector(path, read_only=False))
        try:
            session = _session(conn, path, created=created)
            found = migrate(conn, path=path, before_commit=_stamp, on_migrated=on_migrated)
            if found == SCHEMA_VERSION:
                _stamp(conn, path)
        except BaseException:
            conn.close()
            raise
    except BaseException:
        if created:
            discard_created(path, created_dirs)
        raise
    return Opened(
        conn=conn, created=created, created_dirs=created_dirs, found_version=found, session=session
    )


def refuse_newer_schema(path: str | os.PathLike[str]) -> None:
    """Raise ``StoreVersionError`` when the store at ``path`` has a schema newer than this code.

    The check a read-only ``Store`` open makes, without loading the rest of the store (the
    MCP server runs it before answering its first request): one read-only connection,
    nothing created, migrated or written. Anything else (no file, an older schema, damage,
    not a store) is left for the open that follows to report.

    Raises:
        StoreVersionError: The store was written by a newer anneal-memory.
    """
    target = Path(path).expanduser().absolute()
    if not target.is_file():
        return
    try:
        opened = open_database(target, read_only=True)
    except StoreVersionError:
        raise
    except StoreError:
        return
    opened.conn.close()


def close_database(conn: sqlite3.Connection, session: _fingerprint.Session | None) -> None:
    """Close ``conn``; a small store known good at open is recorded as known good again."""
    seal = session is not None and damage_of(conn) is None and session.before_close(conn)
    conn.close()
    if seal and session is not None:
        with contextlib.suppress(OSError):
            if session.path.stat().st_size <= QUICK_CHECK_MAX_BYTES:
                session.seal()


def orphaned_temp_files(path: Path, *, min_age: float = ORPHAN_AGE_SECONDS) -> list[Path]:
    """Temp files of our own naming beside the store, left by a crash mid atomic write.

    Only files older than ``min_age`` seconds count, so a write in progress in another
    process is never taken for an orphan.
    """
    stem_prefix = f".{path.stem}."
    now = time.time()
    found: list[Path] = []
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return found
    for entry in entries:
        name = entry.name
        if not name.startswith(stem_prefix) or not _TEMP_SUFFIX.search(name):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and now - info.st_mtime >= min_age:
            found.append(Path(entry.path))
    return sorted(found)


def remove_orphaned_temp_files(path: Path) -> int:
    """Delete the orphaned temp files beside the store; return how many went."""
    removed = 0
    for orphan in orphaned_temp_files(path):
        with contextlib.suppress(OSError):
            orphan.unlink()
            removed += 1
    return removed
