"""Trust classes, the store's ceiling, derived_from, set_trust, schema and retention options.

The tests taking ``store`` or ``target`` run on SQLite and on PostgreSQL (``tests/backends.py``).
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.continuity import current_schema
from anneal_memory.errors import InvalidEpisodeError, InvalidSchemaError, TrustError
from anneal_memory.testing import FrozenClock
from anneal_memory.types import Trust

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import audit_entries, pg_url, target  # noqa: F401 - fixtures


@pytest.fixture
def store(target: str, clock: FrozenClock) -> Iterator[Store]:  # noqa: F811
    with Store(target, project_name="TestAgent", clock=clock) as opened:
        yield opened


def test_trust_order_and_parse() -> None:
    assert [t.rank for t in Trust] == [0, 1, 2, 3]
    assert Trust.parse(" Tool ") is Trust.TOOL
    with pytest.raises(ValueError, match="unknown trust 'web'"):
        Trust.parse("web")


def test_record_keeps_trust_and_refuses_above_the_ceiling(store: Store) -> None:
    assert store.trust_ceiling is Trust.AGENT
    episode = store.record("page says X", "observation", trust="external")
    assert store.get(episode.id).trust is Trust.EXTERNAL  # type: ignore[union-attr]
    with pytest.raises(TrustError, match="above this store's ceiling 'agent'") as info:
        store.record("I am the operator", "observation", trust="operator")
    assert "Nothing was written" in str(info.value)
    with pytest.raises(TrustError, match="unknown trust"):
        store.record("x", "observation", trust="root")
    assert store.recall().total_matching == 1


def test_operator_ceiling_allows_operator_trust(target: str) -> None:  # noqa: F811
    with Store(target, trust_ceiling="operator") as store:
        assert store.record("ops note", "decision", trust="operator").trust is Trust.OPERATOR


def test_derived_from_caps_effective_trust(store: Store) -> None:
    page = store.record("the web page claims the API is free", "observation", trust="external")
    summary = store.record("summary: the API is free", "observation", derived_from=[page.id])
    mixed_src = store.record("the docs say the API is free", "observation")
    mixed = store.record("API is free", "observation", derived_from=[page.id, mixed_src.id])
    assert summary.derived_from == (page.id,)
    trusts = store.effective_trusts([summary.id, mixed.id, page.id])
    assert trusts == {summary.id: Trust.EXTERNAL, mixed.id: Trust.AGENT, page.id: Trust.EXTERNAL}
    with pytest.raises(InvalidEpisodeError, match="derived_from names no episode 0badc0de"):
        store.record("x", "observation", derived_from=["0badc0de"])


def test_set_trust_lowers_freely_and_raises_only_with_allow_raise(store: Store) -> None:
    episode = store.record("tool output", "observation", trust="tool")
    assert store.set_trust(episode.id, "external").trust is Trust.EXTERNAL
    with pytest.raises(TrustError, match="needs an operator") as info:
        store.set_trust(episode.id, "agent")
    assert "Nothing was written" in str(info.value)
    assert store.get(episode.id).trust is Trust.EXTERNAL  # type: ignore[union-attr]
    assert store.set_trust(episode.id, "agent", allow_raise=True).trust is Trust.AGENT
    with pytest.raises(TrustError, match="above this store's ceiling"):
        store.set_trust(episode.id, "operator", allow_raise=True)


def test_trust_set_is_audited(store: Store) -> None:
    episode = store.record("tool output", "observation", trust="tool")
    store.set_trust(episode.id, "external")
    entries = audit_entries(store)
    [entry] = [e for e in entries if e["event"] == "trust_set"]
    assert entry["data"] == {"episode_id": episode.id, "from": "tool", "to": "external"}
    record = next(e for e in entries if e["event"] == "record")
    assert record["data"]["trust"] == "tool"


def test_section_schema_argument(db_path: Path) -> None:
    with Store(db_path, section_schema="project") as store:
        assert current_schema(store).name == "project"
        trail = store.sidecar(".audit.jsonl")
    with Store(db_path) as store:
        assert current_schema(store).name == "project"
    events = [json.loads(line)["event"] for line in trail.read_text().splitlines()]
    assert events.count("section_schema_set") == 1
    with pytest.raises(InvalidSchemaError, match="unknown section schema 'fancy'"):
        Store(db_path, section_schema="fancy")


def test_retention_days_prunes_on_open_with_tombstones(db_path: Path, clock: FrozenClock) -> None:
    with Store(db_path, clock=clock) as store:
        old = store.record("long ago", "observation", timestamp=clock.now() - dt.timedelta(days=40))
        keep = store.record("recent", "observation")
    with Store(db_path, clock=clock, retention_days=30) as store:
        assert store.get(old.id) is None
        assert store.get(keep.id) is not None
        assert store.status().deleted_episodes == 1
        trail = store.sidecar(".audit.jsonl")
    prunes = [
        json.loads(line) for line in trail.read_text().splitlines() if '"event":"prune"' in line
    ]
    assert prunes[0]["data"]["deleted"] == 1


def test_bad_open_options_are_refused_before_anything_is_created(tmp_path: Path) -> None:
    path = tmp_path / "new" / "m.db"
    with pytest.raises(InvalidSchemaError, match="unknown section schema"):
        Store(path, section_schema="fancy")
    from anneal_memory.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="retention_days must be a number"):
        Store(path, retention_days=-1)
    with pytest.raises(TrustError, match="unknown trust"):
        Store(path, trust_ceiling="root")
    assert not path.exists()
