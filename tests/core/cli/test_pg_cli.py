"""The CLI on a PostgreSQL ``--db`` URL: episodes, audit, the gate, wraps and the continuity."""

from __future__ import annotations

import json
from pathlib import Path

from anneal_memory import Store
from backends import pg_url  # noqa: F401 - fixture


def test_cli_commands_on_postgresql(pg_url: str, run_cli, tmp_path: Path) -> None:  # noqa: F811
    sqlite_db = tmp_path / "laptop.db"
    laptop = run_cli("--db", str(sqlite_db), "record", "kept on the laptop first", db=False)
    laptop.assert_ok()
    export = tmp_path / "laptop.json"
    run_cli("--db", str(sqlite_db), "export", "-o", str(export), db=False).assert_ok()

    def pg(*args: str):
        return run_cli("--db", pg_url, *args, db=False)

    pg("record", "Moved the fleet memory to PostgreSQL", "--type", "decision").assert_ok()
    imported = pg("--json", "import", str(export)).assert_ok().json()
    assert imported["imported"] == 1
    found = pg("--json", "search", "fleet memory").assert_ok().json()
    assert [e["content"] for e in found["episodes"]] == ["Moved the fleet memory to PostgreSQL"]
    status = pg("--json", "status").assert_ok().json()
    assert status["total_episodes"] == 2
    assert status["path"].startswith("postgresql://")
    stats = pg("--json", "stats").assert_ok().json()  # measured by the backend's own SQL
    texts = "Moved the fleet memory to PostgreSQL" + "kept on the laptop first"
    assert stats["content_bytes"]["total"] == len(texts.encode())
    verified = pg("--json", "verify").assert_ok().json()
    assert (verified["valid"], verified["total_entries"]) == (True, 2)
    trail = pg("--json", "audit", "--event", "record", "--limit", "5").assert_ok().json()
    assert [e["event"] for e in trail["entries"]] == ["record"]
    assert "content_hash" in trail["entries"][0]["data"]
    assert pg("--json", "audit", "--since", "1h").assert_ok().json()["count"] == 2
    claimed = pg("--json", "baton", "claim", "alice").assert_ok().json()
    assert claimed["baton_holder"] == "alice"
    assert json.loads(export.read_text())["format"] == "anneal-memory-export"


CONTINUITY = (
    "# Agent \u2014 Memory (v1)\n\n## State\n- moved to PostgreSQL\n\n## Patterns\n\n"
    "## Decisions\n- one database for the fleet\n\n## Context\n- {n}\n"
)


def test_wraps_and_the_continuity_from_the_cli_on_postgresql(
    pg_url: str,  # noqa: F811
    run_cli,
    tmp_path: Path,
) -> None:
    def pg(*args: str):
        return run_cli("--db", pg_url, *args, db=False)

    # A read-only command never creates the tables (as on SQLite, where the file must exist).
    assert "never creates a store" in pg("history").assert_error()
    Store(pg_url).close()
    assert pg("history").assert_ok().out.startswith("No wraps yet")
    assert "No continuity" in pg("continuity").assert_ok().out
    pg("record", "The fleet shares one PostgreSQL database", "--type", "decision").assert_ok()
    pg("baton", "claim", "alice").assert_ok()
    prep = pg("--json", "prepare-wrap", "--session-id", "alice").assert_ok().json()
    assert (prep["status"], prep["episode_count"]) == ("ready", 1)
    status = pg("--json", "wrap-status").assert_ok().json()
    assert status["wrap"]["token"] == prep["wrap_token"]
    pg("record", "Recorded while the wrap was open", "--type", "observation").assert_ok()
    text = tmp_path / "continuity.md"
    text.write_text(CONTINUITY.format(n="first"), encoding="utf-8")
    wrong = pg("save-continuity", str(text), "--wrap-token", "0" * 32, "--session-id", "alice")
    assert "mismatch" in wrong.assert_error(1)
    saved = (
        pg(
            "--json",
            "save-continuity",
            str(text),
            "--wrap-token",
            prep["wrap_token"],
            "--session-id",
            "alice",
        )
        .assert_ok()
        .json()
    )
    assert (saved["wrap_id"], saved["episodes_compressed"]) == (1, 1)
    assert saved["path"].endswith("(table continuity)")
    assert "secret" not in saved["path"]
    shown = pg("--json", "continuity").assert_ok().json()
    assert shown["text"] == CONTINUITY.format(n="first")
    second = pg("--json", "prepare-wrap").assert_ok().json()
    assert second["episode_count"] == 1  # only the episode recorded during the first wrap
    cancelled = pg("--json", "wrap-cancel").assert_ok().json()
    assert cancelled["wrap_id"] == 2
    history = pg("--json", "history").assert_ok().json()
    assert [w["status"] for w in history["wraps"]] == ["cancelled", "completed"]
    assert pg("--json", "status").assert_ok().json()["episodes_since_wrap"] == 1
    events = [e["event"] for e in pg("--json", "audit").assert_ok().json()["entries"]]
    assert {"wrap_started", "wrap_completed", "continuity_saved", "wrap_cancelled"} <= set(events)
    assert pg("--json", "verify").assert_ok().json()["valid"]


def test_a_wrap_per_scope_from_the_cli_on_postgresql(
    pg_url: str,  # noqa: F811
    run_cli,
    tmp_path: Path,
) -> None:
    from anneal_memory import Store

    def pg(*args: str):
        return run_cli("--db", pg_url, *args, db=False)

    with Store(pg_url) as store:
        store.record("Alice's invoice 4711 is overdue", "observation", scope="user:alice")
        store.record("Bob's invoice 1234 is paid", "observation", scope="user:bob")
    waiting = pg("--json", "status").assert_ok().json()["episodes_since_wrap_by_scope"]
    assert waiting == {"user:alice": 1, "user:bob": 1}
    alice = pg("--json", "prepare-wrap", "--scope", "user:alice").assert_ok().json()
    bob = pg("--json", "prepare-wrap", "--scope", "user:bob").assert_ok().json()
    assert (alice["episode_count"], bob["episode_count"]) == (1, 1)
    assert "4711" in alice["text"]
    assert "1234" not in alice["text"]
    shown = pg("--json", "wrap-status", "--scope", "user:alice").assert_ok().json()
    assert shown["wrap"]["token"] == alice["wrap_token"]
    text = tmp_path / "alice.md"
    text.write_text(CONTINUITY.format(n="alice's invoices"), encoding="utf-8")
    saved = pg("--json", "save-continuity", str(text), "--wrap-token", alice["wrap_token"])
    assert saved.assert_ok().json()["path"].endswith("(table continuity, scope 'user:alice')")
    mine = pg("--json", "continuity", "--scope", "user:alice").assert_ok().json()
    assert mine["text"] == CONTINUITY.format(n="alice's invoices")
    assert pg("--json", "continuity", "--scope", "user:bob").assert_ok().json()["text"] is None
    assert pg("--json", "continuity").assert_ok().json()["text"] is None
    still_open = pg("--json", "wrap-status", "--scope", "user:bob").assert_ok().json()
    assert still_open["wrap"]["token"] == bob["wrap_token"]
    history = pg("--json", "history", "--scope", "user:alice").assert_ok().json()
    assert [w["status"] for w in history["wraps"]] == ["completed"]
    assert pg("--json", "status").assert_ok().json()["episodes_since_wrap_by_scope"] == {
        "user:bob": 1
    }
