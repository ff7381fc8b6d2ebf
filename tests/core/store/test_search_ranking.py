from __future__ import annotations

import datetime as dt

from anneal_memory import Store
from anneal_memory.store._search import CANDIDATES_PER_TERM

_BASE = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)


def bulk(store: Store, rows: list[tuple[str, str]]) -> list[str]:
    """Import (content, type) rows in one transaction, oldest first; return their ids."""
    ids = [f"{0x10000000 + i:08x}" for i in range(len(rows))]
    episodes = [
        {
            "id": ident,
            "timestamp": (_BASE + dt.timedelta(minutes=i)).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            "type": kind,
            "content": content,
            "source": "agent",
            "metadata": {},
            "idempotency_key": None,
        }
        for i, (ident, (content, kind)) in enumerate(zip(ids, rows, strict=True))
    ]
    store.import_json({"format": "anneal-memory-export", "format_version": 1, "episodes": episodes})
    return ids


def test_single_word_ranking_is_fts5_bm25_order(store: Store) -> None:
    filler = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]
    rows = [
        (" ".join(["cache"] * (1 + i % 4) + filler[: 1 + (i * 7) % 10]), "observation")
        for i in range(40)
    ]
    rows += [("nothing relevant here at all", "observation")] * 5
    bulk(store, rows)
    conn = store.connection("test")
    expected = [
        row[0]
        for row in conn.execute(
            "SELECT e.id FROM episodes_fts AS f JOIN episodes AS e ON e.seq = f.rowid "
            "WHERE episodes_fts MATCH '\"cache\"' ORDER BY f.rank, f.rowid DESC"
        )
    ]
    result = store.recall(keyword="cache", limit=100)
    assert [e.id for e in result.episodes] == expected
    assert result.total_matching == 40


def test_rare_word_finds_an_old_episode_under_a_flood_of_common_matches(store: Store) -> None:
    rows = [("deploy to the kubernetes cluster failed", "observation")]
    rows += [(f"deploy step {i} done", "observation") for i in range(CANDIDATES_PER_TERM + 50)]
    ids = bulk(store, rows)
    result = store.recall(keyword="kubernetes deploy", limit=5)
    assert result.episodes[0].id == ids[0]
    assert result.total_matching == len(rows)


def test_filters_apply_before_the_candidate_window(store: Store) -> None:
    rows = [("deploy rollback chosen", "decision")]
    rows += [(f"deploy attempt {i}", "observation") for i in range(CANDIDATES_PER_TERM + 50)]
    ids = bulk(store, rows)
    result = store.recall(keyword="deploy", episode_type="decision")
    assert [e.id for e in result.episodes] == [ids[0]]
    assert result.total_matching == 1
