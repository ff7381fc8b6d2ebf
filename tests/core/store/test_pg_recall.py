"""Recall on PostgreSQL: hostile keywords, the trigram index and the scan without it."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.store.postgres import _substring
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from profiles import examples

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import pg_url  # noqa: F401 - fixtures

TSQUERY_HOSTILE = [
    "&",
    "|",
    "!",
    "<->",
    "<2>",
    ":",
    "*",
    ":*",
    "(",
    ")",
    "'",
    "''",
    "pool & !bottleneck",
    "pool | disk",
    "pool <-> bottleneck",
    "pool:*",
    "pool:A",
    "'pool':* & 'disk'",
    "(pool | disk) & !(x)",
    "\\",
    "\\'",
    "pool\\",
    "po\\ol",
    "\x00",
    "pool\x00disk",
    "x" * 10_000,
    "pool " * 2_000,
    "& | ! <-> : * ( ) ' \\ \x00 % _",
    "%",
    "_",
    "%ool",
    "p_ol",
]


@pytest.fixture
def pg_store(pg_url: str):  # noqa: F811
    with Store(pg_url, project_name="TestAgent") as opened:
        opened.record("The connection pool is the real bottleneck", "observation")
        opened.record("Pool sizes vary; the bottleneck moved to disk", "observation")
        opened.record("Chose PostgreSQL as the database", "decision")
        opened.record("odd text: 100% of p_ol & pool | !x <-> 'q' back\\slash", "observation")
        yield opened


def _words(text: str) -> set[str]:
    return set(re.findall(r"[^\W_]+", text.lower()))


def _parsed_words(store: Store, text: str) -> set[str]:
    """The words PostgreSQL's own parser finds in ``text`` ("p¼" is "p" and "¼" there)."""
    with store._backend._open_pool("test").read("test") as conn:  # type: ignore[attr-defined]
        rows = conn.execute(
            "SELECT unnest(tsvector_to_array(to_tsvector('simple', %s)))",
            (text.replace("\x00", " "),),
        ).fetchall()
    return {row[0] for row in rows}


@pytest.mark.parametrize("query", TSQUERY_HOSTILE, ids=lambda q: repr(q[:20]))
def test_tsquery_and_like_syntax_in_a_keyword_is_literal(pg_store: Store, query: str) -> None:
    result = pg_store.recall(keyword=query, limit=50)
    asked = _words(query) | _parsed_words(pg_store, query)
    for episode in result.episodes:
        held = _words(episode.content) | _parsed_words(pg_store, episode.content)
        assert held & asked or any(t in w for w in held for t in asked if len(t) >= 3), (
            query,
            episode.content,
        )
    if not asked:
        assert result.total_matching == 0
    assert pg_store.status().total_episodes == 4


def test_the_substring_stage_uses_the_trigram_index(pg_store: Store, pg_url: str) -> None:  # noqa: F811
    import psycopg

    with psycopg.connect(pg_url) as conn:
        assert _substring.has_trigram_index(conn)
    assert [e.content for e in pg_store.recall("greSQL").episodes] == [
        "Chose PostgreSQL as the database"
    ]


def test_without_the_trigram_index_the_stage_scans_the_newest_episodes(
    pg_store: Store,
    pg_url: str,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f"DROP INDEX {_substring.TRIGRAM_INDEX}")
        assert not _substring.has_trigram_index(conn)
    assert pg_store.recall("greSQL").total_matching == 1
    assert pg_store.recall("ttlene").total_matching == 2
    monkeypatch.setattr(_substring, "SCAN_MAX_EPISODES", 1)
    assert pg_store.recall("greSQL").total_matching == 0  # older than the newest one
    assert pg_store.recall("ttlene").total_matching == 0
    assert pg_store.recall("lash").total_matching == 1


_TSQUERY_SYNTAX = ["&", "|", "!", "<->", "<3>", ":", "*", ":*", "(", ")", "'", "\\", "%", "_", ":A"]


@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@example(query="P¼")
@given(
    query=st.lists(
        st.one_of(
            st.sampled_from(["pool", "bottle", "ttlene", "postgre", "disk", "zzz", "100"]),
            st.sampled_from(_TSQUERY_SYNTAX),
            st.text(max_size=6),
        ),
        max_size=8,
    ).map(lambda parts: "".join(parts) if len(parts) % 2 else " ".join(parts))
)
def test_any_string_is_a_literal_keyword_on_postgresql(pg_store: Store, query: str) -> None:
    result = pg_store.recall(keyword=query, limit=50)
    if not query.strip():  # a blank keyword means "no keyword": newest first
        assert result.total_matching == 4
        return
    asked = _words(query) | _parsed_words(pg_store, query)
    for episode in result.episodes:
        held = _words(episode.content) | _parsed_words(pg_store, episode.content)
        assert held & asked or any(t in w for w in held for t in asked if len(t) >= 3), (
            query,
            episode.content,
        )
    assert result.total_matching >= len(result.episodes)


def test_a_bulk_import_leaves_statistics_for_recall_plans(pg_url: str) -> None:  # noqa: F811
    import psycopg
    from anneal_memory.store.postgres._stats import BULK_ROWS

    episodes = [
        {
            "id": f"{0x20000000 + i:08x}",
            "timestamp": f"2026-01-01T00:00:{i % 60:02d}.{i:06d}Z",
            "type": "observation",
            "content": f"imported note {i}",
            "source": "agent",
            "metadata": {},
            "idempotency_key": None,
        }
        for i in range(BULK_ROWS)
    ]
    with Store(pg_url) as store:
        store.import_json(
            {"format": "anneal-memory-export", "format_version": 1, "episodes": episodes}
        )
    with psycopg.connect(pg_url) as conn:
        row = conn.execute(
            "SELECT reltuples FROM pg_class WHERE oid = 'episodes'::regclass"
        ).fetchone()
    assert row is not None
    assert row[0] == BULK_ROWS


def test_the_gin_indexes_keep_short_pending_lists(pg_url: str) -> None:  # noqa: F811
    import psycopg
    from anneal_memory.store.postgres._schema_trigram import PENDING_LIST_KB

    with Store(pg_url):
        pass
    with Store(pg_url):  # a second open changes nothing
        pass
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute(
            "SELECT relname, reloptions FROM pg_class WHERE relname IN"
            " ('episodes_tsv', 'episodes_content_trgm')"
            " AND relnamespace = current_schema()::regnamespace ORDER BY relname"
        ).fetchall()
    assert [name for name, _ in rows] == ["episodes_content_trgm", "episodes_tsv"]
    assert all(options == [f"gin_pending_list_limit={PENDING_LIST_KB}"] for _, options in rows)
