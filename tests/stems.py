"""What the store's FTS5 tokenizer (``porter unicode61``) makes of a word, for test oracles."""

from __future__ import annotations

import functools
import sqlite3


@functools.cache
def porter_stem(word: str) -> str:
    """The single token SQLite's ``porter unicode61`` tokenizer stores for ``word``."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61')")
        conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row')")
        conn.execute("INSERT INTO t(x) VALUES (?)", (word,))
        rows = [r[0] for r in conn.execute("SELECT term FROM v")]
    finally:
        conn.close()
    return rows[0] if len(rows) == 1 else word.lower()
