"""``serve --scope``: a stdio server records, recalls, wraps and reads only its own scope."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
from anneal_memory import Store
from mcp import StdioServerParameters

from .test_mcp_client import MODES, _call, _connect, _read

pytestmark = pytest.mark.e2e

DOCUMENT = (
    "# E2E — Memory (v1)\n\n## State\n{state}\n\n## Patterns\n\n"
    "## Decisions\n- none yet\n\n## Context\nOne session.\n"
)


def _params(db: Path, scope: str) -> StdioServerParameters:
    argv = ["-m", "anneal_memory", "--db", str(db), "--project-name", "E2E", "serve"]
    return StdioServerParameters(
        command=sys.executable,
        args=[*argv, "--scope", scope],
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def _token(package: str) -> str:
    return package.rstrip().splitlines()[-1].removeprefix("Wrap token: ")


def test_two_scoped_servers_wrap_side_by_side(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    Store(db).close()  # created here, so not baton-protected
    mode = MODES[-1]

    async def main() -> None:
        async with (
            _connect(_params(db, "alice"), mode) as (alice, _),
            _connect(_params(db, "bob"), mode) as (bob, _),
        ):
            await _call(
                alice, "record", content="alice uses the blue folder", episode_type="context"
            )
            await _call(bob, "record", content="bob uses the red folder", episode_type="context")
            text, _ = await _call(bob, "recall", keyword="folder")
            assert "red folder" in text
            assert "blue folder" not in text
            alice_package, is_error = await _call(alice, "prepare_wrap")
            assert not is_error
            assert "blue folder" in alice_package
            assert "red folder" not in alice_package
            bob_package, is_error = await _call(bob, "prepare_wrap")  # Alice's wrap is open
            assert not is_error, bob_package
            assert "red folder" in bob_package
            saved, is_error = await _call(
                bob, "save_continuity", text=DOCUMENT.format(state="Bob: red."),
                wrap_token=_token(bob_package),
            )  # fmt: skip
            assert not is_error, saved
            # A server never saves another scope's wrap, even with its token.
            refused, is_error = await _call(
                bob, "save_continuity", text=DOCUMENT.format(state="Hijack."),
                wrap_token=_token(alice_package),
            )  # fmt: skip
            assert is_error
            assert "No wrap in progress" in refused
            saved, is_error = await _call(
                alice, "save_continuity", text=DOCUMENT.format(state="Alice: blue."),
                wrap_token=_token(alice_package),
            )  # fmt: skip
            assert not is_error, saved
            mine = (await _read(alice, "anneal://continuity"))["contents"][0]["text"]
            theirs, _ = await _call(bob, "read_continuity")
            assert "Alice: blue." in mine
            assert "Bob: red." not in mine
            assert "Bob: red." in theirs
            assert "Hijack." not in theirs

    asyncio.run(main())
    with Store(db) as store:
        assert store.load_continuity() is None
        assert "Alice: blue." in (store.load_continuity("alice") or "")
        assert {e.content for e in store.recall(scope="bob").episodes} == {
            "bob uses the red folder"
        }


def test_serve_refuses_a_bad_scope(tmp_path: Path) -> None:
    import subprocess

    argv = [sys.executable, "-m", "anneal_memory", "--db", str(tmp_path / "m.db"), "serve"]
    proc = subprocess.run(
        [*argv, "--scope", "x" * 65], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        f"Error: scope must be up to 64 printable characters, got {'x' * 65!r}"
    ]
