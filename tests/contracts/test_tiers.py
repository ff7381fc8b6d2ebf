"""The test tiers select what docs/testing.md says, and the in-process CLI leaves no trace."""

from __future__ import annotations

import itertools
import os
import re
import sys
from pathlib import Path

import pytest
from _pytest.mark.expression import Expression
from backends import pg_url, target  # noqa: F401 - fixtures
from clirun import CliRunner
from hypothesis import settings
from profiles import FAST_EXAMPLES, PROFILE_ENV, PROFILES, examples
from tiers import FAST, TIERS, _can_select_adapters

ROOT = Path(__file__).resolve().parents[2]


def _selects(expression: str, *markers: str) -> bool:
    return Expression.compile(expression).evaluate(lambda name, /, **_: name in markers)


def test_the_fast_tier_is_every_test_without_a_tier_marker() -> None:
    assert _selects(FAST)
    assert _selects(FAST, "slow", "sqlite_only")
    assert [tier for tier in TIERS if _selects(FAST, tier)] == []


def test_ci_runs_every_test_in_exactly_one_tier() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    selections = dict(re.findall(r'^tier (\w+) "([^"]+)"$', ci, flags=re.MULTILINE))
    assert sorted(selections) == sorted(TIERS)
    selections["fast"] = FAST
    for size in range(len(TIERS) + 1):
        for markers in itertools.combinations(TIERS, size):
            chosen = [name for name, expr in selections.items() if _selects(expr, *markers)]
            assert len(chosen) == 1, (markers, chosen)


@pytest.mark.parametrize(
    ("expression", "collected"),
    [
        ("", True),
        ("adapters", True),
        ("not e2e", True),
        ("adapters and not postgresql", True),
        ("slow", True),
        (FAST, False),
        ("e2e", False),
        ("postgresql", False),
        ("not adapters", False),
    ],
)
def test_tests_adapters_is_collected_only_when_an_expression_can_select_it(
    expression: str, collected: bool
) -> None:
    assert _can_select_adapters(expression) is collected


def test_a_test_outside_the_tier_folders_has_no_tier(request: pytest.FixtureRequest) -> None:
    assert [tier for tier in TIERS if request.node.get_closest_marker(tier)] == []


def test_the_backend_fixture_marks_its_postgresql_case(
    request: pytest.FixtureRequest,
    target: str,  # noqa: F811
) -> None:
    marked = request.node.get_closest_marker("postgresql") is not None
    assert marked is target.startswith("postgresql")


def test_a_test_taking_pg_url_is_marked_postgresql(
    request: pytest.FixtureRequest,
    pg_url: str,  # noqa: F811
) -> None:
    assert pg_url.startswith("postgresql")
    assert request.node.get_closest_marker("postgresql") is not None


def test_the_hypothesis_profile_is_the_one_the_environment_names() -> None:
    chosen = os.environ.get(PROFILE_ENV, "fast")
    assert settings().max_examples == PROFILES[chosen]
    assert settings().deadline is None
    assert examples(150) == (150 if chosen == "ci" else FAST_EXAMPLES)
    assert examples(3) == 3


def test_the_in_process_cli_restores_the_process_it_ran_in(
    run_cli: CliRunner, cli_env, tmp_path: Path
) -> None:
    before = (dict(os.environ), os.getcwd(), sys.argv, sys.stdin, sys.stdout, sys.stderr)
    env = cli_env(ANNEAL_MEMORY_SOURCE="hook")
    recorded = run_cli("record", "-", "--json", stdin="from stdin\n", env=env).assert_ok()
    assert (recorded.json()["content"], recorded.json()["source"]) == ("from stdin", "hook")
    assert run_cli("status", env={}).assert_ok().code == 0  # no HOME needed with --db
    assert "--db" in run_cli("status", db=False, env={}).assert_error(1)
    after = (dict(os.environ), os.getcwd(), sys.argv, sys.stdin, sys.stdout, sys.stderr)
    assert after == before
    assert "ANNEAL_MEMORY_SOURCE" not in os.environ
