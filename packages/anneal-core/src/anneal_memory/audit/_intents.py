"""Staged audit entries and the newest one the trail already holds.

A store stages each entry in its ``audit_outbox`` table in the transaction of the change,
then appends it here carrying ``intent`` = its outbox row id. Outbox ids only grow and are
appended in order under the append lock, so the trail's newest ``intent`` says which staged
entries reached it: the ones at or below it.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from anneal_memory.audit._chain import line_info, split_complete
from anneal_memory.audit._events import AuditEvent
from anneal_memory.audit._files import SEALED_MAX_BYTES, AuditPaths, Manifest, read_trail_file
from anneal_memory.errors import UnsafeFileError

__all__ = ["MAX_SEALED_SCAN_BYTES", "StagedEntry", "intents_in", "newest_intent"]

MAX_SEALED_SCAN_BYTES = 256 * 1024 * 1024


class StagedEntry(NamedTuple):  # a named tuple: cheap to define at start-up (#25)
    """One entry waiting in the outbox."""

    intent: int
    event: AuditEvent
    actor: str
    data: Mapping[str, Any] = MappingProxyType({})  # read-only: one default shared by all


def intents_in(data: bytes) -> list[int]:
    """The ``intent`` of every complete line of ``data`` that carries one, in file order."""
    lines, _torn = split_complete(data)
    found: list[int] = []
    for raw in lines:
        if b'"intent":' not in raw:
            continue
        try:
            intent = line_info(raw).intent
        except ValueError:
            continue
        if intent is not None:
            found.append(intent)
    return found


def _newest_in(data: bytes) -> int | None:
    lines, _torn = split_complete(data)
    for raw in reversed(lines):
        if b'"intent":' not in raw:
            continue
        try:
            intent = line_info(raw).intent
        except ValueError:
            continue
        if intent is not None:
            return intent
    return None


def newest_intent(paths: AuditPaths, active: bytes, manifest: Manifest) -> int:
    """The newest intent in the active file, else in the newest sealed week, else 0.

    Older weeks are not read: intents only grow, so the newest week holds the newest one.
    """
    found = _newest_in(active)
    if found is not None:
        return found
    import gzip  # sealed weeks only: a plain record never loads it (start-up speed, #25)

    for sealed in manifest.files[-1:]:
        try:
            raw = read_trail_file(paths.beside(sealed.filename), limit=SEALED_MAX_BYTES)
            with gzip.GzipFile(fileobj=io.BytesIO(raw or b""), mode="rb") as handle:
                data = handle.read(MAX_SEALED_SCAN_BYTES)
        except (OSError, EOFError, UnsafeFileError):
            continue
        found = _newest_in(data)
        if found is not None:
            return found
    return 0
