"""Recall's last stage: keyword words found inside stored words ("SQL" in PostgreSQL).

It reads the FTS5 index's own vocabulary through an ``fts5vocab`` table in the
connection's ``temp`` schema (nothing is written to the store, nothing is added per
record), keeps the index terms that contain a query word, and searches for them as
quoted prefixes. Reading the vocabulary walks every term's index entries, so its cost grows
with the stored text; the stage is skipped when the database holds more than
:data:`SUBSTRING_MAX_BYTES` (about 55,000 short chat turns) and reads at most
:data:`SUBSTRING_MAX_VOCABULARY` terms.
"""

from __future__ import annotations

import sqlite3
import unicodedata

from anneal_memory.store.recall._search import (
    MAX_QUERY_TERMS,
    MIN_PREFIX_CHARS,
    STOPWORDS,
    SearchPlan,
    quote,
    tokenize,
)

__all__ = [
    "SUBSTRING_MAX_BYTES",
    "SUBSTRING_MAX_VOCABULARY",
    "plan_substring_search",
]

SUBSTRING_MAX_BYTES = 24 * 1024 * 1024
SUBSTRING_MAX_VOCABULARY = 100_000
_VOCAB = "temp.anneal_episodes_vocab"


def _folded(word: str) -> str:
    # The index folds diacritics (unicode61's default), so "café" is stored as "cafe".
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _store_bytes(conn: sqlite3.Connection) -> int:
    pages = int(conn.execute("PRAGMA page_count").fetchone()[0])
    free = int(conn.execute("PRAGMA freelist_count").fetchone()[0])
    return (pages - free) * int(conn.execute("PRAGMA page_size").fetchone()[0])


def _create_vocabulary(conn: sqlite3.Connection) -> None:
    # The table lives in the connection's temp schema, so a read-only store (query_only)
    # lets it be created for the moment it takes; the store's file is never written.
    guarded = bool(conn.execute("PRAGMA query_only").fetchone()[0])
    if guarded:
        conn.execute("PRAGMA query_only=OFF")
    try:
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {_VOCAB} "
            "USING fts5vocab(main, 'episodes_fts', 'row')"
        )
    finally:
        if guarded:
            conn.execute("PRAGMA query_only=ON")


def _vocabulary(conn: sqlite3.Connection) -> list[tuple[str, int]] | None:
    """(term, documents) of the index, or None when the vocabulary cannot be read."""
    try:
        _create_vocabulary(conn)
        rows = conn.execute(
            f"SELECT term, doc FROM {_VOCAB} LIMIT ?",  # noqa: S608
            (SUBSTRING_MAX_VOCABULARY,),
        ).fetchall()
    except sqlite3.OperationalError:
        return None
    return [(str(term), int(doc)) for term, doc in rows]


def _words(keyword: str) -> list[str]:
    distinct = list(dict.fromkeys(tokenize(keyword)))[:MAX_QUERY_TERMS]
    content_words = [t for t in distinct if t not in STOPWORDS] or distinct
    folded = (_folded(t) for t in content_words)
    return list(dict.fromkeys(w for w in folded if len(w) >= MIN_PREFIX_CHARS))


def plan_substring_search(conn: sqlite3.Connection, keyword: str) -> SearchPlan | None:
    """Build a plan matching the index terms that contain one of the keyword's words.

    Each word of :data:`MIN_PREFIX_CHARS` letters or more keeps its most widespread
    containing terms, :data:`MAX_QUERY_TERMS` in all; None when the store is too large for
    this stage, no word is long enough, or no term contains one.
    """
    words = _words(keyword)
    if not words or _store_bytes(conn) > SUBSTRING_MAX_BYTES:
        return None
    vocabulary = _vocabulary(conn)
    if not vocabulary:
        return None
    share = max(1, MAX_QUERY_TERMS // len(words))
    chosen: dict[str, None] = {}
    for word in words:
        holding = sorted(
            ((doc, term) for term, doc in vocabulary if word in term), key=lambda d: -d[0]
        )
        chosen.update((term, None) for _, term in holding[:share])
    terms = tuple(chosen)[:MAX_QUERY_TERMS]
    if not terms:
        return None
    # Index terms are stemmed; quoted as prefixes they match their own entries again.
    return SearchPlan(
        phrase=None,
        any_word=" OR ".join(quote(t) + "*" for t in terms),
        terms=terms,
        prefix=True,
    )
