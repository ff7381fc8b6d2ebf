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
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeVar

from anneal_memory.errors import InvalidEpisodeError
from anneal_memory.store._contract import SqlConnection
from anneal_memory.store._episodes import episode_column
from anneal_memory.store.provenance._checks import derived_sources
from anneal_memory.types import Episode

__all__ = [
    "COPY_OF_SOURCE",
    "COPY_OWN_WORDS",
    "copies_one_another",
    "copy_source",
    "is_copy",
    "recalled_copies",
    "text_words",
    "without_copies",
    "write_copy",
]

COPY_OF_SOURCE = 0.9
COPY_OWN_WORDS = 0.75
_WORD = re.compile(r"[^\W_]+")
_T = TypeVar("_T")


def text_words(text: str) -> frozenset[str]:
    """The words of ``text`` (letters and digits, case folded)."""
    return frozenset(_WORD.findall(text.casefold()))


def is_copy(copy: frozenset[str], source: frozenset[str]) -> bool:
    """Whether a text of words ``copy`` repeats a text of words ``source`` (module doc)."""
    if not copy or not source:
        return False
    shared = len(copy & source)
    return shared >= COPY_OF_SOURCE * len(source) and shared >= COPY_OWN_WORDS * len(copy)


def recalled_copies(
    conn: SqlConnection,
    snapshot: Mapping[str, str],
    sources: Mapping[str, tuple[str, ...]] | None = None,
) -> dict[str, str]:
    """Episodes of ``snapshot`` that repeat a live episode they derive from: copy -> source.

    ``sources``: the ``derived_from`` of the live episodes of ``snapshot`` (or more), when
    the caller has read them already (``trusts_and_sources``).
    """
    if sources is None:
        sources = derived_sources(conn, snapshot)
    derived = {i: s for i, s in sources.items() if s and i in snapshot}
    if not derived:
        return {}
    wanted = {s for named in derived.values() for s in named}
    texts = {i: snapshot[i] for i in wanted if i in snapshot}
    texts.update(episode_column(conn, "content", wanted - set(texts)))
    out: dict[str, str] = {}
    for ident, named in sorted(derived.items()):
        mine = text_words(snapshot[ident])
        for source in named:
            if source in texts and is_copy(mine, text_words(texts[source])):
                out[ident] = source
                break
    return out


def copy_source(conn: SqlConnection, text: str, shown: Sequence[str]) -> list[str] | None:
    """The ``derived_from`` of a record of ``text`` that repeats a live episode of ``shown``.

    ``shown`` lists episode ids, the most recently shown first; the first live one ``text``
    repeats (:func:`is_copy`) is named, then the last source that one derives from (a copy
    of a copy names the original too, as ``AgentMemory`` does). None: no such episode.
    """
    wanted = set(shown)
    if not wanted:
        return None
    mine = text_words(text)
    if not mine:
        return None
    texts = episode_column(conn, "content", wanted)
    for ident in dict.fromkeys(shown):
        if ident in texts and is_copy(mine, text_words(texts[ident])):
            sources = derived_sources(conn, [ident]).get(ident, ())
            root = sources[-1] if sources else None
            return [ident] if root is None or root == ident else [ident, root]
    return None


def write_copy(write: Callable[..., _T], shown: list[str] | None) -> _T:
    """Call ``write`` (a ``Store.record`` with ``derived_from=shown`` when ``shown``).

    The shown episode may be gone since, or of another scope (recall across scopes): then
    the text is written without the link.
    """
    try:
        return write()
    except InvalidEpisodeError as exc:
        if shown is None or "derived_from" not in str(exc):
            raise
        return write(derived_from=[])


def copies_one_another(a: Episode, b: Episode) -> bool:
    """One of them is derived (a recalled copy is) and one repeats the other."""
    if not (a.derived_from or b.derived_from):
        return False
    mine, theirs = text_words(a.content), text_words(b.content)
    return is_copy(mine, theirs) or is_copy(theirs, mine)


def without_copies(episodes: Iterable[Episode]) -> tuple[list[Episode], int]:
    """``episodes`` in order without the recalled copies of one listed before; how many went."""
    kept: list[Episode] = []
    gone = 0
    for episode in episodes:
        if any(copies_one_another(episode, other) for other in kept):
            gone += 1
        else:
            kept.append(episode)
    return kept, gone
