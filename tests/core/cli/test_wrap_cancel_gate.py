"""The gate covers cancel: the CLI cannot cancel the holder's wrap without --force."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CONTINUITY = (
    "# Agent \u2014 Memory (v1)\n\n## State\n- ok\n## Patterns\n\n## Decisions\n\n## Context\n"
)


def _token(out: str) -> str:
    return next(
        line.split(":", 1)[1].strip() for line in out.splitlines() if line.startswith("Wrap token:")
    )


def _holder_wrap(run_cli: Any) -> str:
    run_cli("init").assert_ok()
    run_cli("record", "The deploy needs the staging flag").assert_ok()
    run_cli("baton", "claim", "holder").assert_ok()
    return _token(run_cli("prepare-wrap", "--session-id", "holder").assert_ok().out)


@pytest.mark.parametrize("who", [["--session-id", "intruder"], []])
def test_the_cli_refuses_a_cancel_without_the_wrap_with_exit_3(
    run_cli: Any, cli_db: Path, tmp_path: Path, who: list[str]
) -> None:
    token = _holder_wrap(run_cli)
    refused = run_cli("wrap-cancel", *who, "--wrap-token", token)
    err = refused.assert_error(3)
    assert err.startswith("Error: ")
    assert len(err.strip().splitlines()) == 1
    assert "'holder'" in err
    assert f"anneal-memory --db {cli_db} wrap-cancel --force" in err
    assert token[:4] not in err
    draft = tmp_path / "out.md"
    draft.write_text(CONTINUITY, encoding="utf-8")
    saved = run_cli(
        "save-continuity", str(draft), "--wrap-token", token, "--session-id", "holder"
    ).assert_ok()
    assert "Episodes compressed: 1" in saved.out


def test_wrap_cancel_force_is_the_audited_operator_override(run_cli: Any) -> None:
    _holder_wrap(run_cli)
    run_cli("wrap-cancel", "--force").assert_ok()
    assert run_cli("wrap-status", "--json").assert_ok().json()["in_progress"] is False
    entries = run_cli("audit", "--event", "wrap_cancelled", "--json").assert_ok().json()["entries"]
    assert [e["data"]["reason"] for e in entries] == ["forced"]
