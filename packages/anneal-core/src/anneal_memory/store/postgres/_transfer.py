"""The export document of a PostgreSQL store (the SQLite store's format), streamed."""

from __future__ import annotations

import json
from typing import IO, TYPE_CHECKING, Any

from anneal_memory.store._episodes import COLUMNS, episode_from_row
from anneal_memory.store.postgres._continuity import read_text
from anneal_memory.store.postgres._schema import PG_SCHEMA_VERSION
from anneal_memory.store.transfer._episodes import (
    EXPORT_FORMAT,
    EXPORT_FORMAT_VERSION,
    iter_tombstone_chunks,
)
from anneal_memory.store.transfer._links import iter_link_chunks
from anneal_memory.store.transfer._memory import iter_memory_chunks
from anneal_memory.store.transfer._restore import iter_history_chunks
from anneal_memory.store.transfer._worth import iter_worth_chunks

if TYPE_CHECKING:
    import psycopg

    from anneal_memory.store._contract import SqlConnection

__all__ = ["export_document"]


def _dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def export_document(
    conn: psycopg.Connection[Any], out: IO[str], *, exported_at: str, view: SqlConnection
) -> int:
    """Write the export document inside the caller's (repeatable read) transaction.

    Episodes stream through a server-side cursor, so memory does not grow with the store;
    tombstones, links, crystals and spores are written by the shared modules through ``view``.
    """
    header = {
        "format": EXPORT_FORMAT,
        "format_version": EXPORT_FORMAT_VERSION,
        "exported_at": exported_at,
        "schema_version": PG_SCHEMA_VERSION,
    }
    out.write(_dump(header)[:-1] + ', "episodes": [')
    count = 0
    with conn.cursor(name="anneal_export") as cursor:
        cursor.execute(f"SELECT {COLUMNS}, scope FROM episodes ORDER BY seq")  # noqa: S608
        for row in cursor:
            item = {**episode_from_row(row).to_dict(), "scope": row[-1]}
            out.write(("\n" if count == 0 else ",\n") + _dump(item))
            count += 1
    for chunk in (
        *iter_tombstone_chunks(view),
        *iter_link_chunks(view),
        *iter_memory_chunks(view),
        *iter_history_chunks(view, lambda scope: read_text(view, scope=scope)),
        *iter_worth_chunks(view),
    ):
        out.write(chunk)
    out.write("}\n")
    return count
