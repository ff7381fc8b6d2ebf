"""Whole-store reads of a SQLite store: status, the export dumps, the trail's lines."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import IO

from anneal_memory.audit._chain import split_complete
from anneal_memory.audit._files import AuditPaths
from anneal_memory.audit._read import file_bytes
from anneal_memory.store._episodes import tombstone_count
from anneal_memory.store.sqlite._outbox import read_failure_count
from anneal_memory.store.sqlite._schema import SCHEMA_VERSION
from anneal_memory.store.sqlite._watermarks import counts_by_type
from anneal_memory.store.wraps._rows import unwrapped_count, wrapped_through
from anneal_memory.types import EpisodeType, StoreStatus

__all__ = ["export_json", "export_markdown", "export_trail", "status"]

_LAST_WRITE = (
    "SELECT max(coalesce((SELECT value FROM meta WHERE key = 'last_write'), ''),"
    " coalesce((SELECT ts FROM episodes ORDER BY seq DESC LIMIT 1), ''))"
)


# The lowest and highest scope and the highest seq: one index probe each (SQLite's min/max
# optimisation needs one aggregate per SELECT).
_SPAN = (
    "SELECT (SELECT min(scope) FROM episodes), (SELECT max(scope) FROM episodes),"
    " (SELECT max(seq) FROM episodes)"
)


def _unwrapped(conn: sqlite3.Connection, live: int) -> int:
    """Episodes waiting for a wrap, in every scope.

    With one scope, the smaller side of its wrap boundary is counted: the episodes above
    it, or (when the boundary is in the lower half of the seqs) ``live`` minus the ones at
    or below it, so a large store that was never wrapped is not counted row by row.
    """
    low, high, top = conn.execute(_SPAN).fetchone()
    if low is None or low != high:
        return unwrapped_count(conn)
    through = wrapped_through(conn, str(low))
    if through * 2 >= int(top):
        return unwrapped_count(conn, str(low))
    row = conn.execute("SELECT count(*) FROM episodes WHERE seq <= ?", (through,)).fetchone()
    return live - int(row[0])


def status(conn: sqlite3.Connection, path: Path) -> StoreStatus:
    """Counts by type, deletions, unwrapped episodes, file sizes and the last write."""
    counts = {t.value: 0 for t in EpisodeType}
    counts.update(counts_by_type(conn))
    unwrapped = _unwrapped(conn, sum(counts.values()))
    # Records do not touch `meta` (one page less per commit); other writes stamp it.
    last = conn.execute(_LAST_WRITE).fetchone()
    wal = path.with_name(path.name + "-wal")
    return StoreStatus(
        path=str(path),
        total_episodes=sum(counts.values()),
        episodes_by_type=counts,
        deleted_episodes=tombstone_count(conn),
        episodes_since_wrap=int(unwrapped),
        db_bytes=path.stat().st_size,
        wal_bytes=wal.stat().st_size if wal.exists() else 0,
        last_write=str(last[0]) or None,
        schema_version=SCHEMA_VERSION,
        audit_write_failures=read_failure_count(conn),
    )


def export_json(
    conn: sqlite3.Connection,
    out: IO[str],
    *,
    exported_at: str,
    continuity_of: Callable[[str], str | None],
) -> int:
    """Write the export document (inside the caller's read transaction); the episode count."""
    from anneal_memory.store.transfer._episodes import iter_export_chunks

    count = int(conn.execute("SELECT count(*) FROM episodes").fetchone()[0])
    chunks = iter_export_chunks(
        conn, exported_at=exported_at, schema_version=SCHEMA_VERSION, continuity_of=continuity_of
    )
    for chunk in chunks:
        out.write(chunk)
    return count


def export_markdown(
    conn: sqlite3.Connection,
    out: IO[str],
    *,
    project_name: str,
    exported_at: str,
    continuity: str | None,
) -> int:
    """Write the readable dump (inside the caller's read transaction); the episode count."""
    from anneal_memory.store.transfer._markdown import iter_markdown_chunks

    count = int(conn.execute("SELECT count(*) FROM episodes").fetchone()[0])
    for chunk in iter_markdown_chunks(
        conn, exported_at=exported_at, project_name=project_name, continuity=continuity
    ):
        out.write(chunk)
    return count


def export_trail(path: Path, out: IO[str]) -> int:
    """Write every complete line of the trail beside ``path``, oldest first; the count.

    Raises:
        AuditError: The manifest or a sealed week cannot be read.
    """
    count = 0
    for _name, data in file_bytes(AuditPaths.for_db(path)):
        lines, _torn = split_complete(data)
        for raw in lines:
            out.write(raw.decode("utf-8").rstrip("\n") + "\n")
            count += 1
    return count
