"""The save's look at its session's exposures: snapshot episodes that repeat what it was shown.

``AgentMemory``, the MCP server and the CLI mark a recalled copy ``derived_from`` its original
when they record it (``agent._echoes``, ``worth._echoes``). A copy recorded by another path (a
library ``Store.record``, another process of the session, a CLI ``record`` past its one-hour
look-back) carries no such link. The wrap's save asks :func:`session_copies` too: an episode
of its snapshot whose text repeats (``store.provenance.is_copy``) an episode an exposure of
the wrap's session showed **before the copy was recorded** counts as that episode's
evidence, never as new evidence (the ``recalled-copy`` finding). The look is bounded as the
CLI's: the newest :data:`~anneal_memory.worth._echoes.LOOKBACK_EXPOSURES` exposures of the
session and scope since the previous wrap, at most
:data:`~anneal_memory.worth._echoes.LOOKBACK_EPISODES` episode ids; one query for them, one
for their texts, one for the snapshot's timestamps. Nothing is written: the episode keeps its
own row, the save only declines to count it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from anneal_memory.store import SqlConnection, episode_column
from anneal_memory.store.provenance import is_copy, text_words
from anneal_memory.worth._echoes import LOOKBACK_EPISODES, LOOKBACK_EXPOSURES

__all__ = ["session_copies"]


def _shown(
    conn: SqlConnection, scope: str, session_id: str, since: str | None, until: str
) -> dict[str, str]:
    """Episode id -> when an exposure of the session first showed it (newest exposures)."""
    sql = "SELECT at, items FROM exposures WHERE scope = ? AND session_id = ? AND at <= ?"
    params: tuple[object, ...] = (scope, session_id, until)
    if since is not None:
        sql += " AND at >= ?"
        params += (since,)
    sql += " ORDER BY at DESC LIMIT ?"
    rows = conn.execute(sql, (*params, LOOKBACK_EXPOSURES)).fetchall()
    shown: dict[str, str] = {}
    for at, items in rows:
        for item in json.loads(str(items)):
            if isinstance(item, str) and item.startswith("e:"):
                ident = item[2:]
                if ident in shown or len(shown) < LOOKBACK_EPISODES:
                    shown[ident] = min(str(at), shown.get(ident, str(at)))
    return shown


def session_copies(
    conn: SqlConnection,
    snapshot: Mapping[str, str],
    *,
    scope: str,
    session_id: str | None,
    since: str | None,
    until: str,
) -> dict[str, str]:
    """Snapshot episodes repeating an episode shown to ``session_id`` first: copy -> source.

    ``since`` (the previous wrap's completion, None for the first) and ``until`` (this wrap's
    start) bound the exposures looked at. Empty without a session id.
    """
    if session_id is None or not snapshot:
        return {}
    shown = _shown(conn, scope, session_id, since, until)
    if not shown:
        return {}
    texts = episode_column(conn, "content", shown)
    words = {i: text_words(t) for i, t in texts.items()}
    stamps = episode_column(conn, "ts", snapshot)
    order = sorted(words, key=lambda i: shown[i], reverse=True)
    out: dict[str, str] = {}
    for ident, text in snapshot.items():
        mine = text_words(text)
        for source in order:
            if (
                source != ident
                and shown[source] <= stamps.get(ident, "")
                and is_copy(mine, words[source])
            ):
                out[ident] = source
                break
    return out
