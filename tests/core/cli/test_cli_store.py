"""``anneal-memory`` global flags, usage errors, ``init``, ``status`` and ``stats``."""

from __future__ import annotations

import stat
from pathlib import Path

STATUS_KEYS = {
    "path",
    "total_episodes",
    "episodes_by_type",
    "deleted_episodes",
    "episodes_since_wrap",
    "db_bytes",
    "wal_bytes",
    "last_write",
    "schema_version",
}
STATS_KEYS = {
    "path",
    "total_episodes",
    "deleted_episodes",
    "episodes_since_wrap",
    "by_type",
    "by_source",
    "by_day",
    "first_episode_at",
    "last_episode_at",
    "content_bytes",
    "db_bytes",
    "wal_bytes",
}


def test_version_and_help_exit_zero(run_cli):
    version = run_cli("--version", db=False).assert_ok()
    assert version.out.startswith("anneal-memory ")
    helped = run_cli("--help", db=False).assert_ok()
    for command in ("init", "record", "search", "episodes", "export", "import", "demo"):
        assert command in helped.out


def test_usage_errors_exit_two(run_cli):
    # No command at all: usage on a terminal, serve on a pipe (tests/e2e/test_mcp_start.py).
    assert "invalid choice" in run_cli("frobnicate").assert_error(2)
    assert "required" in run_cli("record").assert_error(2)
    assert "--older-than" in run_cli("prune").assert_error(2)
    assert "whole number" in run_cli("search", "x", "--limit", "ten").assert_error(2)


def test_init_creates_a_private_store_then_refuses_a_second_time(run_cli, cli_db: Path):
    created = run_cli("init", "--json").assert_ok().json()
    mine = {"path": str(cli_db.absolute()), "created": True, "project_name": "Agent"}
    assert {key: created[key] for key in mine} == mine  # later features add keys
    assert stat.S_IMODE(cli_db.stat().st_mode) & 0o077 == 0
    again = run_cli("init")
    assert again.assert_error(1) == f"Error: Store already exists: {cli_db}\n"


def test_read_commands_on_a_missing_store_fail_without_creating_it(run_cli, cli_db: Path):
    for args in (("status",), ("search", "x"), ("get", "deadbeef")):
        err = run_cli(*args).assert_error(1)
        assert "database not found" in err
        assert "anneal-memory init" in err
    assert not cli_db.exists()


def test_status_json_keys_and_text(run_cli):
    run_cli("record", "first thing", "--type", "decision").assert_ok()
    data = run_cli("status", "--json").assert_ok().json()
    assert set(data) >= STATUS_KEYS  # the store may add keys; these never go away
    assert data["total_episodes"] == 1
    assert data["episodes_by_type"]["decision"] == 1
    text = run_cli("status").assert_ok().out
    assert "Episodes:         1 (decision 1)" in text


def test_json_flag_works_before_and_after_the_command(run_cli):
    run_cli("init").assert_ok()
    before = run_cli("--json", "status", db=True).assert_ok().json()
    after = run_cli("status", "--json").assert_ok().json()
    assert set(before) == set(after)
    assert set(before) >= STATUS_KEYS


def test_stats_counts_by_type_source_and_day(run_cli, cli_env):
    run_cli("record", "one", "--type", "outcome").assert_ok()
    run_cli("record", "two", "--source", "tool").assert_ok()
    run_cli("record", "three ✓", env=cli_env(ANNEAL_MEMORY_SOURCE="hook")).assert_ok()
    data = run_cli("stats", "--json").assert_ok().json()
    assert set(data) == STATS_KEYS
    assert data["total_episodes"] == 3
    assert data["by_type"]["outcome"] == 1
    assert data["by_type"]["observation"] == 2
    assert data["by_source"] == {"cli": 1, "hook": 1, "tool": 1}
    assert len(data["by_day"]) == 1
    assert set(data["by_day"][0]) == {"date", "episodes"}
    assert data["by_day"][0]["episodes"] == 3
    assert set(data["content_bytes"]) == {"total", "mean", "max"}
    assert data["content_bytes"]["total"] == len("onetwothree ✓".encode())
    text = run_cli("stats").assert_ok().out
    assert "By source:" in text
    assert "hook" in text
