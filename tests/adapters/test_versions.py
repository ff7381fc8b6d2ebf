"""Every distribution is on the 2.x line, and an adapter refuses a core of another line by name.

The public anneal-memory 1.0.2 has no adapters; a resolver that pairs an adapter with it must
not produce an environment whose import error blames the framework.
"""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = sorted((ROOT / "packages").glob("anneal-*/pyproject.toml"))
ADAPTERS = {
    "anneal-crewai": "anneal_crewai",
    "anneal-dspy": "anneal_dspy",
    "anneal-langgraph": "anneal_langgraph",
    "anneal-llamaindex": "anneal_llamaindex",
    "anneal-openai-agents": "anneal_openai_agents",
    "anneal-pydantic-ai": "anneal_pydantic_ai",
}
CORE_PIN = "anneal-memory>=2,<3"


def _project(path: Path) -> dict[str, object]:
    return tomllib.loads(path.read_text(encoding="utf-8"))["project"]  # type: ignore[no-any-return]


def test_every_distribution_is_2_0_0_final() -> None:
    assert len(PACKAGES) == 7
    versions = {_project(p)["name"]: _project(p)["version"] for p in PACKAGES}
    assert set(versions.values()) == {"2.0.0"}, versions
    for name in versions:
        assert importlib.metadata.version(str(name)) == "2.0.0"


def test_every_adapter_requires_a_2_x_core() -> None:
    for path in PACKAGES:
        project = _project(path)
        if project["name"] == "anneal-memory":
            extras = project["optional-dependencies"]
            assert isinstance(extras, dict)
            adapters = (r for reqs in extras.values() for r in reqs if r.startswith("anneal-"))
            for requirement in adapters:
                assert requirement.endswith(">=2,<3"), requirement
            continue
        dependencies = project["dependencies"]
        assert isinstance(dependencies, list)
        assert CORE_PIN in dependencies, (project["name"], dependencies)


def _import_with(fake_root: Path, module: str) -> subprocess.CompletedProcess[str]:
    code = f"import sys; sys.path.insert(0, {str(fake_root)!r}); import {module}"
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.parametrize("module", sorted(ADAPTERS.values()))
def test_adapter_refuses_a_1_x_core_by_name(tmp_path: Path, module: str) -> None:
    fake = tmp_path / "anneal_memory"
    fake.mkdir()
    # Stands in for the public 1.0.2 package: a different line, without AgentMemory.
    (fake / "__init__.py").write_text('__version__ = "1.0.2"\n', encoding="utf-8")
    done = _import_with(tmp_path, module)
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert "needs anneal-memory 2.x" in last, done.stderr
    assert "anneal-memory 1.0.2 is installed" in last
    assert 'pip install "anneal-memory[' in last
    assert last.endswith(']"'), last  # the command users type, no pre-release specifier


def test_langgraph_import_error_names_the_missing_module(tmp_path: Path) -> None:
    # A LangChain without the v1 agents package (as LangChain 0.x is).
    (tmp_path / "langchain").mkdir()
    (tmp_path / "langchain" / "__init__.py").write_text("", encoding="utf-8")
    done = _import_with(tmp_path, "anneal_langgraph")
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert "could not import 'langchain.agents'" in last, done.stderr
    assert "LangChain v1" in last
