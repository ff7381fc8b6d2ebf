"""The core's tests never import an agent framework, and the core never loads one."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).parents[1]
FRAMEWORKS = {
    "agents",
    "anneal_crewai",
    "anneal_dspy",
    "anneal_langgraph",
    "anneal_llamaindex",
    "anneal_openai_agents",
    "anneal_pydantic_ai",
    "crewai",
    "dspy",
    "langchain",
    "langchain_core",
    "langgraph",
    "langsmith",
    "llama_index",
    "openai",
    "pydantic_ai",
}


def imported_roots(path: Path) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) == "importorskip"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            roots.add(str(node.args[0].value).split(".")[0])
    return roots


def test_core_tests_never_import_a_framework() -> None:
    files = [*sorted((TESTS / "core").rglob("*.py")), TESTS / "conftest.py"]
    assert len(files) > 5
    offenders = {
        str(path.relative_to(TESTS)): sorted(imported_roots(path) & FRAMEWORKS)
        for path in files
        if imported_roots(path) & FRAMEWORKS
    }
    assert offenders == {}


def test_the_import_scan_sees_framework_imports(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import langchain.agents\nfrom pydantic_ai import Agent\n"
        "pytest.importorskip('langgraph')\n",
        encoding="utf-8",
    )
    assert imported_roots(sample) & FRAMEWORKS == {"langchain", "pydantic_ai", "langgraph"}


def test_agent_memory_loads_no_framework_and_no_asyncio() -> None:
    code = (
        "import sys, anneal_memory; m = anneal_memory.AgentMemory; "
        "print(','.join(sorted(n for n in sys.modules if n.split('.')[0] in "
        f"{sorted(FRAMEWORKS | {'asyncio', 'pydantic'})!r})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == ""
