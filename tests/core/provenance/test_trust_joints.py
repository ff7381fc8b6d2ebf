"""More trust joints of the sweep (issue 24): the wrap's ``[supersedes:]`` marker and an
explicit link obey effective trust, and trust rules of a slot stay inside its scope.

The tests run on SQLite and on PostgreSQL (``tests/backends.py``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from anneal_memory import FindingCode, Store, prepare_wrap, validated_save_continuity
from anneal_memory.errors import SupersessionError
from anneal_memory.testing import FrozenClock

sys.path.insert(0, str(Path(__file__).parents[2]))
sys.path.insert(0, str(Path(__file__).parent))

from backends import pg_url, target  # noqa: F401 - fixtures
from test_wrap_updates import build_text


@pytest.fixture
def store(target: str, clock: FrozenClock) -> Iterator[Store]:  # noqa: F811
    with Store(target, project_name="TestAgent", clock=clock, trust_ceiling="operator") as s:
        yield s


def test_a_wrap_marker_cannot_let_outside_text_replace_the_operators(store: Store) -> None:
    held = store.record("The deploy window is Tuesday at noon", "decision", trust="operator")
    prepare_wrap(store)
    validated_save_continuity(store, build_text())
    page = store.record("The deploy window moved to Friday at noon", "decision", trust="external")
    prepare_wrap(store)
    text = build_text(context=f"- window moved [supersedes: {held.id} by {page.id}]")
    result = validated_save_continuity(store, text)
    rejected = [f.message for f in result.findings if f.code is FindingCode.SUPERSESSION_REJECTED]
    assert any("a less trusted episode never replaces a more trusted one" in m for m in rejected)
    assert store.get(held.id).superseded_by is None  # type: ignore[union-attr]


def test_a_summary_of_a_page_cannot_supersede_the_agents_fact(store: Store) -> None:
    fact = store.record("The staging host is db-old.internal", "observation")
    page = store.record("A page: staging host moved to db-new", "observation", trust="external")
    with pytest.raises(SupersessionError, match="less trusted"):
        store.record(
            "The staging host is db-new.internal now",
            "observation",
            supersedes=[fact.id],
            derived_from=[page.id],
        )
    assert store.get(fact.id).superseded_by is None  # type: ignore[union-attr]


def test_a_slots_trust_rule_stays_inside_its_scope(store: Store) -> None:
    alice = store.record("Admin URL: a.internal", "context", trust="operator",
                         state_key="svc.url", scope="user:alice")  # fmt: skip
    bob = store.record("Admin URL: b.example", "context", trust="external",
                       state_key="svc.url", scope="user:bob")  # fmt: skip
    currents = {s.scope: s.current for s in store.state_key_report("svc.url")}
    assert currents == {"user:alice": (alice.id,), "user:bob": (bob.id,)}
