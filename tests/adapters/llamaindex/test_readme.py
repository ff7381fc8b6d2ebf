"""The README example of anneal-llamaindex runs offline, with a MockFunctionCallingLLM."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import _contract
import pytest

IMPORT_LINE = "from llama_index.llms.openai import OpenAI  # pip install llama-index-llms-openai\n"
LLM_LINE = '    llm = OpenAI(model="gpt-4.1")  # any LlamaIndex function-calling LLM\n'
CONTINUITY = _contract.readme_continuity("Agent")


def readme_example() -> str:
    return _contract.readme_example("anneal-llamaindex")


def test_the_readme_example_is_at_most_20_lines() -> None:
    assert len(readme_example().splitlines()) <= _contract.README_MAX_LINES


# The example uses LlamaIndex's default Memory, whose in-memory chat store engine is never
# disposed; aiosqlite >= 0.22 warns when that connection is garbage-collected (see the docs).
# Collect it here, inside this test, so the warning cannot surface in a later test.
@pytest.mark.filterwarnings("ignore::ResourceWarning")
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_the_readme_example_runs_offline(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    make_llm: Any,
) -> None:
    code = readme_example()
    assert IMPORT_LINE in code
    assert LLM_LINE in code
    packages: list[str] = []

    llm, script = make_llm(_contract.readme_steps(packages, CONTINUITY))
    monkeypatch.chdir(tmp_path)
    code = code.replace(IMPORT_LINE, "").replace(LLM_LINE, "    llm = LLM\n")
    exec(compile(code, "README.md", "exec"), {"LLM": llm, "__name__": "readme"})
    gc.collect()
    assert capsys.readouterr().out == "Billing is green. | wrap: saved\n"
    assert "billing: green, deployed at 10:42 UTC" in script.received[1]
    assert "billing: green, deployed at 10:42 UTC" in packages[0]
    _contract.assert_continuity_saved(tmp_path, CONTINUITY)
