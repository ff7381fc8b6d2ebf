"""The README example of anneal-crewai runs offline, with a scripted BaseLLM."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import _contract
import pytest

MODEL_LINE = 'llm = "gpt-4.1"  # any CrewAI LLM: a model name, an LLM or a BaseLLM instance\n'
CONTINUITY = _contract.readme_continuity("Ops")


def readme_example() -> str:
    return _contract.readme_example("anneal-crewai")


def test_the_readme_example_is_at_most_20_lines() -> None:
    assert len(readme_example().splitlines()) <= _contract.README_MAX_LINES


def test_the_readme_example_runs_offline(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    make_llm: Any,
) -> None:
    code = readme_example()
    assert MODEL_LINE in code
    packages: list[str] = []

    llm = make_llm(_contract.readme_steps(packages, CONTINUITY))
    monkeypatch.chdir(tmp_path)
    namespace = {"LLM": llm}
    exec(compile(code.replace(MODEL_LINE, "llm = LLM\n"), "README.md", "exec"), namespace)
    assert capsys.readouterr().out == "Billing is green. | wrap: saved\n"
    assert "deploy_status -> billing: green, deployed at 10:42 UTC" in packages[0]
    _contract.assert_continuity_saved(tmp_path, CONTINUITY)
