"""``explain_recall``: recall's own order with its reasons, on SQLite and on PostgreSQL."""

from __future__ import annotations

import json
import random

import pytest
from anneal_memory import InvalidInputError, InvalidQueryError, Store
from anneal_memory.explain import explain_recall, render_recall
from anneal_memory.store.recall import RecallTrace
from explain_helpers import FOLLOW_UP, SESSION, demo_wrap, record_all

_VOCABULARY = (
    "postgres database worker parallel pytest template migration deploy staging kafka queue "
    "retry timeout cache redis lisbon porto berlin coffee garden bicycle invoice budget "
    "meeting launch review schema index vacuum replica backup restore token"
)
_WORDS = tuple(_VOCABULARY.split())
_TYPES = ("observation", "decision", "outcome", "context", "question")
QUESTIONS = (
    "parallel pytest workers",
    "why did the parallel pytest suite fail",
    "postgres database template",
    "what did we decide about the cache",
    "redis timeout retry",
    "kafka queue",
    "lisbon",
    "porto coffee garden",
    "backup restore replica schema",
    "what happened last week with the deploy",
    "invoice budget meeting",
    "migr",
    "stag",
    "gres",
    "SQL",
    "the",
    "the and of",
    "nothing matches zzzqqq",
    "worker workers working",
    "index vacuum",
    "launch review token",
    "bicycle",
    "per worker postgres databases",
    "template keeps setup fast",
)


def _corpus(store: Store, size: int = 160) -> None:
    rng = random.Random(27)
    for n in range(size):
        words = rng.sample(_WORDS, rng.randint(3, 9))
        kind = _TYPES[n % len(_TYPES)]
        store.record(" ".join(words).capitalize(), kind, scope="" if n % 4 else "team")
    record_all(store, SESSION)
    demo_wrap(store)
    record_all(store, FOLLOW_UP)
    demo_wrap(store)


def _ids(store: Store, question: str, **filters: object) -> list[str]:
    return [e.id for e in store.recall(question, limit=10, **filters).episodes]  # type: ignore[arg-type]


_FILTERS: tuple[dict[str, object], ...] = (
    {},
    {"scope": ""},
    {"episode_type": "decision"},
    {"include_superseded": True},
)


def test_the_order_shown_is_recalls_order_for_every_question(store: Store) -> None:
    _corpus(store)
    store.record("Postgres database port is 5432", "context", state_key="db.port")
    store.record("Postgres database port is 6543", "context", state_key="db.port")
    compared = 0
    for filters in _FILTERS:
        for question in QUESTIONS:
            found = explain_recall(store, question, limit=10, **filters)  # type: ignore[arg-type]
            recalled = store.recall(question, limit=10, **filters)  # type: ignore[arg-type]
            assert [hit.id for hit in found.results] == [e.id for e in recalled.episodes], (
                question,
                filters,
            )
            assert found.total_matching == recalled.total_matching
            compared += bool(found.results)
    assert compared >= 60


def test_each_result_says_the_stage_words_and_score(store: Store) -> None:
    _corpus(store)
    found = explain_recall(store, "parallel pytest workers", limit=20)
    assert found.stage == "words"
    assert set(found.terms) == {"parallel", "pytest", "workers"}
    assert found.results[0].found_by == "phrase"
    assert "parallel pytest workers" in found.results[0].content
    for hit in found.results:
        assert hit.found_by in {"phrase", "words", "citation hop"}
        if hit.found_by != "citation hop":
            assert hit.matched, hit
            assert {m["word"] for m in hit.matched} <= set(found.terms)
            assert all(m["weight"] >= 0 for m in hit.matched)
        assert hit.score is not None
    words = [h for h in found.results if h.found_by != "phrase"]
    scores = [h.score for h in words]
    assert scores == sorted(scores, reverse=True)  # higher ranks first, on either backend
    json.dumps(found.to_dict())


def test_later_stages_name_themselves(store: Store) -> None:
    store.record("The migrations ran on staging", "outcome")
    store.record("We run PostgreSQL in production", "context")
    prefix = explain_recall(store, "migr")
    assert prefix.stage == "prefix"
    assert [h.found_by for h in prefix.results] == ["prefix"]
    assert prefix.results[0].matched[0]["word"] == "migr*"
    inside = explain_recall(store, "sql")
    assert inside.stage == "substring"
    assert [h.found_by for h in inside.results] == ["substring"]
    none = explain_recall(store, "zzzqqq")
    assert (none.stage, none.results, none.total_matching) == (None, (), 0)
    assert "Nothing matches" in render_recall(none)
    newest = explain_recall(store, "")
    assert newest.stage == "newest"
    assert [h.found_by for h in newest.results] == ["newest", "newest"]


def test_left_out_results_say_why(store: Store) -> None:
    old = store.record("The staging database listens on port 5432", "observation")
    new = store.record(
        "The staging database now listens on port 6543", "observation", supersedes=[old.id]
    )
    first = store.record("The staging database host is db1", "context", state_key="db.host")
    second = store.record("The staging database host is db2", "context", state_key="db.host")
    other = store.record("The staging database of the team", "observation", scope="team")
    found = explain_recall(store, "staging database", scope="")
    shown = [h.id for h in found.results]
    assert shown == _ids(store, "staging database", scope="")
    assert new.id in shown
    assert second.id in shown
    hidden = {h.id: h.reasons for h in found.hidden}
    assert hidden[old.id] == ({"why": "superseded", "by": new.id},)
    assert hidden[first.id] == ({"why": "state key", "key": "db.host", "current": second.id},)
    assert hidden[other.id] == ({"why": "scope", "scope": "team"},)
    text = render_recall(found)
    assert f"superseded by {new.id}" in text
    assert "keyed under db.host" in text
    assert "scope 'team'" in text
    bound = explain_recall(store, "staging database", scope="", other_scopes=False)
    assert other.id not in {h.id for h in bound.hidden}
    assert other.id not in render_recall(bound)
    everything = explain_recall(store, "staging database", include_superseded=True)
    assert everything.hidden == ()


def test_intent_and_neighbour_lifts_are_named(store: Store) -> None:
    record_all(store, SESSION)
    store.record("Unrelated coffee note about the garden", "observation")
    found = explain_recall(store, "what did we decide about the parallel pytest database")
    assert found.intent is not None
    assert "decision" in found.intent["types"]
    assert [h.id for h in found.results] == _ids(
        store, "what did we decide about the parallel pytest database"
    )
    lifts = [lift for h in found.results for lift in h.lifts]
    assert {"by": "intent", "factor": lifts[0]["factor"]} in lifts
    decision = next(h for h in found.results if h.type == "decision")
    assert any(lift["by"] == "intent" for lift in decision.lifts)


def test_a_trace_does_not_change_the_result(store: Store) -> None:
    _corpus(store)
    for question in QUESTIONS[:8]:
        trace = RecallTrace()
        traced = store.recall(question, limit=7, trace=trace)
        plain = store.recall(question, limit=7)
        assert traced == plain
        assert len(trace.page) == len(plain.episodes)
        assert [trace.ids[s] for s in trace.page] == [e.id for e in plain.episodes]


def test_bad_input_is_refused_before_anything_is_read(store: Store) -> None:
    with pytest.raises(InvalidInputError, match="question"):
        explain_recall(store, 12)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="question"):
        explain_recall(store, "x" * 3000)
    with pytest.raises(InvalidInputError, match="limit"):
        explain_recall(store, "x", limit=0)
    with pytest.raises(InvalidQueryError, match="since"):
        explain_recall(store, "x", since="not a time")


def test_hostile_text_is_escaped_in_the_text(store: Store) -> None:
    store.record("evil \x1b[2J terminal clearing words", "observation")
    text = render_recall(explain_recall(store, "terminal clearing"))
    assert "\x1b" not in text
    assert "\\x1b" in text


def test_the_citation_hop_names_its_lenders(store: Store) -> None:
    record_all(store, SESSION)
    demo_wrap(store)
    record_all(store, FOLLOW_UP)
    demo_wrap(store)
    store.record("Unrelated coffee note about the garden", "observation")
    question = "template setup fast"
    found = explain_recall(store, question)
    assert [h.id for h in found.results] == _ids(store, question)
    hopped = [h for h in found.results if h.found_by == "citation hop"]
    assert len(hopped) == 1
    assert hopped[0].matched == ()
    assert hopped[0].base_score is None
    lender = found.results[0]
    assert lender.found_by == "words"
    assert hopped[0].score is not None
    assert lender.score is not None
    assert hopped[0].score < lender.score
    assert {"by": "citation hop", "from": [lender.id]} in hopped[0].lifts
    assert "found by citation hop" in render_recall(found)
