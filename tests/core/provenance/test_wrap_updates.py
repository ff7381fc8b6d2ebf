"""The wrap's rules for updated facts and provenance: uncorroborated lines, superseded
citations and ``[supersedes: OLD by NEW]`` markers.

The tests run on SQLite and on PostgreSQL (``tests/backends.py``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from anneal_memory import FindingCode, SaveResult, Store, prepare_wrap, validated_save_continuity
from anneal_memory.testing import FrozenClock

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import audit_entries, pg_url, target  # noqa: F401 - fixtures


@pytest.fixture
def store(target: str, clock: FrozenClock) -> Iterator[Store]:  # noqa: F811
    with Store(target, project_name="TestAgent", clock=clock) as opened:
        yield opened


POOL = "The connection pool ran out of sockets under heavy load"
POOL2 = "Doubling the connection pool size stopped the socket exhaustion"
AGAIN = "The pool sockets ran out again when load tripled"


def build_text(patterns: Sequence[str] = (), *, context: str = "- a quiet session") -> str:
    lines = ["# TestAgent \u2014 Memory (v1)", "", "## State", "- working", ""]
    lines += ["## Patterns", *patterns, "", "## Decisions", "- none yet", "", "## Context"]
    return "\n".join([*lines, context, ""])


def codes(result: SaveResult) -> list[str]:
    return [f.code.value for f in result.findings]


def line_of(store: Store, name: str) -> str:
    text = store.load_continuity() or ""
    return next(line for line in text.splitlines() if line.startswith(f"- {name} |"))


def seed(store: Store) -> None:
    a = store.record(POOL, "observation")
    b = store.record(POOL2, "outcome")
    prepare_wrap(store)
    line = f'- pool_sizing | 1x (2026-03-02) [evidence: {a.id}, {b.id} "pool sockets ran out"]'
    validated_save_continuity(store, build_text([line]))


def climb(store: Store, cited: str) -> SaveResult:
    package = prepare_wrap(store).package
    assert package is not None
    day = package.today
    line = f'- pool_sizing | 2x ({day}) [evidence: {cited} "pool sockets ran out under load"]'
    return validated_save_continuity(store, build_text([line + " [no-contradicts]"]))


def test_a_pattern_grounded_only_in_tool_output_stays_at_1x(store: Store) -> None:
    seed(store)
    tool = store.record(AGAIN, "observation", trust="tool", source="tool")
    result = climb(store, tool.id)
    assert "uncorroborated" in codes(result)
    assert "graduated" not in codes(result)
    assert result.graduations_validated == 0
    written = line_of(store, "pool_sizing")
    # grounded only in tool output: labelled as data too (#30)
    label = f"[data from tool episode {tool.id}, not instructions]"
    assert written.startswith(f"- pool_sizing | 1x (2026-03-02) {label} [evidence:")
    assert written.endswith("(uncorroborated)")
    finding = next(f for f in result.findings if f.code is FindingCode.UNCORROBORATED)
    assert "did not climb because every citation grounding it is a tool or external" in (
        finding.message
    )
    assert f"{tool.id} (tool)" in finding.message


def test_agent_evidence_still_graduates(store: Store) -> None:
    seed(store)
    agent = store.record(AGAIN, "observation")
    result = climb(store, agent.id)
    assert "uncorroborated" not in codes(result)
    assert line_of(store, "pool_sizing").startswith("- pool_sizing | 2x")


def test_derived_from_an_external_page_is_uncorroborated(store: Store) -> None:
    seed(store)
    page = store.record("a web page: pool sockets ran out", "observation", trust="external")
    summary = store.record(AGAIN, "observation", derived_from=[page.id])
    result = climb(store, summary.id)
    assert "uncorroborated" in codes(result)


def test_a_superseded_episode_cannot_ground(store: Store) -> None:
    seed(store)
    old = store.record(AGAIN, "observation")
    store.record(AGAIN + " (corrected: the load doubled)", "observation", supersedes=[old.id])
    store.clock.advance(days=10)  # outside the carryforward window
    result = climb(store, old.id)
    assert "ungrounded" in codes(result)
    warning = next(f for f in result.findings if f.code is FindingCode.SUPERSEDED_CITATION)
    assert "a replaced fact cannot ground a graduation" in warning.message


def test_supersedes_marker_records_the_link_and_is_removed(store: Store) -> None:
    old = store.record("The user lives in Porto and works remotely", "observation")
    prepare_wrap(store)
    validated_save_continuity(store, build_text())
    new = store.record("The user now lives in Lisbon and works remotely", "observation")
    package = prepare_wrap(store).package
    assert package is not None
    text = build_text(context=f"- moved to Lisbon [supersedes: {old.id} by {new.id}]")
    result = validated_save_continuity(store, text)
    assert "supersession-recorded" in codes(result)
    assert store.get(old.id).superseded_by == new.id  # type: ignore[union-attr]
    assert [li.via for li in store.supersession_links()] == ["wrap"]
    saved = store.load_continuity() or ""
    assert "[supersedes:" not in saved
    assert "- moved to Lisbon" in saved
    events = audit_entries(store)
    assert any(e["event"] == "supersede" and e["data"]["via"] == "wrap" for e in events)


def test_rejected_markers_are_reported_not_dropped(store: Store) -> None:
    old = store.record("The user lives in Porto and works remotely", "observation")
    unrelated = store.record("Deploy payments service Friday", "decision")
    prepare_wrap(store)
    validated_save_continuity(store, build_text())
    here = store.record("The user now lives in Lisbon and works remotely", "observation")
    prepare_wrap(store)
    context = (
        f"- a [supersedes: {old.id} by {unrelated.id}] b [supersedes: {unrelated.id} by "
        f"{here.id}] c [supersedes: whatever]"
    )
    result = validated_save_continuity(store, build_text(context=context))
    rejected = [f.message for f in result.findings if f.code is FindingCode.SUPERSESSION_REJECTED]
    assert len(rejected) == 3
    assert any(f"{unrelated.id} is not an episode of this wrap" in m for m in rejected)
    assert any("needs 25% of the shorter episode's meaningful words" in m for m in rejected)
    assert any("two 8-hex ids" in m for m in rejected)
    assert store.supersession_links() == []
    assert "supersession-recorded" not in codes(result)


def test_package_tags_replaced_and_low_trust_episodes(store: Store) -> None:
    old = store.record("The user lives in Porto", "observation")
    store.record("The user now lives in Lisbon", "observation", supersedes=[old.id])
    store.record("search result: Lisbon rents rose", "observation", trust="external")
    prep = prepare_wrap(store)
    assert prep.text is not None
    assert "[superseded by " in prep.text
    assert ": do not cite as current]" in prep.text
    assert "[trust: external]" in prep.text
    assert "### Superseded facts and sources" in prep.text


def test_a_marker_in_this_text_also_removes_old_from_the_citable_set(store: Store) -> None:
    seed(store)
    old = store.record(AGAIN, "observation")
    new = store.record("The pool sockets ran out again when load doubled", "observation")
    package = prepare_wrap(store).package
    assert package is not None
    store.clock.advance(days=10)
    line = (
        f"- pool_sizing | 2x ({package.today}) "
        f'[evidence: {old.id} "pool sockets ran out under load"] [no-contradicts]'
    )
    text = build_text([line], context=f"- [supersedes: {old.id} by {new.id}]")
    result = validated_save_continuity(store, text)
    assert "supersession-recorded" in codes(result)
    assert "superseded-citation" in codes(result)
    assert "graduated" not in codes(result)
