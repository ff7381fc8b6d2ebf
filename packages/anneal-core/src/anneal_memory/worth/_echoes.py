"""A record in a new process that repeats what a recent exposure showed (the self-feeding loop).

``AgentMemory`` and the MCP server remember in-process what recall showed (``agent._echoes``).
A CLI ``record`` is a process of its own: it asks the exposures instead, for its session
(``store.provenance.exposed_copy``, which a library ``Store.record`` asks for any session).
The look-back is bounded so a record never scans much: exposures of the last
:data:`LOOKBACK_MINUTES`, at most :data:`LOOKBACK_EXPOSURES` of them and
:data:`LOOKBACK_EPISODES` episode ids.
"""

from __future__ import annotations

from anneal_memory.store import Store
from anneal_memory.store.provenance import (
    LOOKBACK_EPISODES,
    LOOKBACK_EXPOSURES,
    LOOKBACK_MINUTES,
    exposed_copy,
)

__all__ = ["LOOKBACK_EPISODES", "LOOKBACK_EXPOSURES", "LOOKBACK_MINUTES", "exposed_source"]


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
    with store.reading("exposed source") as reader:
        return exposed_copy(
            reader.conn, text, now=store.clock.now(), scope=scope, session_id=session_id
        )
