from __future__ import annotations

import datetime as dt
import json
import os
import sqlite3
import stat
from pathlib import Path

import pytest
from anneal_memory import (
    Episode,
    EpisodeType,
    IdempotencyConflictError,
    InvalidEpisodeError,
    InvalidInputError,
    Store,
    StoreClosedError,
)
from anneal_memory.store import MAX_CONTENT_BYTES
from anneal_memory.testing import FrozenClock


def test_record_then_get_round_trips_every_field(store: Store) -> None:
    recorded = store.record(
        "Chose PostgreSQL because ACID outweighs speed",
        EpisodeType.DECISION,
        source="planner",
        metadata={"ticket": "DB-7", "weights": [1, 2.5]},
        timestamp="2026-02-01T10:00:00+02:00",
        idempotency_key="k-1",
    )
    assert len(recorded.id) == 8
    assert all(c in "0123456789abcdef" for c in recorded.id)
    assert recorded.timestamp == "2026-02-01T08:00:00.000000Z"
    assert store.get(recorded.id) == recorded
    assert recorded.metadata == {"ticket": "DB-7", "weights": [1, 2.5]}


def test_string_episode_types_are_accepted(store: Store) -> None:
    episode = store.record("Something happened", "Tension")
    assert episode.type is EpisodeType.TENSION


def test_default_timestamp_comes_from_the_clock(store: Store, clock: FrozenClock) -> None:
    expected = clock.now() + dt.timedelta(seconds=1)
    episode = store.record("clocked", EpisodeType.CONTEXT)
    assert episode.timestamp == expected.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@pytest.mark.parametrize(
    ("content", "episode_type", "needle"),
    [
        ("", EpisodeType.OBSERVATION, "empty"),
        ("   \n\t ", EpisodeType.OBSERVATION, "empty"),
        ("fine", "feeling", "unknown episode type"),
        ("x" * (MAX_CONTENT_BYTES + 1), EpisodeType.OBSERVATION, "limit"),
        ("é" * (MAX_CONTENT_BYTES // 2 + 1), EpisodeType.OBSERVATION, "limit"),
        (b"\xff\xfe broken", EpisodeType.OBSERVATION, "UTF-8"),
        ("lone \ud800 surrogate", EpisodeType.OBSERVATION, "surrogate"),
        ("nul \x00 inside", EpisodeType.OBSERVATION, "NUL"),
        (42, EpisodeType.OBSERVATION, "text"),
    ],
)
def test_invalid_episodes_raise_value_errors_and_write_nothing(
    store: Store, content: object, episode_type: object, needle: str
) -> None:
    with pytest.raises(InvalidEpisodeError, match=needle) as caught:
        store.record(content, episode_type)  # type: ignore[arg-type]
    assert isinstance(caught.value, ValueError)
    assert store.status().total_episodes == 0


def test_content_at_the_size_limit_is_accepted(store: Store) -> None:
    episode = store.record("y" * MAX_CONTENT_BYTES, EpisodeType.OBSERVATION)
    assert len(episode.content) == MAX_CONTENT_BYTES


def test_utf8_bytes_content_is_decoded(store: Store) -> None:
    episode = store.record("grüße 数据".encode(), EpisodeType.OBSERVATION)
    assert episode.content == "grüße 数据"


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"metadata": {"bad": float("nan")}}, "finite"),
        ({"metadata": {"obj": object()}}, "JSON"),
        ({"metadata": ["not", "a", "mapping"]}, "mapping"),
        ({"timestamp": dt.datetime(2026, 1, 1)}, "timezone"),
        ({"timestamp": "yesterday"}, "timestamp"),
        ({"source": ""}, "source"),
        ({"source": "a\nb"}, "source"),
        ({"idempotency_key": ""}, "idempotency_key"),
    ],
)
def test_invalid_fields_are_named(store: Store, kwargs: dict[str, object], needle: str) -> None:
    with pytest.raises(InvalidEpisodeError, match=needle):
        store.record("valid text", EpisodeType.OBSERVATION, **kwargs)  # type: ignore[arg-type]
    assert store.status().total_episodes == 0


def test_idempotency_key_returns_the_first_episode(store: Store) -> None:
    first = store.record("retry me", EpisodeType.OUTCOME, idempotency_key="req-1")
    again = store.record("retry me", EpisodeType.OUTCOME, idempotency_key="req-1")
    assert again == first
    assert store.status().total_episodes == 1


def test_idempotency_key_reused_for_other_content_is_refused(store: Store) -> None:
    store.record("first", EpisodeType.OUTCOME, idempotency_key="req-1")
    with pytest.raises(IdempotencyConflictError, match="req-1"):
        store.record("second", EpisodeType.OUTCOME, idempotency_key="req-1")
    assert store.status().total_episodes == 1


def test_ids_are_unique_and_never_reused_after_deletion(store: Store) -> None:
    ids = {store.record(f"episode {i}", EpisodeType.OBSERVATION).id for i in range(300)}
    assert len(ids) == 300
    victim = sorted(ids)[0]
    assert store.delete(victim) is True
    with store.reading("test") as reader:
        tombstones = reader.conn.execute(
            "SELECT count(*) FROM tombstones WHERE id = ?", (victim,)
        ).fetchone()
    assert tombstones == (1,)
    # Re-inserting under a tombstoned id is refused by the insert itself.
    from anneal_memory.store import _episodes
    from anneal_memory.store._validate import validate_episode

    item = validate_episode(
        "again",
        "observation",
        source="agent",
        metadata=None,
        timestamp=None,
        idempotency_key=None,
        clock=store.clock,
    )
    with store.writing("test") as tx:
        assert tx.dialect.insert_episode_row(_episodes._values(victim, item)) is False
        assert tx.dialect.insert_episode_row(_episodes._values(sorted(ids)[1], item)) is False


def test_delete_removes_row_and_full_text_entry(store: Store) -> None:
    keep = store.record("the weather was mild", EpisodeType.OBSERVATION)
    gone = store.record("zanzibarian quokka sighting", EpisodeType.OBSERVATION)
    assert store.recall(keyword="quokka").total_matching == 1
    assert store.delete(gone.id) is True
    assert store.get(gone.id) is None
    assert store.recall(keyword="quokka").episodes == ()
    assert store.recall(keyword="quokka").total_matching == 0
    assert store.recall(keyword="zanzibarian quokka").episodes == ()
    with store.reading("test") as reader:
        conn = reader.conn
        assert conn.execute("PRAGMA secure_delete").fetchone() == (1,)
        vocab = "CREATE VIRTUAL TABLE IF NOT EXISTS temp.v USING fts5vocab(main, episodes_fts, row)"
        conn.execute(vocab)
        assert conn.execute("SELECT count(*) FROM temp.v WHERE term = 'quokka'").fetchone() == (0,)
    assert store.get(keep.id) == keep
    assert store.delete(gone.id) is False
    assert store.status().deleted_episodes == 1


def test_prune_deletes_only_old_episodes(store: Store, clock: FrozenClock) -> None:
    old = store.record("ancient", EpisodeType.CONTEXT, timestamp="2025-01-01T00:00:00Z")
    new = store.record("recent", EpisodeType.CONTEXT)
    result = store.prune(older_than_days=30)
    assert result.deleted == 1
    assert store.get(old.id) is None
    assert store.get(new.id) == new
    assert store.prune(older_than_days=30).deleted == 0


@pytest.mark.parametrize("days", [-1, "7", float("nan"), True])
def test_prune_rejects_bad_ages(store: Store, days: object) -> None:
    with pytest.raises(InvalidInputError, match="older_than_days"):
        store.prune(days)  # type: ignore[arg-type]


def test_status_counts_by_type_and_tracks_last_write(store: Store) -> None:
    assert store.status().last_write is None
    store.record("a", EpisodeType.DECISION)
    store.record("b", EpisodeType.DECISION)
    store.record("c", EpisodeType.QUESTION)
    status = store.status()
    assert status.total_episodes == 3
    assert status.episodes_by_type["decision"] == 2
    assert status.episodes_by_type["question"] == 1
    assert status.episodes_by_type["outcome"] == 0
    assert status.episodes_since_wrap == 3
    assert status.last_write is not None
    assert status.db_bytes > 0
    assert set(status.to_dict()) >= {"total_episodes", "episodes_by_type", "last_write"}


def test_files_are_private(tmp_path: Path) -> None:
    folder = tmp_path / "deep" / "store"
    with Store(folder / "memory.db") as opened:
        opened.record("secret plans", EpisodeType.DECISION)
        created = [folder / name for name in os.listdir(folder)]
        assert {p.name for p in created} >= {"memory.db", "memory.db-wal"}
        for path in created:
            assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, path
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_existing_folder_mode_is_left_alone(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    with Store(tmp_path / "memory.db"):
        pass
    assert stat.S_IMODE(tmp_path.stat().st_mode) == 0o755


def test_store_uses_wal_full_sync_and_a_schema_version(store: Store) -> None:
    with store.reading("test") as reader:
        conn = reader.conn
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert conn.execute("PRAGMA synchronous").fetchone() == (2,)
        assert conn.execute("PRAGMA user_version").fetchone()[0] >= 1
        assert conn.execute("PRAGMA page_size").fetchone() == (2048,)


def test_a_store_made_with_4k_pages_keeps_them(db_path: Path) -> None:
    import sqlite3

    db_path.parent.mkdir(parents=True)
    raw = sqlite3.connect(db_path)
    raw.execute("PRAGMA page_size=4096")
    raw.execute("VACUUM")  # an empty database file, with its page size written
    raw.close()
    assert db_path.stat().st_size > 0
    with Store(db_path) as store:
        store.record("still works", "observation")
        with store.reading("test") as reader:
            assert reader.conn.execute("PRAGMA page_size").fetchone() == (4096,)
            assert reader.conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_reopen_keeps_everything(db_path: Path, clock: FrozenClock) -> None:
    with Store(db_path, clock=clock) as first:
        episode = first.record("persist me", EpisodeType.OUTCOME)
        assert first.created is True
    with Store(db_path, clock=clock) as second:
        assert second.created is False
        assert second.get(episode.id) == episode


def test_newer_schema_is_refused(db_path: Path) -> None:
    with Store(db_path):
        pass
    raw = sqlite3.connect(db_path)
    raw.execute("PRAGMA user_version=999")
    raw.close()
    with pytest.raises(Exception, match="newer than this anneal-memory"):
        Store(db_path)


def test_closed_store_raises_a_clear_error(db_path: Path) -> None:
    opened = Store(db_path)
    opened.close()
    opened.close()
    with pytest.raises(StoreClosedError, match="closed"):
        opened.record("late", EpisodeType.OBSERVATION)


def test_export_and_import_round_trip_every_field(tmp_path: Path, store: Store) -> None:
    import io

    first = store.record("with metadata", EpisodeType.DECISION, metadata={"k": "v"}, source="me")
    store.record("plain", EpisodeType.QUESTION, idempotency_key="idem")
    deleted = store.record("to delete", EpisodeType.OBSERVATION)
    store.delete(deleted.id)
    buffer = io.StringIO()
    assert store.export_json(buffer) == 2
    document = json.loads(buffer.getvalue())
    assert document["format"] == "anneal-memory-export"
    with Store(tmp_path / "copy.db") as copy:
        result = copy.import_json(buffer.getvalue())
        assert (result.imported, result.skipped_existing, result.tombstones_added) == (2, 0, 1)
        originals = {e.id: e for e in store.recall(limit=10).episodes}
        copies = {e.id: e for e in copy.recall(limit=10).episodes}
        assert copies == originals
        assert copy.get(first.id) == first
        again = copy.import_json(document)
        assert (again.imported, again.skipped_existing) == (0, 2)
        assert copy.status().deleted_episodes == 1


def test_import_rejects_non_exports_and_writes_nothing(store: Store) -> None:
    from anneal_memory import ImportFormatError

    for bad in (
        "not json",
        "[]",
        '{"format": "other"}',
        '{"format": "anneal-memory-export", "format_version": 1, "episodes": [{"id": "zz"}]}',
    ):
        with pytest.raises(ImportFormatError):
            store.import_json(bad)
    good = {
        "id": "0123abcd",
        "timestamp": "2026-01-01T00:00:00Z",
        "type": "context",
        "content": "ok",
        "source": "agent",
        "metadata": {},
    }
    half_bad = {
        "format": "anneal-memory-export",
        "format_version": 1,
        "episodes": [good, {**good, "id": "0123abce", "content": ""}],
    }
    with pytest.raises(ImportFormatError, match="0123abce"):
        store.import_json(half_bad)
    assert store.status().total_episodes == 0


def test_episode_is_frozen(store: Store) -> None:
    episode: Episode = store.record("immutable", EpisodeType.CONTEXT)
    with pytest.raises(AttributeError):
        episode.content = "changed"  # type: ignore[misc]
