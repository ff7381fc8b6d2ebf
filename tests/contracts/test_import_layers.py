"""The rooms import downward only: no cycles through these modules, store never sees crystal/spores.

Imports are read as text (every import, including those under TYPE_CHECKING and inside
functions), the way ../shared/tools/import_cycles.py reads them.
"""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "packages" / "anneal-core" / "src"

# Modules that must not sit on an import cycle.
ACYCLIC = (
    "anneal_memory",
    "anneal_memory.agent._memory",
    "anneal_memory.agent._wrapflow",
    "anneal_memory.cli._context",
    "anneal_memory.cli._render",
    "anneal_memory.cli._cmd_demo",
    "anneal_memory.cli._demo_wrap",
)


def _modules() -> dict[str, Path]:
    out = {}
    for path in CORE.rglob("*.py"):
        parts = list(path.relative_to(CORE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _graph(mods: dict[str, Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                full = [f"{node.module}.{a.name}" for a in node.names]
                names = [n if n in mods else node.module for n in full]
            for name in names:
                target = name
                while target and target not in mods:
                    target = target.rpartition(".")[0]
                if target and target != mod:
                    graph[mod].add(target)
    return graph


def _reaches(graph: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = set(), [start]
    while todo:
        here = todo.pop()
        for nxt in graph[here]:
            if nxt == goal:
                return True
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False


def test_named_modules_are_on_no_cycle() -> None:
    graph = _graph(_modules())
    on_cycle = [m for m in ACYCLIC if _reaches(graph, m, m)]
    assert on_cycle == []


def test_crystal_and_spores_are_acyclic_and_above_the_store() -> None:
    mods = _modules()
    graph = _graph(mods)
    rooms = [m for m in mods if m.startswith(("anneal_memory.crystal", "anneal_memory.spores"))]
    assert rooms
    assert [m for m in rooms if _reaches(graph, m, m)] == []
    lower = [m for m in mods if m.startswith(("anneal_memory.store", "anneal_memory.audit"))]
    for module in lower:
        assert not any(t.startswith(("anneal_memory.crystal", "anneal_memory.spores"))
                       for t in graph[module]), module  # fmt: skip


def test_redaction_is_a_pure_leaf() -> None:
    graph = _graph(_modules())
    room = [m for m in graph if m.startswith("anneal_memory.redaction")]
    assert room
    allowed = ("anneal_memory.redaction", "anneal_memory.errors", "anneal_memory._lazy")
    outside = {m: sorted(t for t in graph[m] if not t.startswith(allowed)) for m in room}
    assert {m: t for m, t in outside.items() if t} == {}
