"""Long id lists go to SQLite in chunks, each with its ``?`` placeholder list.

Chunks stay well under the bound-variable limit of old SQLite builds (999).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

__all__ = ["SQLITE_INT_MAX", "in_chunks"]

SQLITE_INT_MAX = 2**63 - 1  # the largest integer SQLite binds; a larger limit means "all"


def in_chunks(values: Sequence[str], size: int) -> Iterator[tuple[Sequence[str], str]]:
    """Yield ``(chunk, "?,?,...")`` for consecutive chunks of at most ``size`` values."""
    for start in range(0, len(values), size):
        chunk = values[start : start + size]
        yield chunk, ",".join("?" * len(chunk))
