"""The README example of anneal-dspy runs offline, with DSPy's DummyLM."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import _contract
import dspy
import pytest
from anneal_memory import EpisodeType, Store
from dspy.utils.dummies import DummyLM

LM_EXPRESSION = 'dspy.LM("openai/gpt-4.1-mini")'
CONTINUITY = _contract.readme_continuity("Ops")


def readme_example() -> str:
    return _contract.readme_example("anneal-dspy")


@pytest.fixture
def restore_settings() -> Iterator[None]:
    yield
    dspy.configure(lm=None)


def test_the_readme_example_is_at_most_20_lines() -> None:
    assert len(readme_example().splitlines()) <= _contract.README_MAX_LINES


@pytest.mark.usefixtures("restore_settings")
def test_the_readme_example_runs_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code = readme_example()
    assert LM_EXPRESSION in code
    lm = DummyLM(
        [
            {
                "next_thought": "Check the deploy.",
                "next_tool_name": "deploy_status",
                "next_tool_args": {"service": "billing"},
            },
            {"next_thought": "Done.", "next_tool_name": "finish", "next_tool_args": {}},
            {"reasoning": "The tool says green.", "answer": "Billing is green."},
            {"continuity": CONTINUITY},
        ]
    )
    monkeypatch.chdir(tmp_path)
    exec(compile(code.replace(LM_EXPRESSION, "LM"), "README.md", "exec"), {"LM": lm})
    assert capsys.readouterr().out == "Billing is green.\nwrap: saved\n"
    wrap_call = lm.history[-1]["messages"]
    assert "deploy_status -> billing: green, deployed at 10:42 UTC" in wrap_call[-1]["content"]
    _contract.assert_continuity_saved(tmp_path, CONTINUITY)
    with Store(tmp_path / "memory.db") as store:
        assert store.recall(episode_type=EpisodeType.OUTCOME).episodes[0].content == (
            "Billing is green."
        )
