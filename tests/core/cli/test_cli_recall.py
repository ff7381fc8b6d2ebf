"""``search`` / ``recall`` and ``episodes`` through the CLI."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from anneal_memory import Store

RECALL_KEYS = {"query", "total_matching", "count", "offset", "episodes", "facts"}
SEARCH_KEYS = RECALL_KEYS | {"exposure_id"}  # a search is an exposure (issue 28)
NOW = dt.datetime.now(dt.timezone.utc)


@pytest.fixture
def seeded(cli_db: Path) -> dict[str, str]:
    """Five episodes over five days; returns content -> id."""
    rows = [
        ("context", "the payments service runs on Postgres", "agent", 5),
        ("observation", "checkout tests fail when run in parallel", "agent", 4),
        ("decision", "give every test worker its own database", "agent", 3),
        ("observation", "parallel workers share one database", "tool", 2),
        ("outcome", "the checkout suite passed fifty parallel runs", "agent", 1),
    ]
    ids = {}
    with Store(cli_db) as store:
        for kind, text, source, days_ago in rows:
            episode = store.record(
                text, kind, source=source, timestamp=NOW - dt.timedelta(days=days_ago)
            )
            ids[text] = episode.id
    return ids


def test_search_ranks_a_natural_language_question(run_cli, seeded):
    data = (
        run_cli("search", "why do the checkout tests fail in parallel?", "--json")
        .assert_ok()
        .json()
    )
    assert set(data) == SEARCH_KEYS
    assert data["episodes"][0]["content"] == "checkout tests fail when run in parallel"
    assert data["count"] == len(data["episodes"]) <= 20
    assert data["total_matching"] >= 3


def test_recall_is_an_alias_of_search(run_cli, seeded):
    by_search = run_cli("search", "database", "--json").assert_ok().json()
    by_recall = run_cli("recall", "database", "--json").assert_ok().json()
    assert by_search.pop("exposure_id") != by_recall.pop("exposure_id")  # one exposure each
    assert by_recall == by_search
    assert by_search["total_matching"] == 2


def test_search_filters_type_source_since_until(run_cli, seeded):
    def ids(*args: str) -> set[str]:
        return {e["id"] for e in run_cli("search", *args, "--json").assert_ok().json()["episodes"]}

    assert ids("parallel", "--type", "outcome") == {
        seeded["the checkout suite passed fifty parallel runs"]
    }
    assert ids("parallel", "--source", "tool") == {seeded["parallel workers share one database"]}
    assert ids("parallel", "--since", "3d") == {
        seeded["parallel workers share one database"],
        seeded["the checkout suite passed fifty parallel runs"],
    }
    assert ids("parallel", "--until", "3d") == {seeded["checkout tests fail when run in parallel"]}


def test_search_text_output_and_paging(run_cli, seeded):
    page = run_cli("search", "parallel", "--limit", "1").assert_ok().out.splitlines()
    assert len(page) == 3
    assert page[1] == "1-1 of 3 (more with --offset 1)"
    assert page[2].startswith("Exposure x")
    quiet = run_cli("search", "parallel", "--limit", "1", "--no-exposure").assert_ok().out
    assert quiet.splitlines() == page[:2]
    second = run_cli("search", "parallel", "--limit", "1", "--offset", "1", "--json").json()
    assert second["offset"] == 1
    assert second["count"] == 1
    assert "No episodes match." in run_cli("search", "kangaroo").assert_ok().out


def test_bad_time_filter_is_a_clean_error(run_cli, seeded):
    err = run_cli("search", "x", "--since", "last tuesday").assert_error(1)
    assert "since" in err


def test_episodes_lists_newest_first_with_filters(run_cli, seeded):
    data = run_cli("episodes", "--json").assert_ok().json()
    assert set(data) == RECALL_KEYS
    assert data["query"] is None
    assert [e["content"] for e in data["episodes"]] == list(reversed(list(seeded)))
    decisions = run_cli("episodes", "--type", "decision", "--json").json()["episodes"]
    assert [e["type"] for e in decisions] == ["decision"]
    keyword = run_cli("episodes", "--keyword", "parallel", "--json").json()
    stamps = [e["timestamp"] for e in keyword["episodes"]]
    assert len(stamps) == 3
    assert stamps == sorted(stamps, reverse=True)
    assert "1-5 of 5" in run_cli("episodes").assert_ok().out


@pytest.mark.parametrize(
    "query",
    [
        'NEAR(checkout parallel, 2) OR "',
        "checkout* AND -parallel : content:",
        '"""^database)(',
        "OR AND NOT *",
        "{col1 col2}: x* NOT y",
        "x" * 20000,
    ],
)
def test_hostile_queries_never_traceback(run_cli, seeded, query):
    data = run_cli("recall", query, "--json").assert_ok().json()
    assert set(data) == SEARCH_KEYS
    assert data["query"] == query
