"""The chain rule: each line names the SHA-256 of the raw line before it.

Pure functions over bytes, shared by appending, verification and repair.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from typing import Any, NamedTuple

from anneal_memory._clock import parse_timestamp

__all__ = [
    "GENESIS_HASH",
    "ChainTip",
    "LineInfo",
    "line_info",
    "link_hash",
    "parse_line",
    "period_of",
    "period_of_timestamp",
    "split_complete",
]

GENESIS_HASH = "sha256:GENESIS"
_ENTRY_KEYS = frozenset({"v", "seq", "ts", "event", "actor", "data", "prev_hash"})
_OPTIONAL_KEYS = frozenset({"dropped_before", "intent"})


def link_hash(raw_line: bytes) -> str:
    """The value the next entry must carry as ``prev_hash`` (line given without its newline)."""
    return "sha256:" + hashlib.sha256(raw_line).hexdigest()


def period_of(moment: _dt.datetime) -> str:
    """The ISO week of an aware datetime in UTC, e.g. ``2026-W09`` (sortable as text)."""
    year, week, _ = moment.astimezone(_dt.timezone.utc).isocalendar()
    return f"{year:04d}-W{week:02d}"


def period_of_timestamp(ts: str) -> str:
    """The ISO week of an entry's ``ts`` string."""
    return period_of(parse_timestamp(ts))


# Named tuples, not frozen dataclasses: immutable all the same, and about a tenth of the
# cost to define at import (each ``anneal-memory record`` defines them; start-up, #25).
class ChainTip(NamedTuple):
    """Where the next entry attaches: its ``seq`` and the ``prev_hash`` it must carry."""

    next_seq: int
    prev_hash: str


class LineInfo(NamedTuple):
    """The fields of one parsed line that the chain needs."""

    seq: int
    ts: str
    prev_hash: str
    event: str
    intent: int | None = None


def parse_line(raw_line: bytes) -> dict[str, Any]:
    """Parse one trail line into its entry dict.

    Raises:
        ValueError: The line is not a well-formed entry.
    """
    entry = json.loads(raw_line)
    if not isinstance(entry, dict):
        raise ValueError("an entry must be a JSON object")
    keys = entry.keys()
    if not keys >= _ENTRY_KEYS or not keys <= _ENTRY_KEYS | _OPTIONAL_KEYS:
        raise ValueError(f"unexpected keys {sorted(keys)}")
    if not isinstance(entry["seq"], int) or not isinstance(entry["prev_hash"], str):
        raise ValueError("seq must be an integer and prev_hash a string")
    return entry


def line_info(raw_line: bytes) -> LineInfo:
    """Parse the chain fields of one line (see :func:`parse_line`)."""
    entry = parse_line(raw_line)
    intent = entry.get("intent")
    return LineInfo(
        seq=entry["seq"],
        ts=str(entry["ts"]),
        prev_hash=entry["prev_hash"],
        event=entry["event"],
        intent=intent if isinstance(intent, int) else None,
    )


def split_complete(data: bytes) -> tuple[list[bytes], bytes]:
    """Split file bytes into complete lines (without newlines) and a torn tail (maybe empty)."""
    lines = data.split(b"\n")
    tail = lines.pop()  # after the final newline: empty, or a line cut short
    return lines, tail
