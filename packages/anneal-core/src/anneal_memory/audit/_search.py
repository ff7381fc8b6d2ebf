"""Pages of the trail, newest first, filtered on the raw lines before any is parsed.

Entries are canonical compact JSON (sorted keys, no spaces), so ``"event":"record"`` and a
quoted episode id are byte strings a line holds exactly when the entry does. Filtering the
bytes first keeps a page of a million-entry trail to one pass over its files, parsing only
the lines the page shows.
"""

from __future__ import annotations

import json
import os
import re
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from anneal_memory.audit._chain import split_complete
from anneal_memory.audit._files import AuditPaths
from anneal_memory.audit._read import file_bytes

__all__ = ["TrailPage", "event_needle", "field_needles", "page_entries", "value_needles"]


@dataclass(frozen=True, slots=True, kw_only=True)
class TrailPage:
    """One page of audit entries.

    Attributes:
        entries: The entries of the page, newest first.
        matched: How many entries of the whole trail matched the filters.
    """

    entries: tuple[dict[str, Any], ...]
    matched: int


def event_needle(event: str) -> bytes:
    """The bytes every line of ``event`` holds."""
    return f'"event":{json.dumps(event)}'.encode()


def value_needles(values: Iterable[str]) -> list[bytes]:
    """Bytes a line holds when one of ``values`` is a JSON string anywhere in its entry."""
    return [json.dumps(str(v)).encode() for v in values]


def field_needles(key: str, values: Iterable[object]) -> list[bytes]:
    """Bytes a line holds when its entry has ``key`` equal to one of ``values`` (any depth)."""
    found = []
    for value in values:
        pair = f"{json.dumps(key)}:{json.dumps(value)}".encode()
        found += [pair + b",", pair + b"}"]
    return found


def _matching(lines: list[bytes], wanted: bytes | None, needles: Sequence[bytes]) -> list[bytes]:
    # List comprehensions and one compiled alternation keep the per-line work in C: a page of
    # a million-line trail is one pass, not a Python loop of checks per line.
    if wanted is not None:
        lines = [raw for raw in lines if wanted in raw]
    if len(needles) == 1:
        needle = needles[0]
        lines = [raw for raw in lines if needle in raw]
    elif needles:
        pattern = re.compile(b"|".join(re.escape(n) for n in needles))
        lines = [raw for raw in lines if pattern.search(raw)]
    return lines


def page_entries(
    db_path: str | os.PathLike[str],
    *,
    limit: int,
    offset: int = 0,
    event: str | None = None,
    needles: Sequence[bytes] = (),
    since: str | None = None,
) -> TrailPage:
    """Entries newest first, ``offset`` skipped, at most ``limit``.

    Args:
        db_path: The database whose trail to read.
        limit: At most this many entries.
        offset: Skip this many of the newest matches first.
        event: Keep only entries of this event.
        needles: Keep only entries whose line holds one of these byte strings (see
            :func:`value_needles` and :func:`field_needles`).
        since: Entries older than this store timestamp may be left out: sealed weeks that
            end before it are not read (an episode's entries are never older than it).

    Raises:
        AuditError: The manifest or a sealed week cannot be read.
    """
    wanted = None if event is None else event_needle(event)
    kept: deque[bytes] = deque(maxlen=max(0, offset) + max(0, limit))
    matched = 0
    for _name, data in file_bytes(AuditPaths.for_db(db_path), since=since):
        lines = _matching(split_complete(data)[0], wanted, needles)
        matched += len(lines)
        kept.extend(lines)
    newest = list(reversed(kept))[max(0, offset) :]
    entries = []
    for raw in newest[: max(0, limit)]:
        try:
            entry = json.loads(raw)
        except ValueError:
            continue
        if isinstance(entry, dict):
            entries.append(entry)
    return TrailPage(entries=tuple(entries), matched=matched)
