"""The wrap commands' --scope through the CLI: each scope wraps and prints its own."""

from __future__ import annotations

from pathlib import Path

from anneal_memory import Store
from clirun import CliRunner

CONTINUITY = (
    "# A \u2014 Memory (v1)\n## State\n- {state}\n## Patterns\n\n## Decisions\n## Context\n- c\n"
)


def _seed(db: Path) -> None:
    db.parent.mkdir(parents=True, exist_ok=True)
    with Store(db) as store:
        store.record("Alice keeps her notes in the blue folder", "observation", scope="alice")
        store.record("Bob keeps his notes in the red folder", "observation", scope="bob")
        store.record("The office opens at nine", "observation")


def test_wrap_commands_take_a_scope(run_cli: CliRunner, cli_db: Path, tmp_path: Path) -> None:
    _seed(cli_db)
    status = run_cli("--json", "status").assert_ok().json()
    assert status["episodes_since_wrap"] == 3
    assert status["episodes_since_wrap_by_scope"] == {"": 1, "alice": 1, "bob": 1}
    assert "Waiting by scope:" in run_cli("status").assert_ok().out
    alice = run_cli("--json", "prepare-wrap", "--scope", "alice").assert_ok().json()
    assert [e["content"] for e in alice["package"]["episodes"]] == [
        "Alice keeps her notes in the blue folder"
    ]
    bob = run_cli("--json", "prepare-wrap", "--scope", "bob").assert_ok().json()
    assert bob["status"] == "ready"  # Alice's open wrap does not block Bob's
    err = run_cli("prepare-wrap", "--scope", "alice").assert_error()
    assert "already in progress" in err
    shown = run_cli("--json", "wrap-status", "--scope", "alice").assert_ok().json()
    assert shown["wrap"]["token"] == alice["wrap_token"]
    assert shown["wrap"]["scope"] == "alice"
    assert run_cli("--json", "wrap-status").assert_ok().json()["in_progress"] is False
    text = tmp_path / "alice.md"
    text.write_text(CONTINUITY.format(state="alice's notes: blue folder"), encoding="utf-8")
    saved = (
        run_cli("--json", "save-continuity", str(text), "--wrap-token", alice["wrap_token"])
        .assert_ok()
        .json()
    )
    assert Path(saved["path"]).parent == cli_db.parent
    assert Path(saved["path"]).name != "memory.continuity.md"
    printed = run_cli("--json", "continuity", "--scope", "alice").assert_ok().json()
    assert printed["path"] == saved["path"]
    assert "blue folder" in printed["text"]
    assert run_cli("--json", "continuity").assert_ok().json()["exists"] is False
    assert run_cli("--json", "continuity", "--scope", "bob").assert_ok().json()["exists"] is False
    run_cli("wrap-cancel", "--scope", "bob").assert_ok()
    history = run_cli("--json", "history").assert_ok().json()["wraps"]
    assert [(w["scope"], w["status"]) for w in history] == [
        ("bob", "cancelled"),
        ("alice", "completed"),
    ]
    only = run_cli("--json", "history", "--scope", "alice").assert_ok().json()["wraps"]
    assert [w["scope"] for w in only] == ["alice"]
    assert "scope 'bob'" in run_cli("history").assert_ok().out
    left = run_cli("--json", "status").assert_ok().json()["episodes_since_wrap_by_scope"]
    assert left == {"": 1, "bob": 1}


def test_a_bad_scope_is_one_error_line(run_cli: CliRunner, cli_db: Path) -> None:
    _seed(cli_db)
    err = run_cli("prepare-wrap", "--scope", "x" * 100).assert_error()
    assert "scope must be" in err
    err = run_cli("continuity", "--scope", "a\tb").assert_error()
    assert "scope must be" in err
    assert sorted(p.name for p in cli_db.parent.glob("*.md")) == []
