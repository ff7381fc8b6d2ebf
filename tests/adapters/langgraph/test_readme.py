"""The README example runs as written, offline, in well under 10 seconds."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[3] / "packages" / "anneal-langgraph" / "README.md"


def readme_example() -> str:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) == 1
    return blocks[0]


def test_readme_example_is_at_most_20_lines() -> None:
    assert len(readme_example().strip().splitlines()) <= 20


def test_readme_example_runs_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    namespace: dict[str, object] = {"__name__": "readme_example"}
    with contextlib.redirect_stdout(out):
        exec(compile(readme_example(), str(README), "exec"), namespace)
    namespace["memory"].memory.close()  # type: ignore[attr-defined]
    assert out.getvalue().splitlines() == ["Paris.", "saved"]
    assert (tmp_path / "agent-memory.continuity.md").exists()
