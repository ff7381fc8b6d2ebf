"""Recalled copies: an episode that repeats, word for word or nearly, the episode it came from.

An agent that quotes its own memory back (recall showed it a note, it records the note again)
or a tool that echoes it must not create new evidence. ``AgentMemory`` and the MCP server mark
such a record ``derived_from`` the episode recall showed (so its effective trust is capped
at the original's); the wrap's save asks :func:`recalled_copies` which episodes of its
snapshot are such copies and does not count them as grounding evidence (a line citing only
copies cites the original's, already spent, evidence).

Near-identical: the copy holds at least :data:`COPY_OF_SOURCE` of the source's words (letters
and digits, case folded) and at least :data:`COPY_OWN_WORDS` of its own words come from the
source (room for a wrapper such as ``web_fetch -> `` or "I recall that").
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from anneal_memory.store._contract import SqlConnection
from anneal_memory.store._params import in_chunks
from anneal_memory.store.provenance._checks import derived_sources

__all__ = ["COPY_OF_SOURCE", "COPY_OWN_WORDS", "is_copy", "recalled_copies", "text_words"]

COPY_OF_SOURCE = 0.9
COPY_OWN_WORDS = 0.75
_WORD = re.compile(r"[^\W_]+")


def text_words(text: str) -> frozenset[str]:
    """The words of ``text`` (letters and digits, case folded)."""
    return frozenset(_WORD.findall(text.casefold()))


def is_copy(copy: frozenset[str], source: frozenset[str]) -> bool:
    """Whether a text of words ``copy`` repeats a text of words ``source`` (module doc)."""
    if not copy or not source:
        return False
    shared = len(copy & source)
    return shared >= COPY_OF_SOURCE * len(source) and shared >= COPY_OWN_WORDS * len(copy)


def _texts(conn: SqlConnection, ids: set[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for chunk, marks in in_chunks(sorted(ids), 500):
        rows = conn.execute(
            f"SELECT id, content FROM episodes WHERE id IN ({marks})",  # noqa: S608
            tuple(chunk),
        )
        found.update((str(i), str(c)) for i, c in rows)
    return found


def recalled_copies(conn: SqlConnection, snapshot: Mapping[str, str]) -> dict[str, str]:
    """Episodes of ``snapshot`` that repeat a live episode they derive from: copy -> source."""
    derived = {i: s for i, s in derived_sources(conn, snapshot).items() if s}
    if not derived:
        return {}
    wanted = {s for sources in derived.values() for s in sources}
    texts = {i: snapshot[i] for i in wanted if i in snapshot}
    texts.update(_texts(conn, wanted - set(texts)))
    out: dict[str, str] = {}
    for ident, sources in sorted(derived.items()):
        mine = text_words(snapshot[ident])
        for source in sources:
            if source in texts and is_copy(mine, text_words(texts[source])):
                out[ident] = source
                break
    return out
