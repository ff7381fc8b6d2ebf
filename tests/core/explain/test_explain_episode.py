"""``explain_episode``: trust and its cap, replacements, state keys, uses, links, audit."""

from __future__ import annotations

import io

import pytest
from anneal_memory import InvalidInputError, Store
from anneal_memory.crystal import crystallize
from anneal_memory.explain import explain_episode, explain_pattern, render_episode
from anneal_memory.testing import DEMO_GROUNDED
from explain_helpers import FOLLOW_UP, SESSION, demo_wrap, record_all


def test_derived_from_caps_the_effective_trust_and_names_the_source(store: Store) -> None:
    page = store.record(
        "The vendor page says the API limit is 100 requests", "observation", trust="external"
    )
    note = store.record(
        "The API limit is 100 requests per minute", "decision", derived_from=[page.id]
    )
    found = explain_episode(store, note.id)
    assert found.trust is not None
    assert (found.trust.recorded, found.trust.effective) == ("agent", "external")
    assert found.trust.capped_by == (page.id,)
    assert found.trust.sources == ({"id": page.id, "effective_trust": "external"},)
    assert "capped by " + page.id in render_episode(found)
    plain = explain_episode(store, page.id)
    assert plain.trust is not None
    assert plain.trust.capped_by == ()


def test_supersession_and_the_state_key_slot_both_ways(store: Store) -> None:
    old = store.record("The staging database listens on port 5432", "observation")
    new = store.record(
        "The staging database now listens on port 6543", "observation", supersedes=[old.id]
    )
    first = store.record("The user lives in Porto", "context", state_key="user.home_city")
    second = store.record("The user moved to Lisbon", "context", state_key="user.home_city")
    replaced = explain_episode(store, old.id)
    assert replaced.superseded_by == new.id
    assert replaced.replaced_by == ({"old_id": old.id, "new_id": new.id, "via": "explicit"},)
    assert explain_episode(store, new.id).replaces == replaced.replaced_by
    keyed = explain_episode(store, first.id)
    assert keyed.state_key == "user.home_city"
    assert keyed.slot == (second.id, first.id)
    assert keyed.slot_size == 2
    assert keyed.superseded_by == second.id


def test_a_deleted_episode_keeps_its_tombstone_and_its_audit_entries(store: Store) -> None:
    gone = store.record("recorded by mistake", "observation")
    store.delete(gone.id)
    found = explain_episode(store, gone.id)
    assert found.found is False
    assert found.deleted is not None
    assert found.deleted["reason"] == "delete"
    assert [e["event"] for e in found.audit.entries] == ["delete", "record"]
    assert explain_episode(store, "0badc0de").deleted is None


def test_its_uses_crystals_associations_and_scope(store: Store) -> None:
    record_all(store, SESSION)
    demo_wrap(store)
    record_all(store, FOLLOW_UP)
    demo_wrap(store)
    cited = explain_pattern(store, DEMO_GROUNDED).steps[0].cited
    crystallize(store, DEMO_GROUNDED, level=2, explanation="per worker", evidence=[cited[0].id])
    found = explain_episode(store, cited[0].id)
    assert found.scope == ""
    assert [(u.name, u.level) for u in found.patterns] == [(DEMO_GROUNDED, 2)]
    assert found.crystals == (DEMO_GROUNDED,)
    assert {cited[1].id} == {
        a["a"] if a["b"] == cited[0].id else a["b"] for a in found.associations
    }
    assert {e["event"] for e in found.audit.entries} >= {
        "record",
        "wrap_started",
        "crystal_changed",
    }
    scoped = store.record("a thread's own note", "observation", scope="thread-7")
    assert explain_episode(store, scoped.id).scope == "thread-7"


def test_the_limit_bounds_the_audit_entries(store: Store) -> None:
    item = store.record("a fact that is set several times", "observation")
    for level in ("tool", "external"):
        store.set_trust(item.id, level)
    store.set_trust(item.id, "tool", allow_raise=True)
    found = explain_episode(store, item.id, limit=2, verify=False)
    assert [e["event"] for e in found.audit.entries] == ["trust_set", "trust_set"]
    assert found.audit.matched == 4
    assert found.audit.verdict is None


def test_an_imported_episode_explains_on_the_new_store(store: Store, tmp_path) -> None:  # type: ignore[no-untyped-def]
    item = store.record("kept across an export", "decision", trust="tool")
    out = io.StringIO()
    store.export_json(out)
    with Store(tmp_path / "copy.db") as copy:
        copy.import_json(out.getvalue())
        found = explain_episode(copy, item.id)
    assert found.found
    assert found.trust is not None
    assert found.trust.recorded == "tool"


def test_bad_ids_are_refused_and_ids_are_normalised(store: Store) -> None:
    item = store.record("x marks the spot", "observation")
    assert explain_episode(store, f"  {item.id.upper()} ").found
    for bad in ("", "xyz", "123456789", None):
        with pytest.raises(InvalidInputError, match="eight hex"):
            explain_episode(store, bad)  # type: ignore[arg-type]
