"""Reading entries back, oldest first, across sealed weeks and the active file."""

from __future__ import annotations

import gzip
import json
import os
import zlib
from collections import deque
from collections.abc import Iterator
from typing import Any

from anneal_memory.audit._chain import split_complete
from anneal_memory.audit._files import (
    ACTIVE_MAX_BYTES,
    SEALED_MAX_BYTES,
    AuditPaths,
    load_manifest,
    read_trail_file,
)
from anneal_memory.errors import AuditError, UnsafeFileError

__all__ = ["file_bytes", "iter_entries", "read_entries"]


def file_bytes(paths: AuditPaths, *, since: str | None = None) -> Iterator[tuple[str, bytes]]:
    """``(file name, bytes)`` of every walked file of the trail, oldest first.

    With ``since`` (a store timestamp), sealed weeks whose last entry is older are skipped.
    """
    try:
        manifest = load_manifest(paths.manifest)
    except (OSError, ValueError, UnsafeFileError) as exc:
        raise AuditError(f"cannot read the audit manifest: {exc}") from None
    for sealed in manifest.files if manifest else ():
        if sealed.set_aside is not None or (since is not None and sealed.last_ts < since):
            continue
        try:
            yield sealed.filename, gzip.decompress(_sealed(paths, sealed.filename))
        except (OSError, EOFError, zlib.error, UnsafeFileError) as exc:
            raise AuditError(f"cannot read sealed week {sealed.filename}: {exc}") from None
    try:
        active = read_trail_file(paths.active, limit=ACTIVE_MAX_BYTES)
    except (OSError, UnsafeFileError) as exc:
        raise AuditError(f"cannot read the audit trail: {exc}") from None
    if active is not None:
        yield paths.active.name, active


def _sealed(paths: AuditPaths, filename: str) -> bytes:
    raw = read_trail_file(paths.beside(filename), limit=SEALED_MAX_BYTES)
    if raw is None:
        raise FileNotFoundError(filename)
    return raw


def iter_entries(db_path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """Yield every complete entry of the trail, oldest first (torn tails are left out).

    Raises:
        AuditError: The manifest or a sealed week cannot be read.
    """
    for _name, data in file_bytes(AuditPaths.for_db(db_path)):
        lines, _torn = split_complete(data)
        for raw in lines:
            try:
                entry = json.loads(raw)
            except ValueError:
                continue
            if isinstance(entry, dict):
                yield entry


def read_entries(
    db_path: str | os.PathLike[str],
    *,
    since: str | None = None,
    event: str | None = None,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """The newest ``limit`` entries matching the filters, oldest first.

    Args:
        db_path: The database whose trail to read.
        since: Keep entries with ``ts`` at or after this store timestamp.
        event: Keep only this event type.
        limit: Keep at most this many (the newest); None keeps all.

    Raises:
        AuditError: The manifest or a sealed week cannot be read.
    """
    # A deque's maxlen is a C ssize_t; a larger limit keeps everything anyway.
    kept: deque[dict[str, Any]] = deque(maxlen=None if limit is None else min(limit, 2**62))
    for entry in iter_entries(db_path):
        if since is not None and str(entry.get("ts", "")) < since:
            continue
        if event is not None and entry.get("event") != event:
            continue
        kept.append(entry)
    return list(kept)
