"""PostgreSQL schema step: exposures, their outcomes, and the totals of pruned exposures (#28).

The tables of SQLite's ``WORTH`` step (``store/sqlite/_schema_worth.py``), placed before
``TRUST_KEPT`` (which stays the last step).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["WORTH"]

_T = 'text COLLATE "C"'

WORTH: Sequence[str] = (
    f"""CREATE TABLE exposures (
        id {_T} PRIMARY KEY,
        at {_T} NOT NULL,
        via {_T} NOT NULL,
        scope {_T} NOT NULL,
        session_id {_T},
        items text NOT NULL
    )""",
    "CREATE INDEX exposures_at ON exposures (at)",
    f"""CREATE TABLE outcomes (
        exposure {_T} PRIMARY KEY REFERENCES exposures (id) ON DELETE CASCADE,
        result {_T} CHECK (result IN ('success', 'failure')),
        labels text NOT NULL,
        note text NOT NULL,
        updated_at {_T} NOT NULL,
        revision bigint NOT NULL
    )""",
    f"""CREATE TABLE worth_totals (
        item {_T} PRIMARY KEY,
        counts text NOT NULL
    )""",
)
