"""A record that repeats what a recent exposure showed derives from it (the self-feeding loop).

``AgentMemory`` and the MCP server remember in-process what recall showed their session
(``agent._echoes``). A record made elsewhere (a library ``Store.record``, a CLI ``record``,
a process of its own) asks the exposures table instead: the episodes the newest exposures of
the same scope (and session, when one is given) showed are the candidates, and a text that
repeats one (:func:`~anneal_memory.store.provenance.copy_source`) is recorded
``derived_from`` it, so its effective trust is the original's and the wrap's save counts it
as the original's evidence. The look-back is bounded so a record never scans much:
exposures of the last :data:`LOOKBACK_MINUTES`, at most :data:`LOOKBACK_EXPOSURES` of them
and :data:`LOOKBACK_EPISODES` episode ids.
"""

from __future__ import annotations

import datetime as _dt
import json

from anneal_memory._clock import format_timestamp
from anneal_memory.store._contract import SqlConnection
from anneal_memory.store.provenance._echo import copy_source

__all__ = [
    "LOOKBACK_EPISODES",
    "LOOKBACK_EXPOSURES",
    "LOOKBACK_MINUTES",
    "exposed_copy",
    "recent_shown",
]

LOOKBACK_MINUTES = 60
LOOKBACK_EXPOSURES = 32
LOOKBACK_EPISODES = 256


def recent_shown(
    conn: SqlConnection, since: str, scope: str, session_id: str | None
) -> tuple[str, ...]:
    """Episode ids the newest exposures since ``since`` showed, the most recent first."""
    sql = "SELECT items FROM exposures WHERE at >= ? AND scope = ?"
    params: tuple[object, ...] = (since, scope)
    if session_id is not None:
        sql += " AND session_id = ?"
        params += (session_id,)
    sql += " ORDER BY at DESC LIMIT ?"
    params += (LOOKBACK_EXPOSURES,)
    rows = conn.execute(sql, params).fetchall()
    ids: dict[str, None] = {}
    for (items,) in rows:
        for item in json.loads(str(items)):
            if isinstance(item, str) and item.startswith("e:"):
                ids.setdefault(item[2:])
                if len(ids) >= LOOKBACK_EPISODES:
                    return tuple(ids)
    return tuple(ids)


def exposed_copy(
    conn: SqlConnection,
    text: str,
    *,
    now: _dt.datetime,
    scope: str = "",
    session_id: str | None = None,
) -> list[str] | None:
    """The ``derived_from`` of a record of ``text``: None unless it repeats a shown episode.

    Candidates: the episodes of the newest exposures (module doc) of ``scope``, and of
    ``session_id`` when given (any session otherwise), the most recently shown first.
    """
    since = format_timestamp(now - _dt.timedelta(minutes=LOOKBACK_MINUTES))
    shown = recent_shown(conn, since, scope, session_id)
    return copy_source(conn, text, shown) if shown else None
