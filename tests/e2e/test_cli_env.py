"""Where the database is, and UTF-8 in and out, whatever the environment says."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e


def test_db_env_variable_is_the_default(run_cli, cli_env, tmp_path: Path):
    target = tmp_path / "from-env" / "memory.db"
    env = cli_env(ANNEAL_MEMORY_DB=str(target))
    run_cli("record", "via env", env=env, db=False).assert_ok()
    assert target.exists()
    assert run_cli("--db", str(target), "status", "--json", db=False).json()["total_episodes"] == 1


def test_home_default_path(run_cli, cli_env, tmp_path: Path):
    run_cli("init", "--json", db=False).assert_ok()
    assert (tmp_path / "home" / ".anneal-memory" / "memory.db").exists()


def test_without_home_only_the_default_path_fails(run_cli, cli_env, tmp_path: Path):
    env = cli_env()
    del env["HOME"]
    for args in (("status",), ("record", "x"), ("init",)):
        err = run_cli(*args, env=env, db=False).assert_error(1)
        assert "--db" in err
        assert "ANNEAL_MEMORY_DB" in err
    run_cli("record", "with --db", env=env).assert_ok()
    assert run_cli("search", "db", "--json", env=env).assert_ok().json()["count"] == 1
    env["ANNEAL_MEMORY_DB"] = str(tmp_path / "env.db")
    run_cli("record", "with the env variable", env=env, db=False).assert_ok()
    run_cli("--version", env=env, db=False).assert_ok()
    run_cli("--help", env=env, db=False).assert_ok()


def test_utf8_round_trip_even_when_the_environment_says_ascii(run_cli, cli_env):
    env = cli_env(PYTHONIOENCODING="ascii", LC_ALL="C", LANG="C")
    text = "naïve café 🎉 記憶は生きている 기억"
    recorded = run_cli("record", "-", "--json", stdin=text, env=env).assert_ok().json()
    assert recorded["content"] == text
    assert run_cli("search", "記憶は生きている", "--json", env=env).json()["count"] == 1
    assert text in run_cli("get", recorded["id"], env=env).assert_ok().out
    assert text in run_cli("episodes", env=env).assert_ok().out
    as_argument = run_cli("record", "emoji 🦀 arg", "--json", env=env).assert_ok().json()
    assert as_argument["content"] == "emoji 🦀 arg"


def test_errors_are_one_line_without_traceback(run_cli, cli_db: Path):
    cli_db.parent.mkdir(parents=True)
    cli_db.write_bytes(b"this is not a sqlite database at all" * 100)
    err = run_cli("status").assert_error(1)
    assert err.startswith("Error: ")
