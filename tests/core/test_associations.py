from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from anneal_memory import Affect, Store, prepare_wrap, validated_save_continuity
from anneal_memory.associations import association_deltas, associations, graph_dot, graph_json
from anneal_memory.document._markers import parse_pattern_line
from anneal_memory.errors import InvalidInputError

sys.path.insert(0, str(Path(__file__).parents[1]))

from backends import backend_store, pg_url, target  # noqa: F401 - fixtures


@pytest.fixture
def store(backend_store: Store) -> Store:  # noqa: F811
    """Every test here runs on SQLite and on PostgreSQL (one test body)."""
    return backend_store


def _lines(*raw: str):
    parsed = [parse_pattern_line(r) for r in raw]
    assert all(parsed)
    return parsed


def test_co_cited_on_a_proven_line_gains_one() -> None:
    lines = _lines('- p | 2x (d) [evidence: aaaaaaaa, bbbbbbbb "x"]')
    assert association_deltas(lines, {"aaaaaaaa", "bbbbbbbb"}) == {("aaaaaaaa", "bbbbbbbb"): 1.0}  # type: ignore[arg-type]


def test_first_sighting_lines_form_no_direct_link() -> None:
    lines = _lines('- p | 1x (d) [evidence: aaaaaaaa, bbbbbbbb "x"]')
    assert association_deltas(lines, {"aaaaaaaa", "bbbbbbbb"}) == {}  # type: ignore[arg-type]


def test_different_lines_of_one_wrap_gain_point_three() -> None:
    lines = _lines(
        '- p | 1x (d) [evidence: aaaaaaaa "x"]',
        '- q | 1x (d) [evidence: bbbbbbbb "x"]',
    )
    assert association_deltas(lines, {"aaaaaaaa", "bbbbbbbb"}) == {("aaaaaaaa", "bbbbbbbb"): 0.3}  # type: ignore[arg-type]


def test_affect_multiplies_and_ids_outside_the_wrap_do_not_count() -> None:
    lines = _lines('- p | 2x (d) [evidence: aaaaaaaa, bbbbbbbb, cccccccc "x"]')
    deltas = association_deltas(
        lines,  # type: ignore[arg-type]
        {"aaaaaaaa", "bbbbbbbb"},
        Affect(tag="curious", intensity=0.8),
    )
    assert deltas == {("aaaaaaaa", "bbbbbbbb"): pytest.approx(1.4)}


@pytest.mark.parametrize(("tag", "intensity"), [("", 0.5), ("x", 1.5), ("x", -0.1), ("x", True)])
def test_affect_is_validated(tag: str, intensity: float) -> None:
    with pytest.raises(InvalidInputError):
        Affect(tag=tag, intensity=intensity)


def _wrap(store: Store, level: int, *, affect: Affect | None = None, cite: bool = True) -> None:
    a = store.record("The cache warmed slowly after the deploy", "observation")
    b = store.record("A cold cache made the deploy slow", "outcome")
    prepare_wrap(store)
    ev = f' [evidence: {a.id}, {b.id} "cache deploy slow"]' if cite else ""
    text = (
        f"## State\n## Patterns\n- p{level} | {level}x (2026-03-02){ev}\n## Decisions\n## Context\n"
    )
    validated_save_continuity(store, text, affect=affect)


def test_links_form_decay_and_prune_across_wraps(store: Store) -> None:
    _wrap(store, 2)  # first wrap: new pattern capped to 1x, but the claim co-cites
    [link] = associations(store)
    assert link.strength == pytest.approx(1.0)
    for _ in range(21):
        _wrap(store, 1, cite=False)
    [link] = associations(store)
    assert link.strength == pytest.approx(0.9**21)  # 0.109: still above the floor
    _wrap(store, 1, cite=False)
    assert associations(store) == ()  # 0.9**22 < 0.1: pruned


def test_affect_is_stored_on_the_link_and_capped(store: Store) -> None:
    _wrap(store, 2, affect=Affect(tag="surprised", intensity=1.0))
    [link] = associations(store)
    assert (link.strength, link.affect_tag, link.affect_intensity) == (1.5, "surprised", 1.0)
    assert associations(store, episode_id=link.a) == (link,)
    assert associations(store, min_strength=2.0) == ()


def test_graph_renderings(store: Store) -> None:
    _wrap(store, 2)
    links = associations(store)
    dot = graph_dot(links)
    assert dot.startswith("graph associations {")
    assert f'"{links[0].a}" -- "{links[0].b}"' in dot
    data = json.loads(graph_json(links))
    assert data["nodes"] == sorted([links[0].a, links[0].b])
    assert data["edges"][0]["strength"] == 1.0


def test_deleting_an_episode_removes_its_links(store: Store) -> None:
    _wrap(store, 2)
    [link] = associations(store)
    assert store.delete(link.a)
    assert associations(store) == ()


def test_links_are_ordered_and_filtered_by_their_strength_now(store: Store) -> None:
    _wrap(store, 2, affect=Affect(tag="surprised", intensity=1.0))  # 1.5 when formed
    [old] = associations(store)
    for _ in range(5):
        _wrap(store, 1, cite=False)
    _wrap(store, 2)  # a new link of 1.0; the old one is down to 1.5 * 0.9**6
    new, faded = associations(store)
    assert new.strength == pytest.approx(1.0)
    assert (faded.a, faded.b) == (old.a, old.b)
    assert faded.strength == pytest.approx(1.5 * 0.9**6)
    assert associations(store, min_strength=0.9) == (new,)
    assert associations(store, limit=1) == (new,)
    assert associations(store, episode_id=old.a) == (faded,)


def _two_episodes(store: Store) -> tuple[str, str]:
    a = store.record("The cache warmed slowly after the deploy", "observation")
    b = store.record("A cold cache made the deploy slow", "outcome")
    return a.id, b.id


def _save(store: Store, *lines: str) -> int:
    body = "\n".join(lines)
    text = f"## State\n## Patterns\n{body}\n## Decisions\n## Context\n"
    return validated_save_continuity(store, text).associations_formed


def test_an_ungrounded_line_links_nothing(store: Store) -> None:
    a, b = _two_episodes(store)
    prepare_wrap(store)
    formed = _save(store, f'- p | 2x (2026-03-02) [evidence: {a}, {b} "cats like warm sills"]')
    assert formed == 0
    assert associations(store) == ()


def test_only_the_grounding_citations_of_a_line_link(store: Store) -> None:
    a, b = _two_episodes(store)
    c = store.record("Lunch was pasta with a friend", "observation").id
    prepare_wrap(store)
    _save(store, f'- p | 2x (2026-03-02) [evidence: {a}, {b}, {c} "cold cache deploy slow"]')
    assert {(link.a, link.b) for link in associations(store)} == {tuple(sorted((a, b)))}


def test_a_demoted_line_is_left_out_of_the_cross_line_links(store: Store) -> None:
    a, b = _two_episodes(store)
    c = store.record("Lunch was pasta with a friend", "observation").id
    prepare_wrap(store)
    formed = _save(
        store,
        f'- p | 1x (2026-03-02) [evidence: {a} "cache warmed slowly"]',
        f'- q | 2x (2026-03-02) [evidence: {c} "the deploy broke the cache"]',
        f'- r | 1x (2026-03-02) [evidence: {b} "cold cache deploy"]',
    )
    assert formed == 1
    [link] = associations(store)
    assert {link.a, link.b} == {a, b}
    assert link.strength == pytest.approx(0.3)


def test_validated_citations_keep_only_lines_with_accepted_ids() -> None:
    from anneal_memory.immune._graduation import (
        GraduationContext,
        ValidatedCitation,
        judge_line,
        validated_citations,
    )

    ctx = GraduationContext(
        today="2026-03-02",
        snapshot={"aaaaaaaa": "cold cache slow deploy", "bbbbbbbb": "lunch pasta"},
        prior={},
    )
    grounded, ungrounded = _lines(
        '- p | 2x (2026-03-02) [evidence: aaaaaaaa, bbbbbbbb "cold cache deploy"]',
        '- q | 2x (2026-03-02) [evidence: bbbbbbbb "cache warming"]',
    )
    verdicts = [judge_line(grounded, ctx), judge_line(ungrounded, ctx)]
    assert validated_citations(verdicts) == (
        ValidatedCitation(level=2, evidence_ids=("aaaaaaaa",)),
    )
