"""The question's intent: bounded priors for decisions, outcomes, open questions and times (#29)."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.store.recall._intent import (
    _WORDS,
    MAX_PRIOR_FACTOR,
    Intent,
    _date_patterns,
    _dates_in,
    read_intent,
)
from anneal_memory.testing import FrozenClock

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import backend_store, pg_url, store_on_both_backends, target  # noqa: F401

NOW = dt.datetime(2026, 6, 30, 12, tzinfo=dt.timezone.utc)  # a Tuesday


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(NOW)


@pytest.mark.parametrize(
    ("question", "types"),
    [
        ("which database did we choose?", {"decision"}),
        ("what did we go with for queues?", {"decision"}),
        ("what went wrong with the deploy?", {"outcome"}),
        ("how did the migration turn out?", {"outcome"}),
        ("what's still open about billing?", {"question", "tension"}),
        ("are we not sure about the retry budget?", {"question", "tension"}),
        ("what trade-offs remain?", {"question", "tension"}),
        ("where is the open-source licence file?", set()),
    ],
)
def test_question_shapes(question: str, types: set[str]) -> None:
    intent = read_intent(question, NOW)
    assert (intent.types if intent else set()) == types


@pytest.mark.parametrize(
    ("question", "since", "until"),
    [
        ("what happened on 2026-03-03?", "2026-03-03T00:00:00", "2026-03-03T23:59:59"),
        ("what did we ship on March 3rd, 2026?", "2026-03-03T00:00:00", "2026-03-03T23:59:59"),
        ("decided on 7 July, 2023?", "2023-07-07T00:00:00", "2023-07-07T23:59:59"),
        ("what went out in February", "2026-02-01T00:00:00", "2026-02-28T23:59:59"),
        ("what went out in December", "2025-12-01T00:00:00", "2025-12-31T23:59:59"),
        ("incidents in 2025", "2025-01-01T00:00:00", "2025-12-31T23:59:59"),
        ("what did we decide last week", "2026-06-22T00:00:00", "2026-06-28T23:59:59"),
        ("what came of yesterday's review", "2026-06-29T00:00:00", "2026-06-29T23:59:59"),
        ("the review this month", "2026-06-01T00:00:00", "2026-06-30T23:59:59"),
        ("hired two weeks ago", "2026-06-13T12:00:00", "2026-06-19T11:59:59"),
        ("what failed before March 3, 2026", None, "2026-03-02T23:59:59"),
        ("what changed since 1 May 2026", "2026-05-01T00:00:00", None),
        ("what changed after 1 May 2026", "2026-05-02T00:00:00", None),
    ],
)
def test_times_a_question_names(question: str, since: str | None, until: str | None) -> None:
    intent = read_intent(question, NOW)
    assert intent is not None
    assert (intent.since or "")[:19] == (since or "")
    assert (intent.until or "")[:19] == (until or "")


@pytest.mark.parametrize(
    "question",
    [
        "we may 5x the budget",
        "what is the max upload size?",
        "when did we move to Postgres?",  # "when" names no time
        "on February 30, 2026",  # no such day; the month alone is not what was named
        "in 99999",
    ],
)
def test_no_time_is_read_where_none_is_named(question: str) -> None:
    intent = read_intent(question, NOW)
    assert intent is None or not intent.timed or question.startswith("on February")


@pytest.mark.parametrize(
    ("question", "tried"),
    [
        ("what did we decide about the queue?", False),
        ("which plan did we choose", False),
        ("what happened on may 3", True),
        ("anything in 2025?", True),
        ("notes from sept. about rollout", True),
    ],
)
def test_date_expressions_are_tried_only_on_a_digit_or_a_month_word(
    question: str, tried: bool
) -> None:
    # Issue #25: the eight date expressions compile on the first question that could name a
    # date; a question without a digit or a month word cannot match any of them.
    words = set(_WORDS.findall(question))
    assert bool(_dates_in(question, words)) is tried
    assert not any(p.search(question) for p in _date_patterns()) or tried


def test_the_priors_are_bounded() -> None:
    intent = Intent(types=frozenset({"decision"}), since="2026-06-01", until="2026-06-30~")
    assert intent.factor("decision", "2026-06-10T00:00:00.000000Z") == pytest.approx(
        MAX_PRIOR_FACTOR
    )
    assert intent.factor("observation", "2025-01-01T00:00:00.000000Z") == 1.0


def test_a_decision_question_prefers_the_decision(store: Store) -> None:
    store.record("Argon2id password hashing takes 180 ms on small instances", "observation")
    chosen = store.record("Settled on Argon2id for password hashing", "decision")
    store.record("Password hashing benchmarks live in the perf repo", "context")
    assert store.recall("which password hashing did we settle on?").episodes[0].id == chosen.id
    # The same words without the shape: no prior, bm25 alone decides.
    plain = store.recall("password hashing argon2id")
    assert plain.total_matching == 3


def test_an_outcome_and_an_open_question_are_preferred(store: Store) -> None:
    store.record("Black Friday load test scheduled for Tuesday", "context")
    failed = store.record("Black Friday load test: the pool ran dry at 3k rps", "outcome")
    store.record("Events table holds two billion rows", "observation")
    open_q = store.record("Shard the events table by tenant or by month?", "question")
    assert (
        store.recall("what went wrong in the Black Friday load test?").episodes[0].id == failed.id
    )
    assert store.recall("what's still open about the events table?").episodes[0].id == open_q.id


def test_a_question_with_the_wrong_intent_still_finds_its_answer(store: Store) -> None:
    for i in range(20):
        store.record(f"Decided to rename service {i}", "decision")
    answer = store.record("The team uses pnpm for the frontend monorepo", "observation")
    found = store.recall("which package manager did we choose for the frontend monorepo?")
    assert found.episodes[0].id == answer.id
    assert answer.id in {e.id for e in store.recall("what went wrong with pnpm?").episodes}


def test_a_prior_never_passes_a_clearly_better_match(store: Store) -> None:
    better = store.record("Grafana Cloud dashboards for the billing service", "observation")
    store.record("Decided on dashboards", "decision")
    found = store.recall("which billing grafana cloud dashboards did we pick?").episodes
    assert found[0].id == better.id


def test_a_named_time_prefers_what_was_recorded_then(store: Store) -> None:
    old = store.record("Budget review: spend is fine", "context", timestamp="2026-04-28T10:00:00Z")
    new = store.record("Budget review: cut 15%", "context", timestamp="2026-06-29T10:00:00Z")
    assert store.recall("what came out of yesterday's budget review?").episodes[0].id == new.id
    assert store.recall("the budget review in April").episodes[0].id == old.id
    assert store.recall("budget review").total_matching == 2


def test_priors_respect_the_filters(store: Store) -> None:
    store.record("Chose Kafka for the events pipeline", "decision")
    kept = store.record("Kafka events pipeline lag is high", "observation")
    found = store.recall("which events pipeline did we choose?", episode_type="observation")
    assert [e.id for e in found.episodes] == [kept.id]
