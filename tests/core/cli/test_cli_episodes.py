"""``record``, ``get``, ``delete`` and ``prune`` (the CLI in process; see tests/e2e for a TTY)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from anneal_memory import Store

EPISODE_KEYS = {
    "id",
    "timestamp",
    "type",
    "content",
    "source",
    "metadata",
    "idempotency_key",
    "trust",
    "state_key",
    "superseded_by",
    "derived_from",
}


def test_record_json_has_every_episode_key(run_cli):
    data = (
        run_cli(
            "record",
            "chose SQLite over Postgres",
            "--type",
            "decision",
            "--metadata",
            '{"ticket": "PAY-12"}',
            "--json",
        )
        .assert_ok()
        .json()
    )
    assert set(data) == EPISODE_KEYS
    assert data["type"] == "decision"
    assert data["source"] == "cli"
    assert data["metadata"] == {"ticket": "PAY-12"}
    assert len(data["id"]) == 8


def test_record_text_output_names_type_and_id(run_cli, cli_db: Path):
    out = run_cli("record", "plain text").assert_ok().out
    kind, episode_id = out.split()[1:3]
    assert kind == "observation"
    with Store(cli_db) as store:
        stored = store.get(episode_id)
    assert stored is not None
    assert stored.content == "plain text"


def test_record_reads_stdin_and_drops_the_pipes_newline(run_cli):
    data = run_cli("record", "-", "--json", stdin="line one\nline two\n").assert_ok().json()
    assert data["content"] == "line one\nline two"


def test_record_source_comes_from_flag_then_env_then_cli(run_cli, cli_env):
    env = cli_env(ANNEAL_MEMORY_SOURCE="hook")
    from_env = run_cli("record", "a", "--json", env=env).assert_ok().json()
    from_flag = run_cli("record", "b", "--source", "tool", "--json", env=env).assert_ok().json()
    assert (from_env["source"], from_flag["source"]) == ("hook", "tool")


def test_record_idempotency_key_returns_the_first_episode(run_cli):
    first = run_cli("record", "once", "--idempotency-key", "k1", "--json").assert_ok().json()
    second = run_cli("record", "once", "--idempotency-key", "k1", "--json").assert_ok().json()
    assert second["id"] == first["id"]
    assert run_cli("status", "--json").json()["total_episodes"] == 1


def test_record_rejections_are_clean(run_cli):
    assert "JSON" in run_cli("record", "x", "--metadata", "[1, 2]").assert_error(2)
    assert "invalid choice" in run_cli("record", "x", "--type", "musing").assert_error(2)
    run_cli("record", "   ").assert_error(1)
    run_cli("record", "-", stdin="").assert_error(1)
    assert "UTF-8" in run_cli("record", "-", stdin=b"caf\xe9\n").assert_error(1)
    assert not run_cli("episodes", "--json").json()["episodes"]


def test_get_shows_the_episode_or_fails(run_cli):
    recorded = run_cli("record", "remember the milk", "--json").assert_ok().json()
    shown = run_cli("get", recorded["id"], "--json").assert_ok().json()
    assert shown == recorded
    assert "remember the milk" in run_cli("get", recorded["id"]).assert_ok().out
    assert "no episode" in run_cli("get", "00000000").assert_error(1)


def test_delete_without_terminal_or_force_refuses(run_cli):
    recorded = run_cli("record", "keep me", "--json").assert_ok().json()
    err = run_cli("delete", recorded["id"]).assert_error(1)
    assert "--force" in err
    assert run_cli("get", recorded["id"]).code == 0


def test_delete_force_removes_row_and_search_hit(run_cli):
    recorded = run_cli("record", "zanzibar secret", "--json").assert_ok().json()
    deleted = run_cli("delete", recorded["id"], "--force", "--json").assert_ok().json()
    assert deleted == {"id": recorded["id"], "deleted": True, "crystals_losing_evidence": []}
    assert run_cli("search", "zanzibar", "--json").json()["episodes"] == []
    run_cli("get", recorded["id"]).assert_error(1)
    assert "no episode" in run_cli("delete", recorded["id"], "-f").assert_error(1)


def test_prune_dry_run_counts_then_prune_deletes(run_cli, cli_db: Path):
    now = dt.datetime.now(dt.timezone.utc)
    with Store(cli_db) as store:
        store.record("ancient", "observation", timestamp=now - dt.timedelta(days=40))
        store.record("old", "observation", timestamp=now - dt.timedelta(days=31))
        store.record("fresh", "observation", timestamp=now - dt.timedelta(days=1))
    dry = run_cli("prune", "--older-than", "30", "--dry-run", "--json").assert_ok().json()
    assert set(dry) == {"dry_run", "cutoff", "matching", "deleted", "crystals_losing_evidence"}
    assert (dry["dry_run"], dry["matching"], dry["deleted"]) == (True, 2, 0)
    assert run_cli("status", "--json").json()["total_episodes"] == 3
    done = run_cli("prune", "--older-than", "30", "--json").assert_ok().json()
    assert (done["dry_run"], done["matching"], done["deleted"]) == (False, 2, 2)
    remaining = run_cli("episodes", "--json").json()["episodes"]
    assert [e["content"] for e in remaining] == ["fresh"]
    assert "must be" in run_cli("prune", "--older-than", "-1").assert_error(2)
