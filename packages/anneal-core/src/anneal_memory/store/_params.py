"""Parameters both engines can bind: id lists in chunks, paging numbers, prune ages.

Chunks stay well under the bound-variable limit of old SQLite builds (999). Paging numbers
above what SQLite binds mean "all"; an age older than the calendar means "nothing is older".
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterator, Sequence
from typing import TypeVar

from anneal_memory._clock import format_timestamp
from anneal_memory.errors import InvalidInputError

__all__ = ["SQLITE_INT_MAX", "check_days", "clamped_page", "in_chunks", "prune_cutoff"]

_V = TypeVar("_V")
SQLITE_INT_MAX = 2**63 - 1  # the largest integer SQLite binds; a larger limit means "all"


def in_chunks(values: Sequence[_V], size: int) -> Iterator[tuple[Sequence[_V], str]]:
    """Yield ``(chunk, "?,?,...")`` for consecutive chunks of at most ``size`` values."""
    for start in range(0, len(values), size):
        chunk = values[start : start + size]
        yield chunk, ",".join("?" * len(chunk))


def check_days(value: object, name: str, *, none_ok: bool = False) -> float:
    """An age in days for ``prune`` or ``retention_days``: a number, 0 or more (infinite too).

    Raises:
        InvalidInputError: ``value`` is negative, not a number, NaN or a bool.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (value >= 0):
        also = " or None" if none_ok else ""
        raise InvalidInputError(f"{name} must be a number of days (0 or more){also}, got {value!r}")
    return float(value)


def prune_cutoff(now: _dt.datetime, older_than_days: float) -> str:
    """The timestamp before which ``prune(older_than_days)`` deletes (any finite age works)."""
    try:
        return format_timestamp(now - _dt.timedelta(days=older_than_days))
    except OverflowError:  # older than the calendar: nothing is that old
        return format_timestamp(_dt.datetime.min.replace(tzinfo=_dt.timezone.utc))


_PAGE_MAX = SQLITE_INT_MAX // 2  # limit + offset must still bind


def clamped_page(value: int) -> int:
    """A paging number SQLite can bind: anything larger means "all" (or "skip all")."""
    if isinstance(value, int) and not isinstance(value, bool) and value > _PAGE_MAX:
        return _PAGE_MAX
    return value
