"""The rooms import downward only, for every module of the core (DESIGN.md §3).

Imports are read as text (every import, including those under TYPE_CHECKING and inside
functions), the way ../shared/tools/import_cycles.py reads them. Checked for every module:
no import cycle, no import of a higher layer, no private module of ``store/`` imported from
outside ``store/``, ``store/sqlite`` and ``store/postgres`` never importing each other; and
the adapters import only public names of ``anneal_memory``.
"""

from __future__ import annotations

import ast
import functools
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "packages" / "anneal-core" / "src"
ADAPTERS = sorted(
    p / "src" for p in (ROOT / "packages").glob("anneal-*") if p.name != "anneal-core"
)
PACKAGE = "anneal_memory"

# DESIGN.md §3, from the bottom up. A module belongs to the layer of its longest listed prefix.
LAYERS: tuple[tuple[str, ...], ...] = (
    (  # leaves: the error tree, public types, time, files, small shared helpers
        "anneal_memory._sidefile", "anneal_memory._staging",
        "anneal_memory.errors", "anneal_memory.types", "anneal_memory._result_types",
        "anneal_memory._clock",
        "anneal_memory._fsio", "anneal_memory._locks", "anneal_memory._lazy",
        "anneal_memory._fields", "anneal_memory._hebbian", "anneal_memory._owner",
        "anneal_memory._scope_files", "anneal_memory.redaction", "anneal_memory._asgi",
    ),
    ("anneal_memory.document",),
    ("anneal_memory.immune",),
    ("anneal_memory.audit",),
    ("anneal_memory.store",),
    (
        "anneal_memory.gate", "anneal_memory._wrap_gate", "anneal_memory.associations",
        "anneal_memory.scopes", "anneal_memory.sessions", "anneal_memory.upgrade",
    ),
    (
        "anneal_memory.crystal", "anneal_memory.spores", "anneal_memory.worth",
        "anneal_memory.probes",
    ),
    ("anneal_memory.continuity",),
    ("anneal_memory.agent",),
    ("anneal_memory.explain",),  # reads only: explanations assembled from the rooms below
    ("anneal_memory",),  # the package's public facade (lazy exports of the rooms below)
    (  # transports: MCP, the CLI, the inspector's web page
        "anneal_memory.mcp", "anneal_memory.cli", "anneal_memory.__main__",
        "anneal_memory.inspect",
    ),
    ("anneal_memory.testing",),
)  # fmt: skip

# Sibling rooms of one layer that must not import each other, as (importer, imported).
SEALED_SIBLINGS = (
    ("anneal_memory.store.sqlite", "anneal_memory.store.postgres"),
    ("anneal_memory.store.postgres", "anneal_memory.store.sqlite"),
)


def _modules(src: Path) -> dict[str, Path]:
    out = {}
    for path in src.rglob("*.py"):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imported(path: Path) -> list[tuple[str, list[str]]]:
    """``(module, names)`` of every absolute import in the file (names empty for ``import m``)."""
    found: list[tuple[str, list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.module, [a.name for a in node.names]))
    return found


@functools.cache
def _core_graph() -> dict[str, frozenset[str]]:
    """The core's import graph, parsed once per run (five tests read it)."""
    return {m: frozenset(t) for m, t in _graph(_modules(CORE)).items()}


def _graph(mods: dict[str, Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        for module, names in _imported(path):
            full = [f"{module}.{n}" for n in names] or [module]
            for name in [n if n in mods else module for n in full]:
                target = name
                while target and target not in mods:
                    target = target.rpartition(".")[0]
                if target and target != mod:
                    graph[mod].add(target)
    return graph


def _layer(module: str) -> int:
    best, depth = -1, -1
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            # The facade layer is the package's __init__ alone, not everything under it.
            inside = prefix != PACKAGE and module.startswith(prefix + ".")
            if (module == prefix or inside) and len(prefix) > depth:
                best, depth = index, len(prefix)
    return best


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _private_store_module(module: str) -> bool:
    parts = module.split(".")
    return parts[:2] == [PACKAGE, "store"] and any(p.startswith("_") for p in parts[2:])


def _edges() -> list[tuple[str, str]]:
    graph = _core_graph()
    return [(m, t) for m in sorted(graph) for t in sorted(graph[m])]


def test_every_core_module_has_a_layer() -> None:
    assert [m for m in _modules(CORE) if _layer(m) < 0] == []


def test_no_import_cycle() -> None:
    assert _cycles({m: set(t) for m, t in _core_graph().items()}) == []


def test_no_upward_import() -> None:
    upward = [
        f"{m} (layer {_layer(m)}) imports {t} (layer {_layer(t)})"
        for m, t in _edges()
        if _layer(t) > _layer(m)
    ]
    assert upward == []


def test_no_private_store_module_is_imported_from_outside_store() -> None:
    outside = [
        f"{m} imports {t}"
        for m, t in _edges()
        if _private_store_module(t)
        and not (m == "anneal_memory.store" or m.startswith("anneal_memory.store."))
    ]
    assert outside == []


def test_sealed_siblings_never_import_each_other() -> None:
    crossing = [
        f"{m} imports {t}"
        for m, t in _edges()
        for a, b in SEALED_SIBLINGS
        if (m == a or m.startswith(a + ".")) and (t == b or t.startswith(b + "."))
    ]
    assert crossing == []


def _public_names(module: str) -> set[str]:
    """The names in ``__all__`` of a public core module (read from its source)."""
    mods = _modules(CORE)
    path = mods[module]
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return {ast.literal_eval(e) for e in node.value.elts}  # type: ignore[attr-defined]
    return set()


def _adapter_imports() -> list[tuple[str, str, list[str]]]:
    found = []
    for src in ADAPTERS:
        for path in sorted(src.rglob("*.py")):
            for module, names in _imported(path):
                if module == PACKAGE or module.startswith(PACKAGE + "."):
                    found.append((str(path.relative_to(ROOT)), module, names))
    return found


def test_adapters_import_only_public_names() -> None:
    found = _adapter_imports()
    assert len(ADAPTERS) == 6
    assert found
    private = [
        f"{where}: {module} {names}"
        for where, module, names in found
        if any(part.startswith("_") for part in module.split("."))
        or not set(names) <= _public_names(module)
    ]
    assert private == []


@pytest.mark.parametrize(
    "package",
    sorted(m for m in _modules(CORE) if (_modules(CORE)[m].name == "__init__.py")),
)
def test_every_lazy_export_resolves(package: str) -> None:
    # Rooms re-export names of their private modules; a moved name must not break them.
    module = importlib.import_module(package)
    for name in getattr(module, "__all__", ()):
        assert getattr(module, name) is not None, f"{package}.{name}"


def test_redaction_is_a_pure_leaf() -> None:
    room = {m: t for m, t in _core_graph().items() if m.startswith("anneal_memory.redaction")}
    assert room
    allowed = ("anneal_memory.redaction", "anneal_memory.errors", "anneal_memory._lazy")
    outside = {m: sorted(x for x in t if not x.startswith(allowed)) for m, t in room.items()}
    assert {m: t for m, t in outside.items() if t} == {}
