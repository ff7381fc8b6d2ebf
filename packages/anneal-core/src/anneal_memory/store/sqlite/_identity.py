"""Whose database is this? Recognise anneal-memory stores and refuse everything else.

A store is marked with ``PRAGMA application_id`` = :data:`APPLICATION_ID` (the bytes
``ANML``). Stores made before the mark existed carry ``application_id`` 0 and are recognised
by their schema (``user_version`` within range and the core tables present); a write-capable
open stamps the mark on them. Any other non-empty file is refused before a single byte is
written: another application's SQLite database, the public anneal-memory 1.0.2 format, a
file that is not SQLite at all, or one of our stores whose tables have vanished.
"""

from __future__ import annotations

import enum
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from anneal_memory.errors import StoreDatabaseError

__all__ = [
    "APPLICATION_ID",
    "CORE_TABLES",
    "Identity",
    "StoreKind",
    "identify",
    "refuse_unless_ours",
]

APPLICATION_ID = 0x414E4D4C  # "ANML"
_SQLITE_MAGIC = b"SQLite format 3\x00"
CORE_TABLES = frozenset({"episodes", "tombstones", "meta", "episode_counts", "episodes_fts"})
_WRAP_TABLES = frozenset({"wraps", "patterns", "pattern_history", "associations"})
_PUBLIC_102_TABLES = frozenset({"episodes", "metadata", "tombstones"})
_SHOWN_TABLES = 6


class StoreKind(enum.Enum):
    """What a database file turned out to be."""

    EMPTY = "empty"
    OURS = "ours"
    OURS_UNMARKED = "ours-unmarked"
    VANISHED = "vanished"
    PUBLIC_102 = "public-1.0.2"
    FOREIGN = "foreign"
    NOT_SQLITE = "not-sqlite"


class Identity(NamedTuple):
    """The verdict on one database file.

    Attributes:
        kind: What it is.
        application_id: Its ``PRAGMA application_id`` (0 when unset or not SQLite).
        user_version: Its ``PRAGMA user_version``.
        tables: Its table names, sorted.
        missing: Tables an anneal store of its version should have and does not.
    """

    kind: StoreKind
    application_id: int = 0
    user_version: int = 0
    tables: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()


def _header(path: Path) -> bytes:
    try:
        with path.open("rb") as handle:
            return handle.read(len(_SQLITE_MAGIC))
    except FileNotFoundError:
        return b""


def _expected_tables(user_version: int) -> frozenset[str]:
    return CORE_TABLES | _WRAP_TABLES if user_version >= 2 else CORE_TABLES


def identify(conn: sqlite3.Connection, path: Path, *, schema_version: int) -> Identity:
    """Classify the database behind ``conn`` (opened on ``path``) without writing to it.

    Raises:
        StoreDatabaseError: SQLite could not read the schema (a damaged file).
    """
    header = _header(path)
    if header and header != _SQLITE_MAGIC:
        return Identity(kind=StoreKind.NOT_SQLITE)
    try:
        app_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        names = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    except sqlite3.DatabaseError as exc:
        if "not a database" in str(exc) or "file is not a database" in str(exc):
            return Identity(kind=StoreKind.NOT_SQLITE)
        raise StoreDatabaseError(
            f"cannot read the schema of {path}: SQLite error: {exc}; run 'anneal-memory check'",
            operation="open",
            path=path,
        ) from exc
    tables = frozenset(str(n[0]) for n in names if not str(n[0]).startswith("sqlite_"))
    return _classify(app_id, version, tables, schema_version=schema_version)


def _classify(
    app_id: int, version: int, tables: frozenset[str], *, schema_version: int
) -> Identity:
    missing = tuple(sorted(_expected_tables(version) - tables))
    kind = StoreKind.FOREIGN
    if app_id == APPLICATION_ID:
        kind = StoreKind.VANISHED if missing or version == 0 else StoreKind.OURS
    elif app_id == 0 and not tables and version == 0:
        kind = StoreKind.EMPTY
    elif app_id == 0 and 0 < version <= max(schema_version, version) and not missing:
        kind = StoreKind.OURS_UNMARKED
    elif app_id == 0 and version > 0 and {"meta", "episodes"} <= tables:
        kind = StoreKind.VANISHED
    elif app_id == 0 and tables >= _PUBLIC_102_TABLES and "meta" not in tables:
        kind = StoreKind.PUBLIC_102
    shown_missing = missing if kind is StoreKind.VANISHED else ()
    return Identity(
        kind=kind,
        application_id=app_id,
        user_version=version,
        tables=tuple(sorted(tables)),
        missing=shown_missing,
    )


def _list(names: Sequence[str]) -> str:
    shown = ", ".join(names[:_SHOWN_TABLES])
    more = len(names) - _SHOWN_TABLES
    return shown + (f" and {more} more" if more > 0 else "")


def refuse_unless_ours(found: Identity, path: Path) -> None:
    """Raise unless ``found`` is a store this library may open (or an empty file).

    Raises:
        StoreDatabaseError: The file belongs to something else, or our tables vanished.
    """
    message = _refusal(found, path)
    if message is not None:
        raise StoreDatabaseError(message, operation="open", path=path)


def _refusal(found: Identity, path: Path) -> str | None:
    kind = found.kind
    if kind in {StoreKind.EMPTY, StoreKind.OURS, StoreKind.OURS_UNMARKED}:
        return None
    if kind is StoreKind.NOT_SQLITE:
        return (
            f"{path} is not an anneal-memory store: it is not a SQLite database; "
            "nothing was written"
        )
    if kind is StoreKind.VANISHED:
        return (
            f"{path} is an anneal-memory store whose tables vanished "
            f"({_list(found.missing)} missing); refusing to re-create them over the remains. "
            "Restore it from a backup or an export; run 'anneal-memory check' for details"
        )
    if kind is StoreKind.PUBLIC_102:
        import shlex  # this message only: start-up speed (#25)

        return (
            f"{path} is a database of the public anneal-memory 1.0.2 (tables "
            f"{_list(found.tables)}), a format this version does not open in place; nothing was "
            f"written. Import it into a new store: anneal-memory --db NEW.db import "
            f"{shlex.quote(str(path))}"
        )
    tables = _list(found.tables) if found.tables else "no tables"
    return (
        f"{path} is not an anneal-memory store: it is the SQLite database of another "
        f"application (application_id {found.application_id}, user_version "
        f"{found.user_version}, tables: {tables}); refusing to take it over, nothing was written"
    )
