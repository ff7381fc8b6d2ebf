"""The wrap commands through the CLI: exit codes, --json keys, refusals write nothing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from clirun import CliRunner

SAVE_KEYS = {
    "path",
    "chars",
    "wrap_id",
    "episodes_compressed",
    "graduations_validated",
    "demotions",
    "findings",
    "citation_spread",
    "sha256",
    "sections",
    "associations_formed",
    "associations_strengthened",
    "associations_decayed",
    "associations_pruned",
    "drift",  # issue 28: what the drift probes found ({} when none is live)
}


def _continuity(day: str, pattern: str = "") -> str:
    """A minimal default-schema continuity (``day`` only names the wrap it is for)."""
    del day
    return (
        "# A \u2014 Memory (v1)\n## State\n- s\n## Patterns\n"
        f"{pattern}\n## Decisions\n## Context\n- c\n"
    )


def _prepare(run_cli: CliRunner) -> tuple[str, str, list[str]]:
    """Record two episodes and prepare; return (token, today, episode ids)."""
    run_cli("record", "The socket pool ran dry under heavy load", "--type", "observation")
    run_cli("record", "Doubling the socket pool fixed the load failures", "--type", "outcome")
    data = run_cli("--json", "prepare-wrap").assert_ok().json()
    assert data["status"] == "ready"
    ids = [e["id"] for e in data["package"]["episodes"]]
    return data["wrap_token"], data["package"]["today"], ids


def test_prepare_prints_package_and_token_line(run_cli: CliRunner) -> None:
    run_cli("record", "first thing", "--type", "observation").assert_ok()
    result = run_cli("prepare-wrap").assert_ok()
    assert "## Episodes This Session (1)" in result.out
    assert re.search(r"\n---\nWrap token: [0-9a-f]{32}\n?$", result.out)
    again = run_cli("prepare-wrap")
    assert "already in progress" in again.assert_error()


def test_prepare_on_empty_store_exits_zero(run_cli: CliRunner) -> None:
    data = run_cli("--json", "prepare-wrap").assert_ok().json()
    assert data["status"] == "empty"
    assert data["wrap_token"] is None


def test_save_with_findings_and_json_keys(run_cli: CliRunner, tmp_path: Path) -> None:
    token, day, ids = _prepare(run_cli)
    line = f'- invented | 2x ({day}) [evidence: {ids[0]} "velvet moon tides"]'
    file = tmp_path / "c.md"
    file.write_text(_continuity(day, line), encoding="utf-8")
    result = run_cli(
        "--json",
        "save-continuity",
        str(file),
        "--wrap-token",
        token,
        "--affect-tag",
        "curious",
        "--affect-intensity",
        "0.8",
    ).assert_ok()
    data = result.json()
    assert set(data) == SAVE_KEYS
    assert [f["code"] for f in data["findings"]][:1] == ["ungrounded"]
    shown = run_cli("continuity").assert_ok().out
    assert f"- invented | 1x ({day}) (ungrounded)" in shown


def test_save_from_stdin_and_text_summary(run_cli: CliRunner) -> None:
    _token, day, _ids = _prepare(run_cli)
    result = run_cli("save-continuity", "-", stdin=_continuity(day)).assert_ok()
    assert "Episodes compressed: 2" in result.out
    status = run_cli("--json", "wrap-status").assert_ok().json()
    assert status == {"scope": "", "in_progress": False, "wrap": None, "episodes_since_wrap": 0}


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("## State\n- only\n", "## Patterns"),
        ("", "empty"),
        ("## State\n## Patterns\n## Decisions\n## Context\n" + "x" * 26000, "hard maximum"),
    ],
)
def test_every_refusal_is_one_line_exit_one_nothing_written(
    run_cli: CliRunner, tmp_path: Path, cli_db: Path, content: str, fragment: str
) -> None:
    token, _day, _ids = _prepare(run_cli)
    file = tmp_path / "bad.md"
    file.write_text(content, encoding="utf-8")
    err = run_cli("save-continuity", str(file), "--wrap-token", token).assert_error()
    assert fragment in err
    assert "wrap stays open" in err
    assert not cli_db.with_name("memory.continuity.md").exists()
    assert run_cli("--json", "wrap-status").assert_ok().json()["in_progress"] is True


def test_refusals_outside_the_immune_system(run_cli: CliRunner, tmp_path: Path) -> None:
    file = tmp_path / "c.md"
    file.write_text(_continuity("2026-01-01"), encoding="utf-8")
    run_cli("record", "x", "--type", "observation").assert_ok()
    assert "No wrap in progress" in run_cli("save-continuity", str(file)).assert_error()
    assert "nothing to cancel" in run_cli("wrap-cancel").assert_error()
    _token, _day, _ids = _prepare(run_cli)
    err = run_cli("save-continuity", str(file), "--wrap-token", "0" * 32).assert_error()
    assert "mismatch" in err
    assert "needs --affect-tag" in (
        run_cli("save-continuity", str(file), "--affect-intensity", "0.3").assert_error()
    )
    assert (
        "intensity"
        in run_cli(
            "save-continuity", str(file), "--affect-tag", "x", "--affect-intensity", "7"
        ).assert_error()
    )
    run_cli("save-continuity", str(tmp_path / "missing.md")).assert_error()


def test_cancel_then_history_and_diff(run_cli: CliRunner) -> None:
    token, day, _ids = _prepare(run_cli)
    data = run_cli("--json", "wrap-cancel", "--wrap-token", token).assert_ok().json()
    assert data["status"] == "cancelled"
    assert data["episode_count"] == 2
    _t, day, _ids = _prepare(run_cli)
    run_cli("save-continuity", "-", stdin=_continuity(day)).assert_ok()
    wraps = run_cli("--json", "history").assert_ok().json()["wraps"]
    assert [w["status"] for w in wraps] == ["completed", "cancelled"]
    events = run_cli("--json", "history", "--pattern", "x").assert_ok().json()["events"]
    assert events == []
    rows = run_cli("--json", "diff", "--wraps", "3").assert_ok().json()["wraps"]
    assert rows[0]["episodes_compressed"] == 4
    assert rows[0]["chars_delta"] is None


def test_associations_and_graph(run_cli: CliRunner, tmp_path: Path) -> None:
    _token, day, ids = _prepare(run_cli)
    line = f'- pool | 2x ({day}) [evidence: {ids[0]}, {ids[1]} "socket pool load"]'
    run_cli("save-continuity", "-", stdin=_continuity(day, line)).assert_ok()
    events = run_cli("--json", "history", "--pattern", "POOL").assert_ok().json()["events"]
    assert [(e["level"], e["claimed_level"]) for e in events] == [(1, 2)]
    links = run_cli("--json", "associations").assert_ok().json()["associations"]
    assert len(links) == 1
    assert links[0]["strength"] == 1.0
    dot = run_cli("graph").assert_ok().out
    assert dot.startswith("graph associations {")
    out = tmp_path / "g.json"
    run_cli("graph", "--format", "json", "-o", str(out)).assert_ok()
    assert '"edges"' in out.read_text(encoding="utf-8")


def test_read_commands_need_an_existing_store(run_cli: CliRunner) -> None:
    for command in ("continuity", "history", "diff", "associations", "wrap-status"):
        assert "database not found" in run_cli(command).assert_error()


def test_demo_ends_with_a_graduation_and_a_demotion(run_cli: CliRunner) -> None:
    data = run_cli("--json", "demo", db=False).assert_ok().json()
    step = next(s for s in data["steps"] if s["name"] == "wrap")
    first, second = step["wraps"]
    assert first["episodes_compressed"] == 8
    assert second["graduations_validated"] == 1
    assert second["demotions"] == 1
    codes = [f["code"] for f in second["findings"]]
    assert "graduated" in codes
    assert "ungrounded" in codes
    assert any("| 2x" in line for line in step["patterns"])
    assert any(line.endswith("(ungrounded)") for line in step["patterns"])


def test_terminal_control_characters_are_escaped(run_cli: CliRunner) -> None:
    run_cli("record", "bell\x07 and escape\x1b[2J", "--type", "observation").assert_ok()
    out = run_cli("prepare-wrap").assert_ok().out
    assert "\x1b" not in out
    assert "\\x1b[2J" in out
