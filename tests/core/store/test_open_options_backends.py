"""``Store(section_schema=, retention_days=, on_audit_event=, read_only=)`` on both backends.

Each test runs on SQLite and on PostgreSQL (``tests/backends.py``) with the same body: the
two stores promise the same behaviour for these options.
"""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.continuity import current_schema, set_section_schema
from anneal_memory.errors import InvalidInputError, InvalidSchemaError
from anneal_memory.testing import FrozenClock

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import audit_entries, pg_url, target  # noqa: F401 - fixtures


def test_section_schema_on_open_is_kept_and_audited_once(target: str) -> None:  # noqa: F811
    with Store(target, section_schema="project") as store:
        assert current_schema(store).name == "project"
    with Store(target, section_schema="project") as store:  # already chosen: no new entry
        assert current_schema(store).name == "project"
        assert [e["data"] for e in audit_entries(store, "section_schema_set")] == [
            {"schema": "project"}
        ]
        assert set_section_schema(store, "partnership").name == "partnership"
    with Store(target) as store:
        assert current_schema(store).name == "partnership"
        assert len(audit_entries(store, "section_schema_set")) == 2


def test_bad_open_options_are_refused(target: str) -> None:  # noqa: F811
    with pytest.raises(InvalidSchemaError, match="unknown section schema 'fancy'"):
        Store(target, section_schema="fancy")
    with pytest.raises(InvalidInputError, match="retention_days must be a number"):
        Store(target, retention_days=-1)


def test_retention_days_prunes_on_open_keeping_tombstones(
    target: str,  # noqa: F811
    clock: FrozenClock,
) -> None:
    with Store(target, clock=clock) as store:
        old = store.record("long ago", "observation", timestamp=clock.now() - dt.timedelta(days=40))
        keep = store.record("recent", "observation")
    with Store(target, clock=clock, retention_days=30) as store:
        assert store.get(old.id) is None
        assert store.get(keep.id) is not None
        assert store.status().deleted_episodes == 1
        prunes = audit_entries(store, "prune")
        assert [e["data"]["deleted"] for e in prunes] == [1]
        again = store.record("after the prune", "observation")
        assert again.id != old.id  # a pruned id is never reused


def test_on_audit_event_gets_each_entry_after_its_commit(target: str) -> None:  # noqa: F811
    from anneal_memory import prepare_wrap

    seen: list[dict[str, object]] = []
    with Store(target, on_audit_event=seen.append) as store:
        episode = store.record("a decision worth keeping", "decision")
        assert [e["event"] for e in seen] == ["record"]
        assert seen[0]["data"]["episode_id"] == episode.id  # type: ignore[index]
        assert "a decision worth keeping" not in str(seen)  # content-hash only
        store.delete(episode.id)
        prepare_wrap(store)
        written = audit_entries(store)
    assert [e["seq"] for e in seen] == [e["seq"] for e in written]
    assert seen == written


def test_on_audit_event_is_not_called_for_a_change_rolled_back(target: str) -> None:  # noqa: F811
    from anneal_memory.errors import SupersessionError

    seen: list[dict[str, object]] = []
    with Store(target, on_audit_event=seen.append) as store:
        first = store.record("first", "observation")
        with pytest.raises(SupersessionError):
            store.record("second", "observation", supersedes=["ffffffff"])
        assert [e["event"] for e in seen] == ["record"]
        assert store.recall().total_matching == 1
        assert first.id == seen[0]["data"]["episode_id"]  # type: ignore[index]


def test_a_failing_on_audit_event_is_logged_not_raised(
    target: str,  # noqa: F811
    caplog: pytest.LogCaptureFixture,
) -> None:
    def boom(entry: dict[str, object]) -> None:
        raise RuntimeError("callback broke")

    with Store(target, on_audit_event=boom) as store:
        episode = store.record("still recorded", "observation")
        assert store.get(episode.id) is not None
    assert "audit on_event callback failed" in caplog.text


def test_a_read_only_store_reads_and_refuses_every_write(target: str) -> None:  # noqa: F811
    from anneal_memory import prepare_wrap
    from anneal_memory.continuity import set_section_schema
    from anneal_memory.errors import StoreDatabaseError

    with Store(target) as store:
        kept = store.record("the deploy uses blue-green", "decision")
        entries = len(audit_entries(store))
    with Store(target, read_only=True) as reader:
        assert reader.read_only
        assert reader.get(kept.id) is not None
        assert reader.recall("deploy").total_matching == 1
        assert reader.status().total_episodes == 1
        for write in (
            lambda: reader.record("a new note", "observation"),
            lambda: reader.delete(kept.id),
            lambda: reader.prune(0),
            lambda: set_section_schema(reader, "project"),
            lambda: prepare_wrap(reader),
        ):
            with pytest.raises(StoreDatabaseError, match=r"the store was opened read-only"):
                write()
    with Store(target) as store:
        assert store.recall().total_matching == 1
        assert len(audit_entries(store)) == entries
        assert current_schema(store).name == "default"


def test_a_read_only_open_never_creates_a_store(target: str) -> None:  # noqa: F811
    from anneal_memory.errors import StoreDatabaseError

    with pytest.raises(StoreDatabaseError, match="a read-only open never creates a store"):
        Store(target, read_only=True)
    with pytest.raises(InvalidInputError, match="open it without read_only=True"):
        Store(target, read_only=True, retention_days=1)


@pytest.mark.parametrize("age", [1e6, 1e300, float("inf")])
def test_an_age_older_than_the_calendar_prunes_nothing_on_both_backends(
    target: str,  # noqa: F811
    age: float,
) -> None:
    # prune() and retention_days share one prelude in Store: no raw OverflowError anywhere.
    with Store(target) as store:
        kept = store.record("from the start of time", "observation")
        result = store.prune(age)
        assert (result.deleted, result.cutoff) == (0, "0001-01-01T00:00:00.000000Z")
        assert not audit_entries(store, "prune")
    with Store(target, retention_days=age) as store:
        assert store.get(kept.id) == kept
        assert store.status().total_episodes == 1
        assert store.status().deleted_episodes == 0
