"""``import``: tell a source's format from its first bytes and stream it into the store.

Formats: our own export, the public anneal-memory 1.0.2 export and database (with its
sidecar files), and the reference MCP memory server's ``memory.json``. The caller runs
``import_source`` inside one write transaction and commits (or, for a dry run, rolls back)
the whole of it; the continuity text to write is returned, not written.
"""

from __future__ import annotations

import hashlib
import io
import os
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from anneal_memory._clock import Clock
from anneal_memory._sidefile import IMPORT_HINT, open_file
from anneal_memory.document import _document
from anneal_memory.document._schema import SCHEMAS, SectionSchema, schema_by_name
from anneal_memory.errors import ImportFormatError, UnsafeFileError
from anneal_memory.store._contract import Dialect
from anneal_memory.store.transfer._levels import capped_levels
from anneal_memory.store.transfer._records import ContinuityRecord, Kind, SourceFormat
from anneal_memory.store.transfer._restore import Restored, restore_history
from anneal_memory.store.transfer._sink import Sink
from anneal_memory.store.transfer._stream import HashingSource, JsonDocument
from anneal_memory.store.transfer.formats._json import read_export
from anneal_memory.store.transfer.formats._server_memory import (
    looks_like_server_memory,
    read_server_memory,
)
from anneal_memory.store.transfer.formats._v1_db import SQLITE_MAGIC, read_v1_database
from anneal_memory.store.wraps._place import read_file
from anneal_memory.types import ImportReport, Trust

__all__ = ["ImportPlan", "import_source"]

_HEAD_BYTES = 64 * 1024
_SCHEMA_KEY = "section_schema"


@dataclass(frozen=True, slots=True, kw_only=True)
class ImportPlan:
    """An import's report and the continuity text still to be written (None: nothing)."""

    report: ImportReport
    continuity: str | None
    restored: Mapping[str, str] = field(default_factory=dict)
    """Continuity texts of an export's scopes to write ("" is the store's own)."""


def _sha256_file(handle: IO[bytes]) -> str:
    digest = hashlib.sha256()
    handle.seek(0)
    while chunk := handle.read(1024 * 1024):
        digest.update(chunk)
    return digest.hexdigest()


def _open(path: Path) -> IO[bytes]:
    """The file to import, opened as ``_sidefile`` opens files: a regular file, not a link."""
    try:
        fd = open_file(path, what="the file to import", hint=IMPORT_HINT)
    except UnsafeFileError as exc:
        raise ImportFormatError(str(exc)) from None
    except OSError as exc:
        raise ImportFormatError(f"{exc.strerror}: {path}") from None
    if fd is None:
        raise ImportFormatError(f"No such file or directory: {path}")
    return os.fdopen(fd, "rb")


def _stream(
    sink: Sink, handle: IO[bytes], head: bytes, name: str, clock: Clock
) -> tuple[SourceFormat, ContinuityRecord | None, str]:
    source = HashingSource(head, handle)
    buffered = io.BufferedReader(source, buffer_size=1024 * 1024)
    first = head.lstrip(b"\xef\xbb\xbf \t\r\n").split(b"\n", 1)[0]
    if not first:
        raise ImportFormatError(f"nothing to import: {name} is empty")
    if looks_like_server_memory(first):
        sink.set_format(SourceFormat.SERVER_MEMORY)
        read_server_memory(sink, buffered, name=name, clock=clock)
        fmt, continuity = SourceFormat.SERVER_MEMORY, None
    elif first.startswith(b"{"):
        fmt, continuity = read_export(
            sink, JsonDocument(buffered, name=name), name=name, clock=clock
        )
    else:
        raise ImportFormatError(
            f"{name} is not a format anneal-memory can import (an anneal-memory or 1.0.2 "
            "export, a 1.0.2 database, or the MCP memory server's memory.json)"
        )
    source.drain()
    return fmt, continuity, source.sha256.hexdigest()


def _schema(conn: sqlite3.Connection, wanted: tuple[str, ...] | None) -> SectionSchema:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (_SCHEMA_KEY,)).fetchone()
    if row is not None:
        return schema_by_name(str(row[0]))
    for schema in SCHEMAS.values():
        if wanted and [s.heading.lower() for s in schema.required] == [h.lower() for h in wanted]:
            return schema
    return schema_by_name("default")


def _continuity(
    sink: Sink, conn: sqlite3.Connection, record: ContinuityRecord | None, target: Path
) -> str | None:
    """Check the source's continuity against the store's schema; return the text to write."""
    if record is None:
        return None
    count = sink.count(Kind.CONTINUITY)
    count.found += 1
    text = _document.canonical_text(record.text)
    existing = read_file(target)
    if existing is not None:
        if existing == text:
            count.skipped += 1
        else:
            count.not_carried += 1
            count.reason = f"not carried: this store already has {target.name}"
        return None
    schema = _schema(conn, record.headings)
    _found, problems = _document.match_sections(_document.parse(text), schema)
    if problems:
        detail = "; ".join(p.message for p in problems)
        raise ImportFormatError(
            f"{record.place} does not fit the section schema {schema.name!r}: {detail}; "
            "fix the file (or choose the store's schema) and import again"
        )
    if len(text) > schema.hard_max_chars() * 2:
        raise ImportFormatError(
            f"{record.place} is {len(text):,} characters, far above the schema's hard "
            f"maximum of {schema.hard_max_chars():,}; it is not a continuity file"
        )
    conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)", (_SCHEMA_KEY, schema.name))
    count.imported += 1
    return capped_levels(conn, count, text, schema, record.place)


def import_source(
    conn: sqlite3.Connection,
    dialect: Dialect,
    path: Path,
    *,
    stage_dir: Path,
    clock: Clock,
    continuity_file: Path,
    dry_run: bool,
    trust_ceiling: Trust = Trust.AGENT,
) -> ImportPlan:
    """Stream ``path`` into the store through ``conn`` (inside the caller's transaction).

    ``stage_dir`` is a private folder for the staging file (``_staging.staging_folder``).

    Raises:
        ImportFormatError: The source is not importable, or clashes with this store; the
            message names the place. The caller rolls back: nothing is written.
    """
    empty = conn.execute(
        "SELECT NOT EXISTS (SELECT 1 FROM episodes) AND NOT EXISTS (SELECT 1 FROM wraps)"
    ).fetchone()[0]
    sink = Sink(
        conn,
        dialect,
        stage_dir=stage_dir,
        target_empty=bool(empty),
        trust_ceiling=trust_ceiling,
    )
    try:
        with _open(path) as handle:
            head = handle.read(_HEAD_BYTES)
            if head.startswith(SQLITE_MAGIC):
                fmt = SourceFormat.V1_DATABASE
                sink.set_format(fmt)
                record, _ = read_v1_database(sink, path, clock=clock)
                sha256 = _sha256_file(handle)
            else:
                fmt, record, sha256 = _stream(sink, handle, head, str(path), clock)
        sink.flush_episodes()
        schema = _schema(conn, record.headings if record else None)
        sink.flush_wraps(schema_name=schema.name, max_chars=schema.target_chars)
        sink.flush_patterns()
        sink.flush_pending()
        sink.flush_associations()
        text = _continuity(sink, conn, record, continuity_file)
        restored = restore_history(conn, sink.history, target_empty=bool(empty))
        _count_restored(sink, restored)
    finally:
        sink.close()
    report = ImportReport(
        source=str(path),
        format=fmt.value,
        sha256=sha256,
        dry_run=dry_run,
        counts=sink.counts(),
        redacted=sink.redacted(),
    )
    return ImportPlan(report=report, continuity=text, restored=restored.continuity)


def _count_restored(sink: Sink, restored: Restored) -> None:
    """Our export's history in the report's counts (what a restore put back)."""
    for kind, n in (
        (Kind.WRAPS, restored.wraps),
        (Kind.PATTERN_LEVELS, restored.patterns),
        (Kind.ASSOCIATIONS, restored.associations),
        (Kind.CONTINUITY, len(restored.continuity)),
    ):
        if n:
            count = sink.count(kind)
            count.found += n
            count.imported += n
    for reason in restored.not_carried:
        count = sink.count(Kind.WRAPS)
        count.not_carried += 1
        count.note(reason)
