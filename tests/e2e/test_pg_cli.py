"""The CLI on a PostgreSQL ``--db`` URL: the supported commands work, the others say so."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))

from backends import pg_url  # noqa: F401 - fixture

pytestmark = pytest.mark.e2e


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
    verified = pg("--json", "verify").assert_ok().json()
    assert (verified["valid"], verified["total_entries"]) == (True, 2)
    trail = pg("--json", "audit", "--event", "record", "--limit", "5").assert_ok().json()
    assert [e["event"] for e in trail["entries"]] == ["record"]
    assert "content_hash" in trail["entries"][0]["data"]
    assert pg("--json", "audit", "--since", "1h").assert_ok().json()["count"] == 2
    claimed = pg("--json", "baton", "claim", "alice").assert_ok().json()
    assert claimed["baton_holder"] == "alice"
    assert pg("history").assert_ok().out.startswith("No wraps yet")
    for args in (("continuity",), ("prepare-wrap", "--session-id", "alice")):
        err = pg(*args).assert_error(1)
        assert "not supported on PostgreSQL yet" in err, args
    assert json.loads(export.read_text())["format"] == "anneal-memory-export"
