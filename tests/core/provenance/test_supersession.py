"""Supersession links and state keys on a real store: every rule and its message.

The tests taking ``store`` run on SQLite and on PostgreSQL (``tests/backends.py``).
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.errors import EpisodeNotFoundError, InvalidEpisodeError, SupersessionError
from anneal_memory.immune._floor import check_floor
from anneal_memory.testing import FrozenClock

OLD = "The user lives in Porto and works remotely for the bank"
NEW = "The user moved: now lives in Lisbon and works remotely for the bank"

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import audit_entries, pg_url, target  # noqa: E402, F401 - fixtures


@pytest.fixture
def store(target: str, clock: FrozenClock) -> Iterator[Store]:  # noqa: F811
    with Store(target, project_name="TestAgent", clock=clock) as opened:
        yield opened


def test_record_supersedes_hides_the_old_episode_from_recall(store: Store) -> None:
    old = store.record(OLD, "observation")
    new = store.record(NEW, "observation", supersedes=[old.id])
    assert store.get(old.id).superseded_by == new.id  # type: ignore[union-attr]
    hits = store.recall("lives works remotely")
    assert [e.id for e in hits.episodes] == [new.id]
    assert hits.total_matching == 1
    every = store.recall("lives works remotely", include_superseded=True)
    assert {e.id: e.superseded_by for e in every.episodes} == {old.id: new.id, new.id: None}
    assert store.recall().total_matching == 1
    assert [e.id for e in store.recall(include_superseded=True).episodes] == [new.id, old.id]


def test_supersede_and_unsupersede_after_the_fact(store: Store) -> None:
    old = store.record(OLD, "observation")
    new = store.record(NEW, "observation")
    assert store.supersede(old.id, new.id) is True
    assert store.supersede(old.id, new.id) is False  # already linked
    assert [(li.old_id, li.new_id, li.via) for li in store.supersession_links()] == [
        (old.id, new.id, "explicit")
    ]
    assert store.unsupersede(old.id, new.id) is True
    assert store.unsupersede(old.id, new.id) is False
    assert store.get(old.id).superseded_by is None  # type: ignore[union-attr]
    assert len(store.recall("lives").episodes) == 2


def _count(store: Store) -> int:
    return len(store.recall(include_superseded=True, limit=100).episodes)


def test_lexical_floor_refuses_unrelated_texts_and_writes_nothing(store: Store) -> None:
    old = store.record(OLD, "observation")
    before = _count(store)
    with pytest.raises(SupersessionError) as info:
        store.record("Deploy the payments service on Friday", "decision", supersedes=[old.id])
    message = str(info.value)
    assert "needs 25% of the shorter episode's meaningful words" in message
    assert "Nothing was written" in message
    assert "the new episode" in message
    assert _count(store) == before


def test_floor_counts_the_shorter_texts_meaningful_words() -> None:
    check = check_floor("home city Porto", "the user's home city is now Lisbon, since March")
    assert check.shorter == 3
    assert check.needed == 1
    assert check.passed
    assert not check_floor("alpha beta gamma delta", "epsilon zeta eta theta").passed
    assert not check_floor("a an the", "the a").passed  # no meaningful word at all


def test_old_must_exist_and_not_be_newer(store: Store, clock: FrozenClock) -> None:
    new = store.record(NEW, "observation")
    with pytest.raises(SupersessionError, match="no episode 00000000"):
        store.supersede("00000000", new.id)
    past = clock.now() + dt.timedelta(days=-3)
    older = store.record(OLD, "observation", timestamp=past)
    with pytest.raises(SupersessionError, match="is newer than"):
        store.supersede(new.id, older.id)
    with pytest.raises(SupersessionError, match="cannot supersede itself"):
        store.supersede(new.id, new.id)


def test_cycles_are_refused(store: Store, clock: FrozenClock) -> None:
    stamp = clock.now()
    a = store.record(OLD, "observation", timestamp=stamp)
    b = store.record(NEW, "observation", timestamp=stamp)
    store.supersede(a.id, b.id)
    with pytest.raises(SupersessionError, match="would form a cycle"):
        store.supersede(b.id, a.id)


def test_lower_trust_never_replaces_higher(store: Store) -> None:
    old = store.record(OLD, "observation", trust="agent")
    with pytest.raises(SupersessionError, match="less trusted episode never replaces"):
        store.record(NEW, "observation", trust="external", supersedes=[old.id])
    tool_old = store.record(OLD + " (tool)", "observation", trust="tool")
    new = store.record(NEW, "observation", supersedes=[tool_old.id])
    assert store.get(tool_old.id).superseded_by == new.id  # type: ignore[union-attr]


def test_state_key_newest_replaces_the_rest_without_the_floor(store: Store) -> None:
    porto = store.record("home: Porto", "observation", state_key="user.home_city")
    lisbon = store.record("Relocated last spring", "observation", state_key=" User.Home_City ")
    assert lisbon.state_key == "user.home_city"
    assert store.get(porto.id).superseded_by == lisbon.id  # type: ignore[union-attr]
    [slot] = store.state_key_report()
    assert slot.to_dict() == {
        "key": "user.home_city",
        "current": [lisbon.id],
        "replaced": [porto.id],
    }
    assert store.state_key_report("user.home_city") == [slot]
    assert store.state_key_report("nothing.here") == []


def test_an_older_timestamp_does_not_take_the_slot(store: Store, clock: FrozenClock) -> None:
    now = store.record("city Lisbon", "observation", state_key="city")
    old = store.record(
        "city Porto", "observation", state_key="city", timestamp=clock.now() - dt.timedelta(days=9)
    )
    assert store.get(old.id).superseded_by == now.id  # type: ignore[union-attr]
    assert store.get(now.id).superseded_by is None  # type: ignore[union-attr]


def test_keyed_episode_is_replaced_only_through_its_key(store: Store) -> None:
    keyed = store.record(OLD, "observation", state_key="user.home_city")
    with pytest.raises(SupersessionError, match="replaced only through its key"):
        store.record(NEW, "observation", supersedes=[keyed.id])


def test_state_set_and_unset(store: Store) -> None:
    a = store.record("favourite editor vim", "observation")
    b = store.record("favourite editor helix", "observation")
    store.set_state_key(a.id, "user.editor")
    store.set_state_key(b.id, "user.editor")
    assert store.get(a.id).superseded_by == b.id  # type: ignore[union-attr]
    store.set_state_key(b.id, None)
    assert store.get(a.id).superseded_by is None  # type: ignore[union-attr]
    assert store.get(b.id).state_key is None  # type: ignore[union-attr]
    with pytest.raises(EpisodeNotFoundError):
        store.set_state_key("deadbeef", "x")


def test_bad_state_keys_and_id_lists_are_refused(store: Store) -> None:
    for key in ("", "has space", "ü.city", "x" * 129, "-lead"):
        with pytest.raises(InvalidEpisodeError, match="state_key must be"):
            store.record("text", "observation", state_key=key)
    with pytest.raises(InvalidEpisodeError, match="not an episode id"):
        store.record("text", "observation", supersedes=["nope"])
    assert _count(store) == 0


def test_deleting_a_replacement_brings_the_old_back(store: Store) -> None:
    old = store.record(OLD, "observation")
    new = store.record(NEW, "observation", supersedes=[old.id])
    store.delete(new.id)
    assert store.get(old.id).superseded_by is None  # type: ignore[union-attr]
    a = store.record("city Porto", "observation", state_key="city")
    b = store.record("city Lisbon", "observation", state_key="city")
    store.delete(b.id)
    assert store.get(a.id).superseded_by is None  # type: ignore[union-attr]
    assert store.state_key_report("city")[0].current == (a.id,)


def test_links_and_keys_are_audited(store: Store) -> None:
    old = store.record(OLD, "observation")
    new = store.record(NEW, "observation", supersedes=[old.id])
    store.unsupersede(old.id, new.id)
    store.supersede(old.id, new.id)
    events = audit_entries(store)
    names = [e["event"] for e in events]
    assert names.count("supersede") == 2
    assert names.count("unsupersede") == 1
    first = next(e for e in events if e["event"] == "supersede")
    assert first["data"] == {"old_id": old.id, "new_id": new.id, "via": "explicit"}


def test_state_key_changes_are_audited(store: Store) -> None:
    episode = store.record("editor helix", "observation")
    store.set_state_key(episode.id, "user.editor")
    store.set_state_key(episode.id, None)
    events = audit_entries(store)
    keyed = [e for e in events if e["data"].get("via") == "state_key"]
    assert [e["event"] for e in keyed] == ["supersede", "unsupersede"]
    assert keyed[0]["data"] == {
        "episode_id": episode.id,
        "via": "state_key",
        "state_key": "user.editor",
    }


def test_migration_adds_the_columns_to_an_old_store(db_path: Path) -> None:
    Store(db_path).close()
    conn = sqlite3.connect(db_path)
    columns = {row[1] for row in conn.execute("PRAGMA table_info(episodes)")}
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    conn.close()
    assert {"trust", "state_key", "superseded_by", "derived_from"} <= columns
    assert "supersessions" in tables


def test_export_import_carries_links_keys_and_trust(store: Store, tmp_path: Path) -> None:
    import io

    old = store.record(OLD, "observation", trust="tool")
    new = store.record(NEW, "observation", supersedes=[old.id])
    store.record("city Porto", "observation", state_key="city")
    lisbon = store.record("city Lisbon", "observation", state_key="city")
    derived = store.record("summary of the tool output", "observation", derived_from=[old.id])
    out = io.StringIO()
    store.export_json(out)
    document = json.loads(out.getvalue())
    assert document["supersessions"][0]["old_id"] == old.id
    with Store(tmp_path / "copy.db") as copy:
        copy.import_json(out.getvalue())
        assert copy.get(old.id).trust.value == "tool"  # type: ignore[union-attr]
        assert copy.get(old.id).superseded_by == new.id  # type: ignore[union-attr]
        assert copy.get(derived.id).derived_from == (old.id,)  # type: ignore[union-attr]
        assert copy.state_key_report("city")[0].current == (lisbon.id,)
        assert [li.old_id for li in copy.supersession_links()] == [old.id]
    broken = dict(document, supersessions=[{"old_id": old.id, "new_id": old.id, "via": "x"}])
    from anneal_memory.errors import ImportFormatError

    with Store(tmp_path / "other.db") as other, pytest.raises(ImportFormatError, match="malformed"):
        other.import_json(broken)
