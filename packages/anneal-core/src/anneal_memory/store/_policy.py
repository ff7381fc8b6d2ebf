"""The consolidate policy's key in ``meta``, below the gate so the store can set it on create."""

from __future__ import annotations

from anneal_memory.store._contract import SqlConnection

__all__ = ["POLICY_KEY", "read_policy", "write_policy"]

POLICY_KEY = "consolidate_requires_baton"


def read_policy(conn: SqlConnection) -> bool:
    """True when only the baton holder may wrap this store."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (POLICY_KEY,)).fetchone()
    return row is not None and str(row[0]) == "1"


def write_policy(conn: SqlConnection, requires_baton: bool) -> bool:
    """Set the policy inside the caller's write transaction; return the previous setting."""
    was = read_policy(conn)
    conn.execute(
        "INSERT INTO meta(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (POLICY_KEY, "1" if requires_baton else "0"),
    )
    return was
