"""A state key obeys the supersession trust rule: a less trusted episode never takes the slot
of a more trusted one (effective trust), by record, ``set_state_key`` or MCP ``record``.

The tests run on SQLite and on PostgreSQL (``tests/backends.py``).
"""

from __future__ import annotations

import datetime as dt
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.errors import TrustError
from anneal_memory.mcp import McpServer, ServerConfig
from anneal_memory.testing import FrozenClock

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import audit_entries, pg_url, target  # noqa: F401 - fixtures
from mcp_calls import call_tool as _call

KEY = "service.admin_url"


@pytest.fixture
def store(target: str, clock: FrozenClock) -> Iterator[Store]:  # noqa: F811
    with Store(target, project_name="TestAgent", clock=clock, trust_ceiling="operator") as opened:
        yield opened


def _current(store: Store) -> str:
    [slot] = store.state_key_report(KEY)
    return slot.current[0]


@pytest.mark.parametrize(
    ("held", "incoming"),
    [("operator", "external"), ("operator", "agent"), ("agent", "tool"), ("tool", "external")],
)
def test_a_less_trusted_value_is_refused_and_nothing_is_written(
    store: Store, held: str, incoming: str
) -> None:
    kept = store.record("Admin URL: https://admin.internal", "context", trust=held, state_key=KEY)
    before = store.status().total_episodes
    with pytest.raises(TrustError) as refused:
        store.record("Admin URL: https://evil.example", "context", trust=incoming, state_key=KEY)
    message = str(refused.value)
    assert "a less trusted episode never replaces a more trusted one" in message
    assert f"state key {KEY!r}" in message
    assert kept.id in message
    assert "Nothing was written" in message
    assert store.status().total_episodes == before
    assert _current(store) == kept.id
    assert [e.id for e in store.recall("admin URL").episodes] == [kept.id]
    assert len(audit_entries(store, "record")) == 1


@pytest.mark.parametrize(("held", "incoming"), [("agent", "agent"), ("tool", "operator")])
def test_an_equally_or_more_trusted_value_takes_the_slot(
    store: Store, held: str, incoming: str
) -> None:
    old = store.record("Home city: Porto", "observation", trust=held, state_key="user.city")
    new = store.record("Home city: Lisbon", "observation", trust=incoming, state_key="user.city")
    [slot] = store.state_key_report("user.city")
    assert (slot.current, slot.replaced) == ((new.id,), (old.id,))


def test_effective_trust_counts_a_summary_of_a_page_is_external(store: Store) -> None:
    kept = store.record("Admin URL: https://admin.internal", "context", state_key=KEY)
    page = store.record("page: admin moved to evil.example", "observation", trust="external")
    with pytest.raises(TrustError, match="less trusted"):
        store.record(
            "Admin URL: https://evil.example", "context", state_key=KEY, derived_from=[page.id]
        )
    assert _current(store) == kept.id


def test_an_older_more_trusted_value_is_not_replaced_by_a_newer_less_trusted_one(
    store: Store, clock: FrozenClock
) -> None:
    newer = store.record("Admin URL: https://a.internal", "context", trust="agent", state_key=KEY)
    earlier = clock.now() - dt.timedelta(days=1)
    with pytest.raises(TrustError, match="less trusted") as refused:
        store.record(
            "Admin URL: https://b.internal",
            "context",
            trust="operator",
            state_key=KEY,
            timestamp=earlier,
        )
    assert newer.id in str(refused.value)
    assert _current(store) == newer.id


def test_set_state_key_obeys_the_same_rule(store: Store) -> None:
    kept = store.record("Admin URL: https://admin.internal", "context", trust="operator")
    store.set_state_key(kept.id, KEY)
    outside = store.record("Admin URL: https://evil.example", "context", trust="external")
    with pytest.raises(TrustError, match="a less trusted episode never replaces a more trusted"):
        store.set_state_key(outside.id, KEY)
    assert store.get(outside.id).state_key is None  # type: ignore[union-attr]
    assert _current(store) == kept.id
    # The way through is explicit: lower the kept value first (or raise the newcomer).
    store.set_trust(kept.id, "external")
    store.set_state_key(outside.id, KEY)
    assert _current(store) == outside.id


def test_over_mcp_an_external_value_cannot_replace_the_agents(
    target: str,  # noqa: F811
    clock: FrozenClock,
    tmp_path: Path,
) -> None:
    with Store(target, project_name="TestAgent", clock=clock) as store:
        where = tmp_path / "unused.db" if "://" in target else Path(target)
        server = McpServer(ServerConfig(db_path=where, session_id="s"), store=store)
        text, is_error = _call(
            server, "record", content="Admin URL: https://admin.internal",
            episode_type="context", state_key=KEY,
        )  # fmt: skip
        assert not is_error
        kept = text.split("(")[1].split(")")[0]
        text, is_error = _call(
            server, "record", content="Admin URL: https://evil.example",
            episode_type="context", state_key=KEY, trust="external",
        )  # fmt: skip
        assert is_error
        assert "a less trusted episode never replaces a more trusted one" in text
        assert _current(store) == kept
        recalled, _ = _call(server, "recall", keyword="admin URL")
        assert "admin.internal" in recalled
        assert "evil.example" not in recalled
