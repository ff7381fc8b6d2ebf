"""Rules about the core package itself: stdlib only, a tidy public surface, small modules."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import anneal_memory

CORE = Path(anneal_memory.__file__).parent
MAX_MODULE_LINES = 500


def core_modules() -> list[Path]:
    return sorted(CORE.rglob("*.py"))


def test_core_imports_only_the_standard_library() -> None:
    allowed = set(sys.stdlib_module_names) | {"anneal_memory", "__future__"}
    offenders = []
    for path in core_modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] not in allowed]
    assert offenders == []


def test_all_is_unique_and_complete() -> None:
    # Order is enforced by ruff (RUF022, isort-style); here: no duplicates, no dangling names.
    exported = list(anneal_memory.__all__)
    assert len(exported) == len(set(exported))
    for name in exported:
        assert hasattr(anneal_memory, name), name


def test_public_names_have_docstrings() -> None:
    for name in anneal_memory.__all__:
        obj = getattr(anneal_memory, name)
        if callable(obj) and not isinstance(obj, type(anneal_memory)):
            assert obj.__doc__, name


def test_modules_stay_small() -> None:
    big = {
        str(path.relative_to(CORE)): n
        for path in core_modules()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert big == {}


def test_version_matches_distribution_metadata() -> None:
    from importlib.metadata import version

    assert anneal_memory.__version__ == version("anneal-memory")


def test_importing_the_core_pulls_in_no_framework_and_is_quick() -> None:
    code = (
        "import sys, time; t = time.perf_counter(); import anneal_memory; "
        "print(time.perf_counter() - t); "
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'langchain', 'langgraph', 'agents', 'pydantic_ai', 'crewai', 'llama_index', 'dspy', "
        "'pydantic', 'mcp', 'httpx'})))"
    )
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()
    assert out[1] == ""
    assert float(out[0]) < 1.0
