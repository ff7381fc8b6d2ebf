"""SQLite schema step: pattern history keeps the ids each saved line cited and had validated.

Before it, a step kept a validated line's explanation but not its ids, so ``explain pattern``
could only recompute an older step's grounding from the wrap's snapshot. Both columns hold
space-separated episode ids ("" for the rows saved before this step, and for a line that
cited nothing). PostgreSQL's twin is ``store/postgres/_schema_cited.py``. It comes before the
trust step (``_schema_trust.TRUST_KEPT``), which stays the last.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["PATTERN_CITATIONS"]

PATTERN_CITATIONS: Sequence[str] = (
    "ALTER TABLE pattern_history ADD COLUMN cited_ids TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE pattern_history ADD COLUMN validated_ids TEXT NOT NULL DEFAULT ''",
)
