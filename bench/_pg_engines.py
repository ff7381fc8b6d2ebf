"""The four engines of ``bench_pg.py``: our Store on SQLite and on PostgreSQL, and two raw floors.

Each engine: ``fill(texts)`` (bulk, untimed), ``record(text) -> seconds``,
``recall(keyword) -> (seconds, ids of the top 10)`` (raw engines: the OR of the keyword's
words but English function words, the list our recall uses on SQLite and ``english`` on
PostgreSQL), ``close()``. Episode ids of filled rows
are ``fill_id(i)``; raw engines use their own row numbers in the same form.
"""

from __future__ import annotations

import os
import re
import sqlite3
import time

from anneal_memory import Store
from anneal_memory.store.recall._search import STOPWORDS

pc = time.perf_counter
_BASE_TS = 1_767_225_600  # 2026-01-01T00:00:00Z


def iso(i: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(_BASE_TS + i)) + ".000000Z"


def fill_id(i: int) -> str:
    return f"{0x10000000 + i:08x}"


class Ours:
    """``Store`` on a SQLite path or a PostgreSQL URL."""

    def __init__(self, name: str, target: str) -> None:
        self.name, self.target = name, target
        self.store = Store(target)
        self.n = 0

    def fill(self, texts: list[str]) -> None:
        for start in range(0, len(texts), 20_000):
            chunk = texts[start : start + 20_000]
            episodes = [
                {
                    "id": fill_id(self.n + i),
                    "timestamp": iso(self.n + i),
                    "type": "observation",
                    "content": text,
                    "source": "agent",
                    "metadata": {},
                    "idempotency_key": None,
                }
                for i, text in enumerate(chunk)
            ]
            self.store.import_json(
                {"format": "anneal-memory-export", "format_version": 1, "episodes": episodes}
            )
            self.n += len(chunk)

    def record(self, text: str) -> float:
        s = pc()
        self.store.record(text, "observation")
        return pc() - s

    def recall(self, keyword: str) -> tuple[float, list[str]]:
        s = pc()
        result = self.store.recall(keyword=keyword, limit=10)
        return pc() - s, [e.id for e in result.episodes]

    def recall_ids(self, keyword: str, limit: int) -> list[str]:
        return [e.id for e in self.store.recall(keyword=keyword, limit=limit).episodes]

    def close(self) -> None:
        self.store.close()


class RawSqlite:
    """sqlite3 with no library: WAL, synchronous=FULL, FTS5 porter kept by a trigger."""

    name = "raw_sqlite"
    SCHEMA = """
    CREATE TABLE episodes(id INTEGER PRIMARY KEY, ts TEXT NOT NULL, type TEXT NOT NULL,
        content TEXT NOT NULL);
    CREATE VIRTUAL TABLE episodes_fts USING fts5(content, content='episodes',
        content_rowid='id', tokenize='porter unicode61');
    CREATE TRIGGER episodes_ai AFTER INSERT ON episodes BEGIN
      INSERT INTO episodes_fts(rowid, content) VALUES (new.id, new.content);
    END;
    """
    INSERT = "INSERT INTO episodes(ts, type, content) VALUES (?, 'observation', ?)"
    TOP10 = "SELECT rowid FROM episodes_fts WHERE episodes_fts MATCH ? ORDER BY rank LIMIT 10"

    def __init__(self, folder: str) -> None:
        self.conn = sqlite3.connect(os.path.join(folder, "raw.db"))
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=FULL")
        self.conn.executescript(self.SCHEMA)
        self.n = 0

    def fill(self, texts: list[str]) -> None:
        self.conn.executemany(self.INSERT, [(iso(self.n + i), t) for i, t in enumerate(texts)])
        self.conn.commit()
        self.n += len(texts)

    def record(self, text: str) -> float:
        s = pc()
        self.conn.execute(self.INSERT, (iso(self.n), text))
        self.conn.commit()
        self.n += 1
        return pc() - s

    def recall(self, keyword: str) -> tuple[float, list[str]]:
        s = pc()
        words = [w for w in re.findall(r"[^\W_]+", keyword.lower()) if w not in STOPWORDS]
        expression = " OR ".join('"' + w + '"' for w in dict.fromkeys(words))
        rows = self.conn.execute(self.TOP10, (expression,)).fetchall()
        return pc() - s, [fill_id(r[0] - 1) for r in rows]

    def close(self) -> None:
        self.conn.close()


class RawPg:
    """psycopg with no library: the same row, a generated ``english`` tsvector, GIN, autocommit."""

    name = "raw_pg"

    def __init__(self, url: str) -> None:
        import psycopg

        self.conn = psycopg.connect(url, autocommit=True)
        from psycopg import sql

        row = self.conn.execute("SELECT current_setting('search_path')").fetchone()
        schema = str(row[0]).split(",")[0].strip().strip('"')
        self.conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
        self.conn.execute(
            "CREATE TABLE raw_episodes (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
            " ts text NOT NULL, type text NOT NULL, content text NOT NULL,"
            " tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', content)) STORED)"
        )
        self.conn.execute("CREATE INDEX raw_episodes_tsv ON raw_episodes USING GIN (tsv)")
        self.n = 0

    def fill(self, texts: list[str]) -> None:
        with self.conn.transaction(), self.conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO raw_episodes (ts, type, content) VALUES (%s, 'observation', %s)",
                [(iso(self.n + i), t) for i, t in enumerate(texts)],
            )
        self.conn.execute("ANALYZE raw_episodes")
        self.conn.execute("SELECT gin_clean_pending_list('raw_episodes_tsv'::regclass)")
        self.n += len(texts)

    def record(self, text: str) -> float:
        s = pc()
        self.conn.execute(
            "INSERT INTO raw_episodes (ts, type, content) VALUES (%s, 'observation', %s)",
            (iso(self.n), text),
        )
        self.n += 1
        return pc() - s

    def recall(self, keyword: str) -> tuple[float, list[str]]:
        s = pc()
        rows = self.conn.execute(
            "SELECT id FROM raw_episodes, (SELECT"
            " replace(plainto_tsquery('english', %s)::text, '&', '|')::tsquery AS q) AS w"
            " WHERE tsv @@ w.q ORDER BY ts_rank(tsv, w.q) DESC LIMIT 10",
            (keyword,),
        ).fetchall()
        return pc() - s, [fill_id(r[0] - 1) for r in rows]

    def close(self) -> None:
        self.conn.close()


def probes(texts: list[str], count: int) -> list[tuple[int, str, str]]:
    """``count`` (row, keyword, part) spread evenly over the rows.

    keyword: the row's two rarest words; part: its rarest word of 7+ letters without its first
    and last letter (found only by the substring stage unless it is a word itself).
    """
    split = [set(re.findall(r"[^\W_]+", t.lower())) for t in texts]
    df: dict[str, int] = {}
    for words in split:
        for w in words:
            df[w] = df.get(w, 0) + 1
    step = max(1, len(texts) // count)
    out = []
    for row in range(0, len(texts), step)[:count]:
        ranked = sorted(split[row], key=lambda w: (df[w], w))
        long = [w for w in ranked if len(w) >= 7] or ranked
        out.append((row, " ".join(ranked[:2]), long[0][1:-1]))
    return out
