from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

from anneal_memory import Store
from anneal_memory.store.recall._ranking import CANDIDATE_BUDGET

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import backend_store, pg_url, sqlite_store, store_on_both_backends, target  # noqa: F401 - fixtures

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


def test_single_word_ranking_is_fts5_bm25_order(sqlite_store: Store) -> None:  # noqa: F811
    filler = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]
    rows = [
        (" ".join(["cache"] * (1 + i % 4) + filler[: 1 + (i * 7) % 10]), "observation")
        for i in range(40)
    ]
    rows += [("nothing relevant here at all", "observation")] * 5
    bulk(sqlite_store, rows)
    with sqlite_store.reading("test") as reader:
        expected = [
            row[0]
            for row in reader.conn.execute(
                "SELECT e.id FROM episodes_fts AS f JOIN episodes AS e ON e.seq = f.rowid "
                "WHERE episodes_fts MATCH '\"cache\"' ORDER BY f.rank, f.rowid DESC"
            )
        ]
    result = sqlite_store.recall(keyword="cache", limit=100)
    assert [e.id for e in result.episodes] == expected
    assert result.total_matching == 40


def test_rare_word_finds_an_old_episode_under_a_flood_of_common_matches(store: Store) -> None:
    rows = [("deploy to the kubernetes cluster failed", "observation")]
    rows += [(f"deploy step {i} done", "observation") for i in range(CANDIDATE_BUDGET + 50)]
    ids = bulk(store, rows)
    result = store.recall(keyword="kubernetes deploy", limit=5)
    assert result.episodes[0].id == ids[0]
    assert result.total_matching == len(rows)


def test_filters_apply_before_candidates_are_chosen(store: Store) -> None:
    rows = [("deploy rollback chosen", "decision")]
    rows += [(f"deploy attempt {i}", "observation") for i in range(CANDIDATE_BUDGET + 50)]
    ids = bulk(store, rows)
    result = store.recall(keyword="deploy", episode_type="decision")
    assert [e.id for e in result.episodes] == [ids[0]]
    assert result.total_matching == 1


def _exhaustive(store: Store, terms: list[str]) -> list[str]:
    """The ranking by definition: every match of every word scored, no candidate limit."""
    sums: dict[int, float] = {}
    held: dict[int, int] = {}
    with store.reading("test") as reader:
        for term in terms:
            for seq, score in reader.conn.execute(
                "SELECT rowid, bm25(episodes_fts) FROM episodes_fts WHERE episodes_fts MATCH ?",
                (f'"{term}"',),
            ):
                sums[seq] = sums.get(seq, 0.0) + score
                held[seq] = held.get(seq, 0) + 1
        ids = dict(reader.conn.execute("SELECT seq, id FROM episodes"))
    final = {seq: s * (1 + 0.25 * (held[seq] - 1)) for seq, s in sums.items()}
    order = sorted(final, key=lambda seq: (final[seq], -seq))
    return [ids[seq] for seq in order]


def test_an_old_best_match_wins_under_thousands_of_newer_partial_matches(store: Store) -> None:
    rows = [("we chose postgres for the billing ledger after the spring review", "decision")]
    words = ["postgres", "billing", "ledger", "spring", "review"]
    rows += [
        (f"{words[i % 5]} note {i} about {words[(i * 3) % 5]} and other things", "observation")
        for i in range(CANDIDATE_BUDGET + 2000)
    ]
    ids = bulk(store, rows)
    result = store.recall("which database for the billing ledger, postgres?", limit=10)
    assert result.episodes[0].id == ids[0]
    asked = {"postgres", "billing", "ledger"}
    holding = sum(1 for content, _ in rows if asked & set(content.split()))
    assert result.total_matching == holding


def test_ranking_equals_scoring_every_match(sqlite_store: Store) -> None:  # noqa: F811
    rare = ["quasar", "nebula", "pulsar"]
    common = ["signal", "report", "team"]
    rows = [
        (
            " ".join(
                [common[i % 3], common[(i // 3) % 3]]
                + ([rare[i % 3]] if i % 7 == 0 else [])
                + ["filler"] * (i % 5)
            ),
            "observation",
        )
        for i in range(CANDIDATE_BUDGET + 1500)
    ]
    bulk(sqlite_store, rows)
    terms = ["quasar", "nebula", "signal", "report", "team"]
    expected = _exhaustive(sqlite_store, terms)
    result = sqlite_store.recall("quasar nebula signal report team", limit=50)
    got = [e.id for e in result.episodes]
    # Candidates are the episodes holding a rare word: the top of the exhaustive ranking.
    assert got == expected[:50]


def _stamped(store: Store, rows: list[tuple[str, dt.datetime]]) -> list[str]:
    return [store.record(text, "observation", timestamp=when).id for text, when in rows]


def test_a_match_recorded_next_to_the_best_match_gains_on_an_isolated_one(store: Store) -> None:
    t = _BASE
    ids = _stamped(
        store,
        [
            ("lonely reply about the venue", t),
            ("filler one", t + dt.timedelta(hours=5)),
            ("which venue did we book for the offsite retreat", t + dt.timedelta(hours=10)),
            ("the venue reply: we booked the lakeside hall", t + dt.timedelta(hours=10, seconds=5)),
            ("filler two", t + dt.timedelta(hours=15)),
        ],
    )
    found = [e.id for e in store.recall(keyword="venue for the offsite retreat").episodes]
    assert found[0] == ids[2]
    assert found.index(ids[3]) < found.index(ids[0])


def _stamped_in(store: Store, rows: list[tuple[str, int, str]]) -> list[str]:
    """Record ``(text, seconds after _BASE, scope)`` rows in order; their ids."""
    return [
        store.record(
            text, "observation", timestamp=_BASE + dt.timedelta(seconds=at), scope=scope
        ).id
        for text, at, scope in rows
    ]


_QUESTION = "which venue did we book for the offsite retreat"
_REPLY = "the venue reply: the lakeside hall"


def test_a_match_two_places_from_the_best_match_gains_three_places_do_not(store: Store) -> None:
    ids = _stamped_in(
        store,
        [
            (_REPLY, 0, ""),
            (_QUESTION, 36_000, ""),
            ("checking the calendar first", 36_005, ""),
            (_REPLY, 36_010, ""),  # two places after the question
            (_REPLY, 36_015, ""),  # three places after it
            (_REPLY, 72_000, ""),  # alone, and the newest
        ],
    )
    result = store.recall(keyword="venue for the offsite retreat")
    # Equal texts score alike and the newer wins a tie; only the reply two places after the
    # question (an aside between them) is lifted past the newest one.
    assert [e.id for e in result.episodes] == [ids[1], ids[3], ids[5], ids[4], ids[0]]
    assert result.total_matching == 5


def test_a_neighbour_lends_only_within_its_scope(store: Store) -> None:
    ids = _stamped_in(
        store,
        [
            (_QUESTION, 0, "user:a"),
            (_REPLY, 5, "user:b"),  # right after the question, in another scope
            (_REPLY, 10, "user:a"),
            (_REPLY, 36_000, "user:b"),  # alone, and the newest
        ],
    )
    found = [e.id for e in store.recall(keyword="venue for the offsite retreat").episodes]
    assert found == [ids[0], ids[2], ids[3], ids[1]]
    mine = store.recall(keyword="venue for the offsite retreat", scope="user:b").episodes
    assert [e.id for e in mine] == [ids[3], ids[1]]


def test_a_neighbour_never_passes_its_lender_nor_gains_across_the_window(store: Store) -> None:
    t = _BASE
    ids = _stamped(
        store,
        [
            ("offsite retreat venue budget plan", t),
            ("offsite retreat venue budget plan with notes", t + dt.timedelta(seconds=1)),
            ("venue", t + dt.timedelta(hours=3)),
            ("venue", t + dt.timedelta(hours=6)),
        ],
    )
    found = [e.id for e in store.recall(keyword="offsite retreat venue budget").episodes]
    assert found[:2] == ids[:2]
    # Three hours apart: no context shared, equal scores, so the newer one first.
    assert found[2:] == [ids[3], ids[2]]


def test_a_rare_word_does_not_starve_the_page_of_common_matches(store: Store) -> None:
    rows = [("kubernetes cluster upgrade", "observation")]
    rows += [(f"deploy step {i} done", "decision") for i in range(CANDIDATE_BUDGET + 50)]
    ids = bulk(store, rows)
    result = store.recall(keyword="kubernetes deploy", limit=10)
    assert result.episodes[0].id == ids[0]
    assert len(result.episodes) == 10
    assert result.total_matching == len(rows)
    # The filter leaves the rare word without a match: the common word still answers.
    decisions = store.recall(keyword="kubernetes deploy", episode_type="decision", limit=10)
    assert len(decisions.episodes) == 10
    assert decisions.total_matching == len(rows) - 1
    # A word that matches nothing at all changes nothing either.
    assert len(store.recall(keyword="xyzzy deploy", limit=10).episodes) == 10
