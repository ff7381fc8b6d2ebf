"""The README example of anneal-pydantic-ai runs offline, with a FunctionModel."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import _contract
import pytest
from pydantic_ai.models.function import FunctionModel

MODEL_LINE = 'model = "openai:gpt-4.1"  # any Pydantic AI model name or Model instance\n'
CONTINUITY = _contract.readme_continuity("Ops")


def readme_example() -> str:
    return _contract.readme_example("anneal-pydantic-ai")


def test_the_readme_example_is_at_most_20_lines() -> None:
    assert len(readme_example().splitlines()) <= _contract.README_MAX_LINES


def test_the_readme_example_runs_offline(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    scripted_function: Any,
) -> None:
    code = readme_example()
    assert MODEL_LINE in code
    packages: list[str] = []

    function = scripted_function(_contract.readme_steps(packages, CONTINUITY))
    monkeypatch.chdir(tmp_path)
    with _contract.default_event_loop_closed():
        namespace = {"MODEL": FunctionModel(function)}
        exec(compile(code.replace(MODEL_LINE, "model = MODEL\n"), "README.md", "exec"), namespace)
    assert capsys.readouterr().out == "Billing is green. | wrap: saved\n"
    assert "billing: green, deployed at 10:42 UTC" in packages[0]
    _contract.assert_continuity_saved(tmp_path, CONTINUITY)
