"""Deleted text leaves the files, not just the tables.

``secure_delete=ON`` (see ``_connection``) zeroes the pages a delete frees, but two copies
would survive it: the full-text index keeps a deleted episode's terms in its older segments
until they are merged, and the ``-wal`` keeps earlier copies of every page it logged until a
checkpoint. So a delete merges the index (FTS5 ``optimize``: the old segments are freed and
zeroed) in its own transaction, and after the commit checkpoints the log and truncates it.
"""

from __future__ import annotations

import contextlib
import sqlite3

__all__ = ["checkpoint_wal", "purge_deleted_text"]


def purge_deleted_text(conn: sqlite3.Connection) -> None:
    """Inside the delete's write transaction: rewrite the search index without its terms."""
    conn.execute("INSERT INTO episodes_fts(episodes_fts) VALUES ('optimize')")


def checkpoint_wal(conn: sqlite3.Connection) -> bool:
    """After the commit: copy the log into the database and truncate it to zero bytes.

    Returns False when a reader in another process still needed old pages (the log is
    then emptied by a later checkpoint); never raises.
    """
    with contextlib.suppress(sqlite3.Error):
        busy, _logged, _moved = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        return int(busy) == 0
    return False
