"""Where the database is, from the flags and the environment (the CLI in process)."""

from __future__ import annotations

from pathlib import Path


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


def test_errors_are_one_line_without_traceback(run_cli, cli_db: Path):
    cli_db.parent.mkdir(parents=True)
    cli_db.write_bytes(b"this is not a sqlite database at all" * 100)
    err = run_cli("status").assert_error(1)
    assert err.startswith("Error: ")
