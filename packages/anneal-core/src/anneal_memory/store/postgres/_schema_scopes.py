"""PostgreSQL schema step: a wrap per scope, as SQLite's ``_SCOPED_WRAPS`` migration.

Every wrap, pattern and pattern history row of an older store belongs to the shared scope
``''``; one wrap may be open per scope, and a pattern's level is kept per (scope, identity).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["SCOPED_WRAPS_V4"]

_SCOPE = "scope text COLLATE \"C\" NOT NULL DEFAULT ''"

SCOPED_WRAPS_V4: Sequence[str] = (
    f"ALTER TABLE wraps ADD COLUMN {_SCOPE}",
    "DROP INDEX wraps_one_open",
    "CREATE UNIQUE INDEX wraps_one_open_per_scope ON wraps (scope) WHERE status = 'open'",
    "CREATE INDEX wraps_by_scope ON wraps (scope, status, id)",
    f"ALTER TABLE patterns ADD COLUMN {_SCOPE}",
    "ALTER TABLE patterns DROP CONSTRAINT patterns_pkey",
    "ALTER TABLE patterns ADD PRIMARY KEY (scope, identity)",
    f"ALTER TABLE pattern_history ADD COLUMN {_SCOPE}",
    "DROP INDEX pattern_history_identity",
    "CREATE INDEX pattern_history_identity ON pattern_history (scope, identity, wrap_id)",
)
