"""``explain_pattern``: each wrap's step, its rule, its citations and the audit entries."""

from __future__ import annotations

import pytest
from anneal_memory import InvalidInputError, Store
from anneal_memory.crystal import crystallize
from anneal_memory.explain import explain_pattern, render_pattern
from anneal_memory.testing import DEMO_GROUNDED, DEMO_INVENTED
from explain_helpers import FOLLOW_UP, SESSION, demo_wrap, record_all


def _two_wraps(store: Store) -> list[str]:
    first = record_all(store, SESSION)
    demo_wrap(store)
    second = record_all(store, FOLLOW_UP)
    demo_wrap(store)
    return first + second


def test_a_validated_climb_shows_its_rule_citations_words_and_trust(store: Store) -> None:
    ids = _two_wraps(store)
    found = explain_pattern(store, DEMO_GROUNDED)
    assert found.found
    assert found.level == 2
    assert found.max_level == 2
    assert found.line is not None
    assert found.line.startswith(f"- {DEMO_GROUNDED} | 2x")
    newest, first = found.steps
    assert (newest.wrap_id, newest.outcome, newest.level) == (2, "validated", 2)
    assert [r["code"] for r in newest.rules] == ["validated"]
    assert newest.citations == "continuity"
    assert {c.id for c in newest.cited} <= set(ids[3:])
    assert all(c.grounds and c.in_snapshot and c.effective_trust == "agent" for c in newest.cited)
    assert all(len(c.shared_words) >= 2 for c in newest.cited)
    assert newest.corroborated is True
    assert (first.wrap_id, first.outcome, first.level) == (1, "new", 1)
    assert found.more_steps is False


def test_an_invented_pattern_is_shown_demoted_with_the_rule_and_the_claim(store: Store) -> None:
    _two_wraps(store)
    found = explain_pattern(store, DEMO_INVENTED)
    assert [(s.level, s.claimed_level, s.outcome) for s in found.steps] == [
        (1, 2, "demoted"),
        (1, 2, "demoted"),
    ]
    assert "ungrounded" in [r["code"] for r in found.steps[0].rules]
    demoted = found.steps[0]
    assert demoted.citations == "history"  # what the line cited, kept though rejected
    assert demoted.cited
    assert all(c.validated is False and not c.grounds for c in demoted.cited)
    assert "demoted" in render_pattern(found)


def test_an_older_validated_step_lists_the_ids_history_kept(store: Store) -> None:
    ids = _two_wraps(store)
    newest = explain_pattern(store, DEMO_GROUNDED).steps[0]
    record_all(
        store, (("observation", "Parallel pytest workers on per worker Postgres databases"),)
    )
    demo_wrap(store)
    found = explain_pattern(store, DEMO_GROUNDED)
    older = next(s for s in found.steps if s.wrap_id == 2)
    assert older.outcome == "validated"
    assert older.citations == "history"
    assert [c.id for c in older.cited] == [c.id for c in newest.cited]
    assert {c.id for c in older.cited} <= set(ids[3:])
    assert all(c.grounds and c.validated for c in older.cited)
    assert all(len(c.shared_words) >= 2 for c in older.cited)


def test_a_step_saved_before_history_kept_ids_recomputes_its_grounding(store: Store) -> None:
    ids = _two_wraps(store)
    with store.writing("test: rows saved before the cited-ids step") as tx:
        tx.conn.execute("UPDATE pattern_history SET cited_ids = '', validated_ids = ''")
    record_all(
        store, (("observation", "Parallel pytest workers on per worker Postgres databases"),)
    )
    demo_wrap(store)
    found = explain_pattern(store, DEMO_GROUNDED)
    older = next(s for s in found.steps if s.wrap_id == 2)
    assert older.outcome == "validated"
    assert older.citations == "recomputed"
    assert older.cited
    assert {c.id for c in older.cited} <= set(ids[3:])
    assert all(c.grounds and c.validated is None for c in older.cited)


def test_the_limit_bounds_the_steps_and_says_more_exist(store: Store) -> None:
    _two_wraps(store)
    found = explain_pattern(store, DEMO_GROUNDED, limit=1)
    assert [s.wrap_id for s in found.steps] == [2]
    assert found.more_steps is True
    assert found.steps[0].outcome == "validated"  # the prior step still decides "new" or not


def test_names_are_matched_case_insensitively_and_scopes_apart(store: Store) -> None:
    record_all(store, SESSION, scope="u1")
    demo_wrap(store, scope="u1")
    assert explain_pattern(store, DEMO_GROUNDED.upper(), scope="u1").found
    assert not explain_pattern(store, DEMO_GROUNDED).found
    assert explain_pattern(store, DEMO_GROUNDED, scope="u1").scope == "u1"


def test_a_crystal_and_the_audit_entries_of_its_wraps_are_attached(store: Store) -> None:
    ids = _two_wraps(store)
    crystallize(store, DEMO_GROUNDED, level=2, explanation="per worker databases", evidence=ids[3:])
    found = explain_pattern(store, DEMO_GROUNDED)
    assert found.crystal is not None
    assert found.crystal["status"] == "crystallized"
    events = [(e["event"], e["data"].get("wrap_id")) for e in found.audit.entries]
    assert ("wrap_completed", 1) in events
    assert ("wrap_completed", 2) in events
    assert ("crystal_changed", None) in events
    assert found.audit.matched == len(found.audit.entries)
    assert found.audit.verdict is not None
    assert found.audit.verdict["valid"] is True
    assert explain_pattern(store, DEMO_GROUNDED, verify=False).audit.verdict is None


def test_a_deleted_citation_is_listed_as_deleted(store: Store) -> None:
    _two_wraps(store)
    cited = explain_pattern(store, DEMO_GROUNDED).steps[0].cited[0].id
    assert store.delete(cited)
    again = explain_pattern(store, DEMO_GROUNDED).steps[0]
    gone = next(c for c in again.cited if c.id == cited)
    assert (gone.exists, gone.grounds, gone.shared_words) == (False, False, ())


def test_an_unknown_pattern_is_not_found_and_bad_arguments_are_refused(store: Store) -> None:
    assert explain_pattern(store, "never_written").found is False
    with pytest.raises(InvalidInputError, match="pattern name"):
        explain_pattern(store, "  ")
    with pytest.raises(InvalidInputError, match="limit"):
        explain_pattern(store, "x", limit=0)
    with pytest.raises(InvalidInputError, match="scope"):
        explain_pattern(store, "x", scope="\x1b[2J")


def test_the_json_shape_is_stable(store: Store) -> None:
    _two_wraps(store)
    data = explain_pattern(store, DEMO_GROUNDED).to_dict()
    assert set(data) == {
        "name", "identity", "scope", "found", "level", "max_level", "first_wrap_id",
        "last_wrap_id", "last_grounded", "line", "steps", "more_steps", "crystal", "audit",
        "worth", "probes", "probes_total",
    }  # fmt: skip
    assert set(data["steps"][0]) == {
        "wrap_id", "day", "completed_at", "line_date", "level", "claimed_level", "outcome",
        "rules", "explanation", "citations", "cited", "snapshot_truncated", "corroborated",
    }  # fmt: skip
    assert set(data["audit"]) == {"entries", "matched", "verdict"}


def test_a_climb_grounded_only_by_tool_episodes_is_shown_uncorroborated(store: Store) -> None:
    record_all(store, SESSION, trust="tool")
    demo_wrap(store)
    record_all(store, FOLLOW_UP, trust="tool")
    demo_wrap(store)
    step = explain_pattern(store, DEMO_GROUNDED).steps[0]
    assert (step.level, step.claimed_level, step.outcome) == (1, 2, "demoted")
    assert "uncorroborated" in [r["code"] for r in step.rules]
    assert step.citations == "continuity"  # the line keeps its evidence for a later confirmation
    assert step.cited
    assert {c.effective_trust for c in step.cited} == {"tool"}
    assert all(c.grounds for c in step.cited)
