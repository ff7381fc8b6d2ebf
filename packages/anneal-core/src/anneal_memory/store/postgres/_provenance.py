"""Updated facts, trust and crystal evidence on PostgreSQL, through the SQLite store's logic.

The rules live once, in ``store/provenance/_supersession.py``, ``store/provenance/_checks.py`` and
``Store._stage_record``; here they run on this backend's connection view
(``_conn.PgConnection``). A record that supersedes, fills a state key, carries a trust
other than ``agent`` or cites ``derived_from`` changes other episodes' rows, so it takes the
store's exclusive write lock (as SQLite serialises every write): two writers filling one
state key at once can never both end up current. Plain records keep the shared lock.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from anneal_memory.store.postgres._conn import PgConnection, Session
from anneal_memory.store.postgres._rows import insert_episode
from anneal_memory.store.sqlite._connection import write_transaction

if TYPE_CHECKING:
    import sqlite3

    import psycopg

    from anneal_memory.store._store import Store
    from anneal_memory.store._validate import EpisodeInput
    from anneal_memory.store.provenance._api import RecordProvenance
    from anneal_memory.types import Episode

__all__ = ["PoolView", "pool_view", "record_with_provenance"]


class PoolView(PgConnection):
    """The library modules' connection view over a pool connection, inside its transaction.

    Args:
        raw: A pool connection with an open transaction (the caller commits it).
        session: The store's session (its URL names errors).
        operation: What the statements are for, in error messages.
    """

    def __init__(self, raw: psycopg.Connection[Any], session: Session, operation: str) -> None:
        # No super().__init__: the connection is the caller's, not the session's.
        self._session = session
        self._operation = operation
        self.raw = raw


def pool_view(raw: psycopg.Connection[Any], session: Session, operation: str) -> sqlite3.Connection:
    """``raw`` as the ``sqlite3.Connection``-like object the shared store modules take."""
    return cast("sqlite3.Connection", PoolView(raw, session, operation))


def record_with_provenance(store: Store, item: EpisodeInput, prov: RecordProvenance) -> Episode:
    """Record ``item`` with its provenance and audit entries in one exclusive transaction.

    Raises:
        SupersessionError: A ``supersedes`` link is invalid; nothing was written.
        InvalidEpisodeError: A ``derived_from`` id does not exist; nothing was written.
        StoreDatabaseError: PostgreSQL failed; nothing was written.
    """
    with store._lock:
        conn = store.connection("record")
        with write_transaction(conn, operation="record"):
            raw = cast("PgConnection", conn).raw
            episode, new = insert_episode(raw, item)
            if new:
                episode = store._stage_record(conn, episode, prov, [])
    return episode
