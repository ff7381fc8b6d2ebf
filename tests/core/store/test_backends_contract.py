"""The store contract, one test body per behaviour, run on SQLite and on PostgreSQL.

PostgreSQL runs need a real server (``ANNEAL_TEST_PG_URL``, see ``tests/backends.py``).
"""

from __future__ import annotations

import datetime as dt
import io
import json
import sys
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.errors import (
    BackendNotSupportedError,
    IdempotencyConflictError,
    ImportFormatError,
    InvalidEpisodeError,
    InvalidInputError,
    InvalidQueryError,
    StoreClosedError,
)
from anneal_memory.testing import FrozenClock

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import pg_url, target  # noqa: F401 - fixtures

NASTY = [
    'a"b',
    "x OR y",
    "NEAR(a b)",
    "col:value",
    "^start",
    "pre*",
    "!& | <-> :* ''",
    "'); DROP TABLE episodes; --",
    "\\",
    "\x00nul",
    "naïve café",
    "日本語",
    "-",
    "a" * 5000,
]


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(
        dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc), step=dt.timedelta(seconds=1)
    )


@pytest.fixture
def store(target: str, clock: FrozenClock):  # noqa: F811
    with Store(target, project_name="Contract", clock=clock) as opened:
        yield opened


def test_record_then_get_round_trips(store: Store) -> None:
    episode = store.record(
        "Chose PostgreSQL for the fleet",
        "decision",
        source="alice",
        metadata={"why": "many hosts", "n": 3},
        timestamp="2026-03-01T08:00:00Z",
    )
    assert len(episode.id) == 8
    found = store.get(episode.id)
    assert found == episode
    assert found is not None
    assert (found.source, found.metadata, found.timestamp) == (
        "alice",
        {"why": "many hosts", "n": 3},
        "2026-03-01T08:00:00.000000Z",
    )
    assert store.get("nope") is None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"content": "", "episode_type": "decision"}, "content"),
        ({"content": "x", "episode_type": "gossip"}, "episode type"),
        ({"content": "x", "episode_type": "decision", "source": ""}, "source"),
        ({"content": "x" * 70_000, "episode_type": "decision"}, "content"),
        ({"content": "x", "episode_type": "decision", "timestamp": "yesterday-ish"}, "timestamp"),
    ],
)
def test_invalid_episodes_are_refused_and_nothing_is_written(
    store: Store, kwargs: dict, message: str
) -> None:
    with pytest.raises(InvalidEpisodeError, match=message):
        store.record(**kwargs)
    assert store.status().total_episodes == 0


def test_idempotency_key_returns_the_first_episode(store: Store) -> None:
    first = store.record("once", "outcome", idempotency_key="k1")
    again = store.record("once", "outcome", idempotency_key="k1")
    assert again == first
    with pytest.raises(IdempotencyConflictError):
        store.record("different", "outcome", idempotency_key="k1")
    assert store.status().total_episodes == 1


def test_delete_leaves_a_tombstone(store: Store) -> None:
    episode = store.record("to forget", "observation")
    assert store.delete(episode.id) is True
    assert store.delete(episode.id) is False
    assert store.get(episode.id) is None
    assert store.recall("forget").total_matching == 0
    status = store.status()
    assert (status.total_episodes, status.deleted_episodes) == (0, 1)


def test_recall_puts_the_phrase_first_then_any_word(store: Store) -> None:
    store.record("the connection pool timed out under load", "observation")
    store.record("pool timeout settings were raised", "decision")
    store.record("unrelated note about lunch", "context")
    store.record("connection dropped, pool was fine", "observation")
    result = store.recall("connection pool")
    contents = [e.content for e in result.episodes]
    assert contents[0] == "the connection pool timed out under load"
    assert set(contents[1:]) == {
        "pool timeout settings were raised",
        "connection dropped, pool was fine",
    }
    assert contents.index("connection dropped, pool was fine") < contents.index(
        "pool timeout settings were raised"
    )  # both words beat one
    assert result.total_matching == 3


def test_recall_without_a_keyword_is_newest_first_with_filters(store: Store) -> None:
    for i in range(5):
        store.record(
            f"note {i}",
            "decision" if i % 2 else "observation",
            source=f"s{i % 2}",
            timestamp=f"2026-03-02T10:0{i}:00Z",
        )
    newest = store.recall(limit=2)
    assert [e.content for e in newest.episodes] == ["note 4", "note 3"]
    assert newest.total_matching == 5
    page = store.recall(limit=2, offset=4)
    assert [e.content for e in page.episodes] == ["note 0"]
    decisions = store.recall(episode_type="decision")
    assert [e.content for e in decisions.episodes] == ["note 3", "note 1"]
    assert store.recall(source="s0").total_matching == 3
    assert store.recall("note", source="s1", episode_type="decision").total_matching == 2
    assert store.recall(since="2026-03-02T10:03:00Z").total_matching == 2
    assert store.recall(until="2026-03-02T10:00:30Z").total_matching == 1


def test_recall_is_safe_for_any_keyword(store: Store) -> None:
    store.record("plain words only", "observation")
    for keyword in NASTY:
        result = store.recall(keyword)
        assert result.total_matching == 0, keyword
    assert store.recall("  ").total_matching == 1  # blank: newest first
    assert store.recall("words; DROP").total_matching == 1
    with pytest.raises(InvalidQueryError):
        store.recall("x", limit=0)
    with pytest.raises(InvalidQueryError):
        store.recall("x", episode_type="gossip")


def test_recall_stems_and_matches_stopwords_alone(store: Store) -> None:
    store.record("the cat sat on the mat", "observation")
    store.record("chosen carefully", "decision")
    assert store.recall("the").total_matching == 1
    assert store.recall("cat").total_matching == 1


def test_recall_does_not_forget_old_matches(store: Store) -> None:
    oldest = store.record("alpha beacon from long ago", "observation")
    for i in range(300):
        store.record(f"alpha note number {i}", "observation")
    result = store.recall("alpha", limit=1000)
    assert result.total_matching == 301
    assert oldest.id in {e.id for e in result.episodes}
    assert store.recall("alpha beacon").episodes[0].id == oldest.id
    assert store.recall("beacon", limit=5).episodes[0].id == oldest.id


def test_prune_deletes_older_episodes_and_keeps_tombstones(store: Store) -> None:
    old = store.record("old", "context", timestamp="2026-01-01T00:00:00Z")
    new = store.record("new", "context")
    result = store.prune(30)
    assert result.deleted == 1
    assert result.cutoff.startswith("2026-01-31T09:00")
    assert store.get(old.id) is None
    assert store.get(new.id) is not None
    assert store.status().deleted_episodes == 1
    assert store.prune(30).deleted == 0
    with pytest.raises(InvalidInputError):
        store.prune(-1)


def test_status_counts_by_type(store: Store) -> None:
    store.record("a", "decision")
    store.record("b", "decision")
    last = store.record("c", "question")
    status = store.status()
    assert status.total_episodes == 3
    assert status.episodes_by_type["decision"] == 2
    assert status.episodes_by_type["question"] == 1
    assert status.episodes_by_type["outcome"] == 0
    assert status.last_write == last.timestamp
    assert "secret" not in status.path


def test_export_is_importable_by_a_sqlite_store(store: Store, tmp_path: Path) -> None:
    kept = store.record("kept", "decision", metadata={"k": "v"})
    gone = store.record("gone", "decision")
    store.delete(gone.id)
    out = io.StringIO()
    assert store.export_json(out) == 1
    document = json.loads(out.getvalue())
    assert document["format"] == "anneal-memory-export"
    assert [e["id"] for e in document["episodes"]] == [kept.id]
    assert [t["id"] for t in document["tombstones"]] == [gone.id]
    with Store(tmp_path / "copy.db") as copy:
        copy.import_json(out.getvalue())
        assert copy.get(kept.id) == kept


def test_a_sqlite_export_imports_here_in_one_transaction(store: Store, tmp_path: Path) -> None:
    with Store(tmp_path / "origin.db") as origin:
        first = origin.record("from the laptop", "decision", idempotency_key="k")
        gone = origin.record("deleted there", "observation")
        origin.delete(gone.id)
        out = io.StringIO()
        origin.export_json(out)
    result = store.import_json(out.getvalue())
    assert (result.imported, result.skipped_existing, result.tombstones_added) == (1, 0, 1)
    assert store.get(first.id) == first
    assert store.recall("laptop").episodes[0].id == first.id
    again = store.import_json(out.getvalue())
    assert (again.imported, again.skipped_existing, again.tombstones_added) == (0, 1, 0)
    clash = json.loads(out.getvalue())
    clash["episodes"][0]["content"] = "something else"
    clash["episodes"].append({**clash["episodes"][0], "id": "0badc0de"})
    with pytest.raises(ImportFormatError):
        store.import_json(clash)
    assert store.status().total_episodes == 1  # nothing of the refused import was written
    with pytest.raises(ImportFormatError):
        store.import_json("not json")


def test_a_closed_store_refuses_work(target: str) -> None:  # noqa: F811
    opened = Store(target)
    opened.close()
    opened.close()
    with pytest.raises(StoreClosedError):
        opened.record("x", "decision")
    with pytest.raises(StoreClosedError):
        opened.recall("x")


def test_the_baton_gate(store: Store) -> None:
    from anneal_memory import (
        BatonHeldError,
        GateError,
        baton_status,
        claim_baton,
        release_baton,
        set_consolidate_policy,
    )
    from anneal_memory.gate import consolidate_requires_baton

    store.record("waiting", "observation")
    first = baton_status(store)
    assert (first.consolidate_requires_baton, first.holder, first.episodes_since_wrap) == (
        False,
        None,
        1,
    )
    assert set_consolidate_policy(store, True) is False
    assert consolidate_requires_baton(store) is True
    held = claim_baton(store, "alice")
    assert (held.holder, held.previous_holder) == ("alice", None)
    assert claim_baton(store, "alice").holder == "alice"  # claiming what you hold: no change
    with pytest.raises(BatonHeldError, match="--take") as caught:
        claim_baton(store, "bob")
    assert caught.value.holder == "alice"
    taken = claim_baton(store, "bob", take=True)
    assert (taken.holder, taken.previous_holder) == ("bob", "alice")
    with pytest.raises(GateError, match="cannot release"):
        release_baton(store, "alice")
    released = release_baton(store, "bob")
    assert (released.holder, released.previous_holder) == (None, "bob")
    with pytest.raises(InvalidInputError):
        claim_baton(store, " ")


def test_pg_store_says_what_it_does_not_support_yet(pg_url: str) -> None:  # noqa: F811
    with Store.connect(pg_url) as store:
        assert type(store) is Store  # one facade; the backend is what differs
        store.record("something", "decision")
        assert store.load_continuity() is None  # a row of the database, none before a wrap
        for call in (
            lambda: store.path,
            lambda: store.sidecar(".continuity.md"),
            lambda: store.audit_trail,
            lambda: store.check(),
            lambda: store.continuity_file("alice"),
            lambda: store.export_markdown(io.StringIO()),
        ):
            with pytest.raises(BackendNotSupportedError, match="not supported on PostgreSQL yet"):
                call()
        assert store.verify_audit().valid


def test_pg_audit_chain_is_in_the_database(pg_url: str) -> None:  # noqa: F811
    with Store(pg_url) as store:
        episode = store.record("secret plan", "decision")
        store.delete(episode.id)
        store.prune(0)
        result = store.verify_audit()
        assert (result.valid, result.total_entries) == (True, 2)
        out = io.StringIO()
        assert store.export_audit(out) == 2
        lines = [json.loads(line) for line in out.getvalue().splitlines()]
        assert [line["event"] for line in lines] == ["record", "delete"]
        assert "secret plan" not in out.getvalue()
        assert lines[0]["data"]["content_hash"].startswith("hmac-sha256:")
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(
            "UPDATE audit_entries SET line = replace(line, 'delete', 'prune') WHERE seq = 2"
        )
    with Store(pg_url) as store:
        broken = store.verify_audit()
        assert (broken.valid, broken.chain_break_at) == (False, 3)  # the tip names the old line


def test_a_page_past_the_end_still_counts_the_matches(store: Store) -> None:
    for i in range(3):
        store.record(f"gamma ray {i}", "observation")
    store.record("the end", "observation")
    past = store.recall("gamma", limit=5, offset=10)
    assert (past.episodes, past.total_matching) == ((), 3)
    assert store.recall("the", offset=5).total_matching == 1
    assert store.recall(offset=10).total_matching == 4
    assert store.recall(episode_type="decision", offset=10).total_matching == 0


def test_pg_store_refuses_options_it_does_not_have_and_sqlite_internals(
    pg_url: str,  # noqa: F811
) -> None:
    with pytest.raises(BackendNotSupportedError, match=r"Store\(sqlite_pragmas=...\)"):
        Store(pg_url, sqlite_pragmas={})
    with Store(pg_url) as store, pytest.raises(BackendNotSupportedError):
        store.sidecar(".anything")
    with Store(pg_url) as store, pytest.raises(BackendNotSupportedError):
        _ = store.path


def test_the_audit_trail_reads_alike_on_both_backends(store: Store) -> None:
    episode = store.record("secret plan", "decision")
    store.delete(episode.id)
    assert store.verify_audit().valid
    assert [e["event"] for e in store.read_audit()][-2:] == ["record", "delete"]
    assert [e["event"] for e in store.read_audit(event="delete")] == ["delete"]
    out = io.StringIO()
    count = store.export_audit(out)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert count == len(lines)
    assert [line["event"] for line in lines][-2:] == ["record", "delete"]
    assert "secret plan" not in out.getvalue()
