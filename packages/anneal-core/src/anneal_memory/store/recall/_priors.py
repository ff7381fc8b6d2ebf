"""The question's intent applied to SQLite recall's scores (``_intent`` reads the shape).

A prior multiplies an episode's score (bm25, lower is better) by at most
:data:`~anneal_memory.store.recall._intent.MAX_PRIOR_FACTOR`; only episodes that such a
factor could lift into the page are looked up, so the cost stays bounded by the candidates.
"""

from __future__ import annotations

import dataclasses
import sqlite3

from anneal_memory.store._params import in_chunks
from anneal_memory.store.recall._intent import MAX_PRIOR_FACTOR, Intent
from anneal_memory.store.recall._search import RecallFilters

__all__ = ["favoured", "with_priors"]

_CHUNK = 500


def _favoured_condition(intent: Intent, alias: str) -> tuple[str, list[object]]:
    """The condition (on ``episodes`` as ``alias``) an episode a prior favours meets."""
    parts: list[str] = []
    params: list[object] = []
    if intent.types:
        parts.append(f"{alias}type IN ({','.join('?' * len(intent.types))})")
        params.extend(sorted(intent.types))
    if intent.timed:
        parts.append(f"{alias}ts BETWEEN ? AND ?")
        params.extend((intent.since or "", intent.until or "~"))
    return "(" + " OR ".join(parts) + ")", params


def favoured(filters: RecallFilters, intent: Intent) -> RecallFilters:
    """``filters`` narrowed to the episodes a prior favours (its types or its time)."""
    condition, params = _favoured_condition(intent, "e.")
    return dataclasses.replace(
        filters,
        clauses=(*filters.clauses, condition),
        params=(*filters.params, *params),
        only_type=None,
    )


def _within_reach(scores: dict[int, float], depth: int) -> list[int]:
    """The episodes the largest prior could lift into the best ``depth``."""
    if len(scores) <= depth:
        return list(scores)
    threshold = sorted(scores.values())[depth - 1]
    return [seq for seq, score in scores.items() if score * MAX_PRIOR_FACTOR <= threshold]


def with_priors(
    conn: sqlite3.Connection, scores: dict[int, float], intent: Intent, depth: int
) -> dict[int, float]:
    """``scores`` with the intent's priors applied where they can change the page."""
    reach = _within_reach(scores, depth)
    out = dict(scores)
    # Only the favoured episodes are read: every other one keeps its score (a factor of 1).
    condition, params = _favoured_condition(intent, "")
    for chunk, marks in in_chunks(reach, _CHUNK):
        rows = conn.execute(
            f"SELECT seq, type, ts FROM episodes WHERE seq IN ({marks}) AND {condition}",  # noqa: S608
            (*chunk, *params),
        )
        for seq, kind, ts in rows:
            out[seq] = scores[seq] * intent.factor(str(kind), str(ts))
    return out
