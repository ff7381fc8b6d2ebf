"""Which crystals cite episodes as evidence: asked before a delete or prune, to report it.

The store knows the ``crystal_evidence`` table (it is part of its schema) but not the
crystal room's code. Evidence rows outlive their episode; the crystal then reports the id
as deleted.
"""

from __future__ import annotations

from collections.abc import Sequence

from anneal_memory.store._contract import SqlConnection

__all__ = ["citing_crystals", "citing_crystals_before"]

_CHUNK = 500


def citing_crystals(conn: SqlConnection, episode_ids: Sequence[str]) -> tuple[str, ...]:
    """Names of the crystals (live or retired) citing any of ``episode_ids``, sorted."""
    names: set[str] = set()
    ids = list(episode_ids)
    for start in range(0, len(ids), _CHUNK):
        part = ids[start : start + _CHUNK]
        marks = ",".join("?" * len(part))
        rows = conn.execute(
            f"SELECT DISTINCT crystal FROM crystal_evidence WHERE episode_id IN ({marks})",  # noqa: S608
            part,
        )
        names.update(str(r[0]) for r in rows)
    return tuple(sorted(names))


def citing_crystals_before(conn: SqlConnection, cutoff: str) -> tuple[str, ...]:
    """Names of the crystals citing an episode stamped before ``cutoff``, sorted."""
    rows = conn.execute(
        "SELECT DISTINCT c.crystal FROM crystal_evidence c JOIN episodes e"
        " ON e.id = c.episode_id WHERE e.ts < ? ORDER BY c.crystal",
        (cutoff,),
    )
    return tuple(str(r[0]) for r in rows)
