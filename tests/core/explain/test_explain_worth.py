"""Worth counts (issue 28) in ``explain episode`` / ``explain pattern``, and a pattern's probes."""

from __future__ import annotations

import pytest
from anneal_memory import Store
from anneal_memory.explain import explain_episode, explain_pattern, render_episode, render_pattern
from anneal_memory.probes import add_probe, retire_probe
from anneal_memory.testing import DEMO_GROUNDED
from anneal_memory.worth import record_exposure, record_outcome, worth_of, worth_report
from explain_helpers import FOLLOW_UP, SESSION, demo_wrap, record_all

ZERO = {
    "surfaced": 0, "followed": 0, "ignored": 0, "not_applicable": 0, "unlabelled": 0,
    "followed_success": 0, "followed_failure": 0, "ignored_success": 0, "ignored_failure": 0,
    "unlabelled_success": 0, "unlabelled_failure": 0,
}  # fmt: skip


def _expose(store: Store, items: list[str], result: str | None, labels: dict[str, str]) -> None:
    ident = record_exposure(store, "test", items)
    assert ident is not None
    if labels or result is not None:
        record_outcome(store, ident, result=result, items=labels)


def test_an_episode_carries_its_worth_counts(store: Store) -> None:
    ep = store.record("Blue green switching keeps the staging deploy safe", "decision")
    other = store.record("An unrelated note about lunch", "observation")
    found = explain_episode(store, ep.id)
    assert found.worth == ZERO
    assert "worth: never shown" in render_episode(found)
    key = f"e:{ep.id}"
    _expose(store, [key, f"e:{other.id}"], "success", {key: "followed"})
    _expose(store, [key], "failure", {key: "followed"})
    _expose(store, [key], "failure", {key: "ignored"})
    _expose(store, [key], None, {})
    found = explain_episode(store, ep.id)
    assert found.worth == ZERO | {
        "surfaced": 4, "followed": 2, "ignored": 1, "unlabelled": 1,
        "followed_success": 1, "followed_failure": 1, "ignored_failure": 1,
    }  # fmt: skip
    # The one-item reader agrees with the whole report, row for row.
    report = {(r.kind.value, r.ref): dict(r.counts) for r in worth_report(store)}
    assert report[("episode", ep.id)] == found.worth
    assert dict(worth_of(store, "episode", other.id).counts) == report[("episode", other.id)]
    assert found.to_dict()["worth"] == found.worth
    text = render_episode(found)
    assert (
        "worth: surfaced 4; followed 2 (1 success, 1 failure); ignored 1 (0 success, 1 failure)"
        in text
    )
    assert explain_episode(store, "00000000").worth is None


def test_like_wildcards_in_a_name_match_only_that_name(store: Store) -> None:
    _expose(store, ["p:a_b%c"], "success", {"p:a_b%c": "followed"})
    _expose(store, ["p:axbyc", "c:A_B%C"], None, {})
    assert worth_of(store, "pattern", "A_B%C").counts["followed_success"] == 1
    assert worth_of(store, "pattern", "a_b%c").counts["surfaced"] == 1
    assert worth_of(store, "pattern", "a%").counts["surfaced"] == 0
    assert worth_of(store, "crystal", "a_b%c").counts["surfaced"] == 1
    _expose(store, ['p:Ünïcode "q"'], None, {})
    assert worth_of(store, "pattern", 'ünïcode "q"').counts["surfaced"] == 1
    with pytest.raises(Exception, match="kind"):
        worth_of(store, "spore", "x")
    with pytest.raises(Exception, match="ref"):
        worth_of(store, "pattern", "  ")


def test_a_pattern_carries_its_worth_and_its_probes_last_result(store: Store) -> None:
    record_all(store, SESSION)
    demo_wrap(store)
    watching = add_probe(store, pattern=DEMO_GROUNDED, min_level=2, note="keep <b>this</b>")
    gone = add_probe(store, pattern=DEMO_GROUNDED.upper(), min_level=3)
    add_probe(store, pattern=DEMO_GROUNDED, min_level=2, scope="elsewhere")
    add_probe(store, fact="the template database")
    retire_probe(store, gone.id)
    found = explain_pattern(store, DEMO_GROUNDED)
    assert [p["id"] for p in found.probes] == [watching.id]
    assert found.probes[0]["last_status"] is None
    assert "not checked yet" in render_pattern(found)
    record_all(store, FOLLOW_UP)
    demo_wrap(store)
    key = f"p:{DEMO_GROUNDED.upper()}"  # a name's case may differ between blocks
    _expose(store, [key], "success", {key: "followed"})
    _expose(store, [f"p:{DEMO_GROUNDED}"], "failure", {f"p:{DEMO_GROUNDED}": "not_applicable"})
    found = explain_pattern(store, DEMO_GROUNDED)
    assert found.worth == ZERO | {"surfaced": 2, "followed": 1, "followed_success": 1,
                                  "not_applicable": 1}  # fmt: skip
    (probe,) = found.probes
    assert found.probes_total == 1
    assert (probe["last_status"], probe["last_wrap_id"]) == ("held", 2)
    assert probe["last_line"]
    as_json = found.to_dict()
    assert as_json["probes"][0]["id"] == watching.id
    assert as_json["worth"]["surfaced"] == 2
    text = render_pattern(found)
    assert f"{watching.id} (at least 2x): held at wrap 2" in text
    assert "worth: surfaced 2; followed 1 (1 success, 0 failure)" in text


def test_the_limit_bounds_the_probes_listed(store: Store) -> None:
    record_all(store, SESSION)
    demo_wrap(store)
    for level in (2, 3, 4):
        add_probe(store, pattern=DEMO_GROUNDED, min_level=level)
    found = explain_pattern(store, DEMO_GROUNDED, limit=2)
    assert len(found.probes) == 2
    assert found.probes_total == 3
    assert "probes (2 of 3):" in render_pattern(found)


def test_pruned_exposures_still_count_and_agree_with_the_report(store: Store) -> None:
    from anneal_memory.worth import prune_exposures

    odd = "p:Ärger_Muster"  # not ASCII: matched by kind in SQL, then case-folded here
    _expose(store, ["e:0000000a", odd], "failure", {odd: "ignored"})
    _expose(store, ["e:0000000a", "p:ärger_muster"], "success", {"e:0000000a": "followed"})
    _expose(store, ["e:0000000a"], None, {})
    before = dict(worth_of(store, "pattern", "ÄRGER_MUSTER").counts)
    assert (before["surfaced"], before["ignored_failure"], before["unlabelled"]) == (2, 1, 1)
    assert prune_exposures(store, keep=1) == 2
    assert dict(worth_of(store, "pattern", "Ärger_Muster").counts) == before
    episode = dict(worth_of(store, "episode", "0000000A").counts)
    report = {(r.kind.value, r.ref): dict(r.counts) for r in worth_report(store)}
    assert episode == report[("episode", "0000000a")]
    assert (episode["surfaced"], episode["followed_success"], episode["unlabelled"]) == (3, 1, 2)


def test_a_name_holding_another_items_key_does_not_count_for_it(store: Store) -> None:
    crafted = 'p:x","e:0000000b'  # its JSON text holds "e:0000000b" after an escaped quote
    _expose(store, [crafted], "success", {crafted: "followed"})
    _expose(store, ["e:0000000b", crafted], None, {})
    assert worth_of(store, "episode", "0000000b").counts["surfaced"] == 1
    counts = worth_of(store, "pattern", 'X","E:0000000B').counts
    assert (counts["surfaced"], counts["followed_success"]) == (2, 1)
