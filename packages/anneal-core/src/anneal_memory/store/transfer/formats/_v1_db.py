"""Reader for a public anneal-memory 1.0.2 database and the files beside it.

The database is opened read-only through a ``file:`` URI (``mode=ro``, and ``immutable=1``
when no write-ahead log is pending), so neither it nor its sidecars are ever modified. Rows
are read in batches inside one read transaction. Sidecars read: ``<stem>.continuity.md``,
``<stem>.crystal.json``, ``<stem>.spores.json`` (each size-bounded).
"""

from __future__ import annotations

import json
import sqlite3
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from anneal_memory._clock import Clock
from anneal_memory._sidefile import read_bytes
from anneal_memory.errors import ImportFormatError, UnsafeFileError
from anneal_memory.store.transfer._records import (
    ContinuityRecord,
    Kind,
    PatternLevelRecord,
    StateKeyRecord,
    TrustRecord,
)
from anneal_memory.store.transfer._sink import Sink
from anneal_memory.store.transfer.formats._v1 import (
    TRUST_CLASSES,
    check_id,
    v1_association,
    v1_crystal_file,
    v1_derived,
    v1_episode,
    v1_spore_file,
    v1_supersession,
    v1_tombstone,
    v1_wrap,
)

__all__ = ["SQLITE_MAGIC", "open_read_only", "read_v1_database"]

SQLITE_MAGIC = b"SQLite format 3\x00"
_MAX_SIDECAR_BYTES = 16 * 1024 * 1024
_BATCH = 2000
_V1_EPISODE_COLUMNS = {"id", "timestamp", "type", "content", "source", "session_id", "metadata"}


def open_read_only(path: Path) -> sqlite3.Connection:
    """Open ``path`` so that nothing can write to it (query_only on top of ``mode=ro``)."""
    wal = path.with_name(path.name + "-wal")
    pending = wal.exists() and wal.stat().st_size > 0
    uri = "file:" + urllib.parse.quote(str(path.absolute())) + "?mode=ro"
    if not pending:
        uri += "&immutable=1"
    # Another program's database, opened read-only; the store's write policy does not apply.
    conn = sqlite3.connect(uri, uri=True, isolation_level=None)  # noqa: TID251
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA query_only=ON")
    return conn


def _tables(conn: sqlite3.Connection) -> set[str]:
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    return {str(r[0]) for r in rows}


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {str(r[1]) for r in conn.execute(f'PRAGMA table_info("{table}")')}


def check_v1_schema(conn: sqlite3.Connection, name: str) -> set[str]:
    """Return the table names, or refuse a database that is not a 1.0.2 store."""
    tables = _tables(conn)
    columns = _columns(conn, "episodes") if "episodes" in tables else set()
    if "seq" in columns and "meta" in tables:
        raise ImportFormatError(
            f"{name} is an anneal-memory 2 store, not a 1.0.2 one; open it directly with "
            "--db, or export it and import the export"
        )
    if not columns >= _V1_EPISODE_COLUMNS or "metadata" not in tables:
        raise ImportFormatError(
            f"{name} is an SQLite database but not an anneal-memory 1.0.2 store (no "
            "episodes table with its columns)"
        )
    return tables


def _rows(conn: sqlite3.Connection, sql: str) -> Iterator[dict[str, Any]]:
    cursor = conn.execute(sql)
    while batch := cursor.fetchmany(_BATCH):
        yield from (dict(row) for row in batch)


def _episodes(sink: Sink, conn: sqlite3.Connection, clock: Clock) -> None:
    origin = "origin_key" if "origin_key" in _columns(conn, "episodes") else "NULL"
    sql = (
        "SELECT rowid AS r, id, timestamp, type, content, source, session_id, metadata, "  # noqa: S608 - fixed names
        + origin
        + " AS origin_key FROM episodes ORDER BY rowid"
    )
    for row in _rows(conn, sql):
        v1_episode(sink, row, f"table episodes row {row['r']}", clock)


def _links(sink: Sink, conn: sqlite3.Connection, tables: set[str]) -> None:
    if "episode_trust" in tables:
        for row in _rows(conn, "SELECT episode_id, trust FROM episode_trust"):
            place = f"table episode_trust ({row['episode_id']})"
            check_id(row["episode_id"], place)
            if row["trust"] not in TRUST_CLASSES:
                raise ImportFormatError(f"{place}: unknown trust class {row['trust']!r}")
            sink.trust(TrustRecord(place=place, episode_id=row["episode_id"], trust=row["trust"]))
    if "episode_derived" in tables:
        sql = "SELECT rowid AS r, episode_id, source_id FROM episode_derived ORDER BY rowid"
        for row in _rows(conn, sql):
            v1_derived(sink, row, f"table episode_derived row {row['r']}")
    if "supersessions" in tables:
        for index, row in enumerate(_rows(conn, "SELECT * FROM supersessions")):
            v1_supersession(sink, row, f"table supersessions row {index + 1}")
    if "state_keys" in tables:
        for row in _rows(conn, "SELECT episode_id, key, set_at FROM state_keys"):
            place = f"table state_keys ({row['episode_id']})"
            sink.state_key(
                StateKeyRecord(
                    place=place,
                    episode_id=check_id(row["episode_id"], place),
                    key=str(row["key"]),
                    set_at=str(row["set_at"]),
                )
            )
    if "pattern_levels" in tables:
        _pattern_levels(sink, conn, tables)


def _pattern_levels(sink: Sink, conn: sqlite3.Connection, tables: set[str]) -> None:
    history = "pattern_history" in tables
    sql = (
        "SELECT l.key AS name, l.level AS level, h.max_level_reached AS max_level,"
        " h.last_explanation AS explanation, h.last_seen_at AS last_seen"
        " FROM pattern_levels l LEFT JOIN pattern_history h ON h.pattern_name = l.key"
        " WHERE l.kind = 'name'"
        if history
        else "SELECT key AS name, level, NULL AS max_level, '' AS explanation,"
        " NULL AS last_seen FROM pattern_levels WHERE kind = 'name'"
    )
    for row in _rows(conn, sql):
        place = f"table pattern_levels ({row['name']})"
        level = row["level"]
        if not isinstance(row["name"], str) or not isinstance(level, int) or level < 0:
            raise ImportFormatError(f"{place} is malformed (a name and a level of 0 or more)")
        sink.pattern_level(
            PatternLevelRecord(
                place=place,
                name=row["name"],
                level=level,
                max_level=max(level, int(row["max_level"] or 0)),
                explanation=str(row["explanation"] or ""),
                last_seen=str(row["last_seen"])[:10] if row["last_seen"] else None,
            )
        )


def _history(sink: Sink, conn: sqlite3.Connection, tables: set[str]) -> None:
    for row in _rows(conn, "SELECT * FROM tombstones"):
        v1_tombstone(sink, row, f"table tombstones ({row.get('id')})")
    if "wraps" in tables:
        for row in _rows(conn, "SELECT * FROM wraps ORDER BY id"):
            v1_wrap(sink, row, f"table wraps row {row.get('id')}")
    if "associations" in tables:
        for index, row in enumerate(_rows(conn, "SELECT * FROM associations")):
            v1_association(sink, row, f"table associations row {index + 1}")


def _read_sidecar(path: Path) -> str | None:
    try:
        data = read_bytes(path, limit=_MAX_SIDECAR_BYTES, what="the 1.0.2 file")
    except OSError as exc:
        raise ImportFormatError(f"cannot read {path.name}: {exc.strerror}") from None
    except UnsafeFileError as exc:
        if exc.found.startswith("larger"):
            raise ImportFormatError(
                f"{path.name} is over 16 MiB; it is not a 1.0.2 sidecar"
            ) from None
        raise ImportFormatError(str(exc)) from None
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ImportFormatError(f"{path.name} is not UTF-8 text") from None


def _sidecar_json(path: Path) -> object:
    text = _read_sidecar(path)
    if text is None:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportFormatError(f"{path.name} is not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise ImportFormatError(f"{path.name} is nested too deeply") from None


def _schema_headings(conn: sqlite3.Connection) -> tuple[str, ...] | None:
    row = conn.execute("SELECT value FROM metadata WHERE key = 'section_schema'").fetchone()
    if row is None or not row[0]:
        return None
    try:
        specs = json.loads(str(row[0]))
        return tuple(str(s["heading"]) for s in specs if not s.get("optional"))
    except (ValueError, TypeError, KeyError, AttributeError):
        raise ImportFormatError("the 1.0.2 section_schema in table metadata is malformed") from None


def read_v1_database(
    sink: Sink, path: Path, *, clock: Clock
) -> tuple[ContinuityRecord | None, Path]:
    """Read a 1.0.2 store (database + sidecars) into ``sink``; return its continuity."""
    try:
        conn = open_read_only(path)
    except sqlite3.Error as exc:
        raise ImportFormatError(f"{path.name} cannot be opened read-only: {exc}") from None
    try:
        conn.execute("BEGIN")
        tables = check_v1_schema(conn, path.name)
        _episodes(sink, conn, clock)
        _links(sink, conn, tables)
        _history(sink, conn, tables)
        headings = _schema_headings(conn)
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        raise ImportFormatError(f"{path.name} could not be read: {exc}") from None
    finally:
        conn.close()
    stem = path.with_name(path.stem)
    crystal = _sidecar_json(Path(f"{stem}.crystal.json"))
    if crystal is not None:
        v1_crystal_file(sink, crystal, f"{path.stem}.crystal.json")
    spores = _sidecar_json(Path(f"{stem}.spores.json"))
    if spores is not None:
        v1_spore_file(sink, spores, f"{path.stem}.spores.json")
    continuity_file = Path(f"{stem}.continuity.md")
    text = _read_sidecar(continuity_file)
    if text is None:
        return None, continuity_file
    sink.count(Kind.CONTINUITY)
    return ContinuityRecord(
        place=continuity_file.name, text=text, headings=headings
    ), continuity_file
