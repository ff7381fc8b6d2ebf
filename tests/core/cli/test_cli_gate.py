"""The single-consolidator gate and the audit commands, end to end through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

CONTINUITY = "\n".join(
    [
        "# Agent \u2014 Memory (v1)",
        "",
        "## State",
        "- shipping the deploy fix",
        "",
        "## Patterns",
        "",
        "## Decisions",
        "- none yet",
        "",
        "## Context",
        "- a quiet session",
        "",
    ]
)


def _token(out: str) -> str:
    return next(
        line.split(":", 1)[1].strip() for line in out.splitlines() if line.startswith("Wrap token:")
    )


def test_the_whole_gate_flow(run_cli, cli_db: Path, tmp_path: Path, cli_env):
    run_cli("init").assert_ok()
    run_cli("record", "The deploy needs the staging flag", "--type", "decision").assert_ok()
    run_cli("record", "Staging flag fixed the deploy", "--type", "outcome").assert_ok()

    downgraded = run_cli("prepare-wrap", "--session-id", "claude-code")
    assert downgraded.code == 3, downgraded
    message = downgraded.out + downgraded.err
    assert "capture-only" in message
    assert "2 episode(s)" in message
    assert f"anneal-memory --db {cli_db} baton claim claude-code" in message

    no_session = run_cli("prepare-wrap")
    assert no_session.code == 3
    assert "baton claim NAME" in no_session.out + no_session.err

    run_cli("baton", "claim", "claude-code").assert_ok()
    status = run_cli("baton", "status", "--json").assert_ok().json()
    assert status == {
        "consolidate_requires_baton": True,
        "baton_holder": "claude-code",
        "claimed_at": status["claimed_at"],
        "previous_holder": None,
        "episodes_since_wrap": 2,
    }
    held = run_cli("baton", "claim", "intruder").assert_error(1)
    assert "--take" in held

    env = cli_env(ANNEAL_MEMORY_SESSION_ID="claude-code")
    prepared = run_cli("prepare-wrap", env=env).assert_ok()
    token = _token(prepared.out)
    draft = tmp_path / "out.md"
    draft.write_text(CONTINUITY, encoding="utf-8")

    wrong = run_cli("save-continuity", str(draft), "--wrap-token", token, "--session-id", "other")
    assert "prepared by session 'claude-code'" in wrong.assert_error(1)
    no_token = run_cli("save-continuity", str(draft), env=env)
    assert "baton-protected" in no_token.assert_error(1)

    saved = run_cli("save-continuity", str(draft), "--wrap-token", token, env=env).assert_ok()
    assert "Episodes compressed: 2" in saved.out

    verified = run_cli("verify", "--json").assert_ok().json()
    assert verified["valid"] is True
    events = [e["event"] for e in run_cli("audit", "--json", "--limit", "100").json()["entries"]]
    assert events[:2] == ["consolidate_policy_set", "record"]
    assert "baton_claimed" in events
    assert "wrap_started" in events
    assert "continuity_saved" in events
    assert "wrap_completed" in events


def test_taking_the_baton_mid_wrap_revokes_the_old_save(run_cli, tmp_path: Path):
    run_cli("init").assert_ok()
    run_cli("record", "something worth keeping").assert_ok()
    run_cli("baton", "claim", "laptop").assert_ok()
    token = _token(run_cli("prepare-wrap", "--session-id", "laptop").assert_ok().out)
    run_cli("baton", "claim", "desktop", "--take").assert_ok()
    draft = tmp_path / "out.md"
    draft.write_text(CONTINUITY, encoding="utf-8")
    refused = run_cli(
        "save-continuity", str(draft), "--wrap-token", token, "--session-id", "laptop"
    )
    assert "revoked" in refused.assert_error(1)
    run_cli("wrap-cancel", "--session-id", "desktop").assert_ok()
    run_cli("baton", "release", "desktop").assert_ok()
    assert run_cli("baton", "status", "--json").json()["baton_holder"] is None


def test_init_no_baton_makes_an_open_store(run_cli):
    created = run_cli("init", "--no-baton", "--json").assert_ok().json()
    assert created["consolidate_requires_baton"] is False
    run_cli("record", "x").assert_ok()
    prepared = run_cli("prepare-wrap").assert_ok()
    assert "Wrap token:" in prepared.out


@pytest.mark.parametrize("as_json", [False, True])
def test_verify_exits_1_on_a_broken_chain_in_text_and_json(run_cli, cli_db: Path, as_json):
    run_cli("init").assert_ok()
    for i in range(3):
        run_cli("record", f"note {i}").assert_ok()
    active = cli_db.with_name("memory.audit.jsonl")
    lines = active.read_text(encoding="utf-8").splitlines()
    lines[1] = lines[1].replace('"actor":"cli"', '"actor":"xyz"')
    active.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run_cli("verify", *(["--json"] if as_json else []))
    assert result.code == 1, result
    assert "Traceback" not in result.err
    if as_json:
        report = json.loads(result.out)
        assert report["valid"] is False
        assert report["chain_break_at"] == 2
        assert report["chain_break_file"] == "memory.audit.jsonl"
    else:
        assert "Audit trail INVALID" in result.out
        assert "seq 2 in memory.audit.jsonl" in result.out


def test_audit_filters_and_repair(run_cli, cli_db: Path):
    run_cli("init", "--no-baton").assert_ok()
    first = run_cli("record", "a private note", "--json").assert_ok().json()
    run_cli("delete", first["id"], "--force").assert_ok()
    deletes = run_cli("audit", "--event", "delete", "--since", "1h", "--json").assert_ok().json()
    assert [e["data"]["episode_id"] for e in deletes["entries"]] == [first["id"]]
    assert "private" not in run_cli("audit", "--limit", "10").assert_ok().out
    assert "unknown audit event" in run_cli("audit", "--event", "nope").assert_error(1)
    refused = run_cli("audit-repair").assert_error(1)
    assert "nothing to repair" in refused
    cli_db.with_name("memory.audit.manifest.json").write_text("{", encoding="utf-8")
    assert run_cli("verify").code == 1
    repaired = run_cli("audit-repair", "--json").assert_ok().json()
    assert repaired["manifest_rebuilt"] is True
    run_cli("verify").assert_ok()
