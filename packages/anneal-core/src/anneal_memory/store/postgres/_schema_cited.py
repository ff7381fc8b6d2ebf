"""PostgreSQL schema step: pattern history keeps the ids each saved line cited and validated.

The twin of SQLite's ``PATTERN_CITATIONS`` (``store/sqlite/_schema_cited.py``): two columns of
space-separated episode ids, "" for older rows. Adding a column with a constant default does
not rewrite the table. It comes before the trust step, which stays the last.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["PATTERN_CITATIONS"]

PATTERN_CITATIONS: Sequence[str] = (
    "ALTER TABLE pattern_history ADD COLUMN cited_ids text NOT NULL DEFAULT ''",
    "ALTER TABLE pattern_history ADD COLUMN validated_ids text NOT NULL DEFAULT ''",
)
