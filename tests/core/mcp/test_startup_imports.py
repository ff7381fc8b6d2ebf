"""The server starts fast: its modules import only light modules at the top level.

Everything heavy (the store, the wrap pipeline, the gate, traceback, dataclasses) is imported
inside the function that needs it, so ``initialize`` and ``tools/list`` answer without it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import anneal_memory.mcp
import pytest

LIGHT = {
    "__future__",
    "collections.abc",
    "hashlib",
    "itertools",
    "json",
    "math",
    "pathlib",
    "re",
    "sys",
    "typing",
    "argparse",
    "anneal_memory.errors",
    "anneal_memory.mcp",
    "anneal_memory.cli._context",
    "anneal_memory.cli._args",  # the shared flags: imports only cli._context
}
MODULES = sorted(Path(anneal_memory.mcp.__file__).parent.glob("*.py"))
SERVE = Path(anneal_memory.mcp.__file__).parents[1] / "cli" / "_cmd_serve.py"


def _top_level_imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


@pytest.mark.parametrize("path", [*MODULES, SERVE], ids=lambda p: p.name)
def test_module_imports_only_light_modules_at_top_level(path: Path) -> None:
    heavy = {
        name
        for name in _top_level_imports(path)
        if name not in LIGHT and not name.startswith("anneal_memory.mcp.")
    }
    assert heavy == set(), f"{path.name} imports {heavy} at start-up; import it where used"


def test_the_check_sees_imports() -> None:
    assert "json" in _top_level_imports(Path(anneal_memory.mcp.__file__).with_name("_jsonrpc.py"))
