"""SQLite schema step: exposures, outcomes, pruned totals, and drift probes (#28).

The step before ``TRUST_KEPT`` in ``_schema.MIGRATIONS`` (which stays the last step);
PostgreSQL's twin is ``store/postgres/_schema_worth.py``. An exposure is one block of memory
that reached a model: ``items`` is a JSON list of ``"kind:ref"`` strings (``e:`` episode,
``p:`` pattern, ``c:`` crystal). An outcome row is the merged labels of one exposure.
``worth_totals`` keeps the counts of exposures the retention pruned, per item, so the worth
report does not forget them. A probe is something the operator expects the continuity to
keep (a pattern at a level, or a fact); every save checks each live probe and keeps its last
status, the line it matched and the wrap that checked it.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["WORTH"]

WORTH: Sequence[str] = (
    """
    CREATE TABLE exposures (
        id TEXT PRIMARY KEY,
        at TEXT NOT NULL,
        via TEXT NOT NULL,
        scope TEXT NOT NULL,
        session_id TEXT,
        items TEXT NOT NULL
    ) WITHOUT ROWID
    """,
    "CREATE INDEX exposures_at ON exposures(at)",
    """
    CREATE TABLE outcomes (
        exposure TEXT PRIMARY KEY REFERENCES exposures(id) ON DELETE CASCADE,
        result TEXT CHECK (result IN ('success', 'failure')),
        labels TEXT NOT NULL,
        note TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        revision INTEGER NOT NULL
    ) WITHOUT ROWID
    """,
    """
    CREATE TABLE worth_totals (
        item TEXT PRIMARY KEY,
        counts TEXT NOT NULL
    ) WITHOUT ROWID
    """,
    """
    CREATE TABLE probes (
        num INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL CHECK (kind IN ('pattern', 'fact')),
        target TEXT NOT NULL,
        min_level INTEGER,
        section TEXT,
        scope TEXT NOT NULL,
        note TEXT NOT NULL,
        created_at TEXT NOT NULL,
        retired_at TEXT,
        last_status TEXT,
        last_line TEXT,
        last_wrap_id INTEGER,
        last_checked_at TEXT
    )
    """,
)
