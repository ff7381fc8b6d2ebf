"""A record in a new process that repeats what a recent exposure showed (the self-feeding loop).

``AgentMemory`` and the MCP server remember in-process what recall showed (``agent._echoes``).
A CLI ``record`` is a process of its own: it asks the exposures instead. The episodes the
newest exposures of the same scope (and session, when one is given) showed are the
candidates; a text that repeats one (``store.provenance.copy_source``) is recorded derived
from it. The look-back is bounded so a record never scans much: exposures of the last
:data:`LOOKBACK_MINUTES`, at most :data:`LOOKBACK_EXPOSURES` of them and
:data:`LOOKBACK_EPISODES` episode ids.
"""

from __future__ import annotations

import datetime as _dt
import json

from anneal_memory._clock import format_timestamp
from anneal_memory.store import SqlConnection, Store
from anneal_memory.store.provenance import copy_source

__all__ = ["LOOKBACK_EPISODES", "LOOKBACK_EXPOSURES", "LOOKBACK_MINUTES", "exposed_source"]

LOOKBACK_MINUTES = 60
LOOKBACK_EXPOSURES = 32
LOOKBACK_EPISODES = 256


def _recent_items(
    conn: SqlConnection, since: str, scope: str, session_id: str | None
) -> tuple[str, ...]:
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


def exposed_source(
    store: Store, text: str, *, scope: str = "", session_id: str | None = None
) -> list[str] | None:
    """The ``derived_from`` of a record of ``text``: None unless it repeats a shown episode.

    Candidates are the episodes of the newest exposures (module doc) of ``scope``, and of
    ``session_id`` when given (any session otherwise), the most recently shown first.
    Record with ``agent.write_copy``-like care: the episode may be gone since, or of
    another scope.

    Raises:
        StoreError: The store could not be read.
    """
    since = format_timestamp(store.clock.now() - _dt.timedelta(minutes=LOOKBACK_MINUTES))
    with store.reading("exposed source") as reader:
        shown = _recent_items(reader.conn, since, scope, session_id)
        return copy_source(reader.conn, text, shown) if shown else None
