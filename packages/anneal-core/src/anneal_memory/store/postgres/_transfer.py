"""Export and import documents on PostgreSQL (the format and checks of the SQLite store)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import IO, TYPE_CHECKING, Any

from anneal_memory._clock import Clock
from anneal_memory.errors import ImportFormatError, StoreDatabaseError
from anneal_memory.store._episodes import COLUMNS, episode_from_row
from anneal_memory.store.postgres._rows import same_key
from anneal_memory.store.postgres._schema import PG_SCHEMA_VERSION
from anneal_memory.store.postgres._stats import refresh_after_bulk_write
from anneal_memory.store.transfer._episodes import (
    EXPORT_FORMAT,
    EXPORT_FORMAT_VERSION,
    _check_document,
    _parse_episode,
    _same,
)
from anneal_memory.store.transfer._links import import_links, import_provenance, iter_link_chunks
from anneal_memory.store.transfer._memory import import_memory, iter_memory_chunks
from anneal_memory.types import ImportResult

if TYPE_CHECKING:
    import sqlite3

    import psycopg

__all__ = ["export_document", "import_document"]

_INSERT = (
    "INSERT INTO episodes (id, ts, type, content, source, metadata, idempotency_key, scope)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
)


def _insert(conn: psycopg.Connection[Any], ident: str, item: Any) -> bool:
    """Insert under ``ident``; False when its idempotency key already names that episode."""
    if same_key(conn, item) is not None:
        return False
    values = (
        ident,
        item.timestamp,
        item.type.value,
        item.content,
        item.source,
        item.metadata_json,
        item.idempotency_key,
        item.scope,
    )
    if conn.execute(_INSERT + " ON CONFLICT DO NOTHING", values).rowcount != 1:
        raise StoreDatabaseError(f"episode id {ident} is already taken", operation="import")
    return True


def _tombstones(conn: psycopg.Connection[Any], tombstones: list[Any]) -> int:
    added = 0
    for raw in tombstones:
        if not isinstance(raw, Mapping) or not isinstance(raw.get("id"), str):
            raise ImportFormatError(
                "a tombstone entry is malformed: expected {id, deleted_at, reason}"
            )
        added += conn.execute(
            "INSERT INTO tombstones (id, deleted_at, reason) VALUES (%s, %s, %s)"
            " ON CONFLICT DO NOTHING",
            (raw["id"], str(raw.get("deleted_at", "")), str(raw.get("reason", "import"))),
        ).rowcount
    return added


def import_document(
    conn: psycopg.Connection[Any], document: object, *, clock: Clock, view: sqlite3.Connection
) -> ImportResult:
    """Insert an export's episodes (ids kept), tombstones, links, crystals and spores.

    Runs inside the caller's transaction; ``view`` is that transaction's connection as the
    shared store modules take it (provenance, links, crystals and spores are theirs).

    Raises:
        ImportFormatError: Not a valid export, or an id collides with a different episode;
            the caller's transaction rolls back, so nothing is written.
    """
    episodes, tombstones = _check_document(document)
    parsed = [_parse_episode(raw, i, clock) for i, raw in enumerate(episodes)]
    imported = skipped = 0
    keys: list[str] = []
    for (ident, item), raw in zip(parsed, episodes, strict=True):
        row = conn.execute(
            f"SELECT {COLUMNS} FROM episodes WHERE id = %s",  # noqa: S608
            (ident,),
        ).fetchone()
        if row is not None:
            if not _same(episode_from_row(row), item):
                raise ImportFormatError(
                    f"episode {ident} already exists here with different content; "
                    "import into a fresh store or delete the local episode first"
                )
            skipped += 1
            continue
        if conn.execute("SELECT 1 FROM tombstones WHERE id = %s", (ident,)).fetchone():
            skipped += 1
            continue
        if _insert(conn, ident, item):
            key = import_provenance(view, ident, raw)
            if key is not None:
                keys.append(key)
            imported += 1
        else:
            skipped += 1
    added = _tombstones(conn, tombstones)
    assert isinstance(document, Mapping)  # checked by _check_document
    import_links(view, document.get("supersessions", []), keys)
    crystals, spores = import_memory(view, document)
    refresh_after_bulk_write(conn, imported)
    return ImportResult(
        imported=imported,
        skipped_existing=skipped,
        tombstones_added=added,
        crystals_imported=crystals,
        spores_imported=spores,
    )


def _dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def export_document(
    conn: psycopg.Connection[Any], out: IO[str], *, exported_at: str, view: sqlite3.Connection
) -> int:
    """Write the export document inside the caller's (repeatable read) transaction.

    Episodes stream through a server-side cursor, so memory does not grow with the store;
    links, crystals and spores are written by the shared modules through ``view``.
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
    out.write('\n], "tombstones": [')
    rows = conn.execute("SELECT id, deleted_at, reason FROM tombstones ORDER BY deleted_at, id")
    for index, (ident, deleted_at, reason) in enumerate(rows):
        item = {"id": ident, "deleted_at": deleted_at, "reason": reason}
        out.write(("\n" if index == 0 else ",\n") + _dump(item))
    out.write("\n]")
    for chunk in (*iter_link_chunks(view), *iter_memory_chunks(view)):
        out.write(chunk)
    out.write("}\n")
    return count
