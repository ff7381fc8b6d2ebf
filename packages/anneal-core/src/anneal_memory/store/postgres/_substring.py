r"""Recall's last stage on PostgreSQL: keyword words found inside stored words ("SQL").

Each content word of three letters or more (and its form without diacritics) becomes one
``ILIKE`` pattern: bound as a parameter, with ``%``, ``_`` and ``\\`` escaped, so it is
always a literal substring. With ``pg_trgm`` (PostgreSQL's contrib package) the patterns use
the GIN trigram index ``episodes_content_trgm`` over every episode; without it the stage
scans only the newest :data:`SCAN_MAX_EPISODES` episodes. Ranked like the other stages,
with weight 1 per held pattern (rarer parts count more through their idf).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from anneal_memory.store.postgres._rank import Terms
from anneal_memory.store.recall._search import (
    MAX_QUERY_TERMS,
    MIN_PREFIX_CHARS,
    STOPWORDS,
    tokenize,
)
from anneal_memory.store.recall._substring import _folded

if TYPE_CHECKING:
    import psycopg

__all__ = ["SCAN_MAX_EPISODES", "TRIGRAM_INDEX", "escape_like", "patterns", "terms"]

SCAN_MAX_EPISODES = 50_000
TRIGRAM_INDEX = "episodes_content_trgm"
_HOLDS = "e.content ILIKE {q} ESCAPE '\\'"


def escape_like(text: str) -> str:
    r"""``text`` as an ``ILIKE ... ESCAPE '\\'`` pattern matching it anywhere, literally."""
    literal = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{literal}%"


def patterns(keyword: str) -> tuple[str, ...]:
    """The keyword's ``ILIKE`` patterns: each content word of 3+ letters, as typed and folded."""
    distinct = list(dict.fromkeys(tokenize(keyword)))[:MAX_QUERY_TERMS]
    content = [t for t in distinct if t not in STOPWORDS] or distinct
    words: dict[str, None] = {}
    for typed in content:
        folded = _folded(typed)
        if len(folded) >= MIN_PREFIX_CHARS:
            words.update(((typed, None), (folded, None)))
    return tuple(escape_like(w) for w in list(words)[:MAX_QUERY_TERMS])


def has_trigram_index(conn: psycopg.Connection[Any]) -> bool:
    """True when this schema's episodes have the trigram index."""
    row = conn.execute("SELECT to_regclass(%s)", (TRIGRAM_INDEX,)).fetchone()
    return row is not None and row[0] is not None


def terms(conn: psycopg.Connection[Any], keyword: str) -> Terms | None:
    """The substring stage's terms for ``keyword``; None when no word is long enough."""
    found = patterns(keyword)
    if not found:
        return None
    holds = _HOLDS
    if not has_trigram_index(conn):
        newest = f"(SELECT coalesce(max(seq), 0) - {int(SCAN_MAX_EPISODES)} FROM episodes)"  # noqa: S608
        holds = f"({_HOLDS} AND e.seq > {newest})"
    return Terms(
        query="%s::text", holds=holds, weight="1.0", values=found, labels=tuple(map(_label, found))
    )


def _label(pattern: str) -> str:
    """The word an ``ILIKE`` pattern looks for, as ``*word*``."""
    word = pattern[1:-1].replace("\\%", "%").replace("\\_", "_").replace("\\\\", "\\")
    return f"*{word}*"
