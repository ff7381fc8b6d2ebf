"""Rules about the core package itself: stdlib only, a tidy public surface, small modules."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import anneal_memory

CORE = Path(anneal_memory.__file__).parent
MAX_MODULE_LINES = 500

# The optional extras: each module named here may import these packages, inside functions
# only, so SQLite-over-stdio users never need them (the wheel smoke test installs none).
OPTIONAL_IMPORTS = {
    "_asgi.py": {"uvicorn"},  # anneal-memory[http]
    "store/postgres/_driver.py": {"psycopg", "psycopg_pool"},  # anneal-memory[postgres]
    "store/postgres/_schema.py": {"psycopg"},
    "store/postgres/_audit.py": {"psycopg"},
    "store/postgres/_recall.py": {"psycopg"},
    "store/postgres/_rank.py": {"psycopg"},
    "store/postgres/_substring.py": {"psycopg"},
    "store/postgres/_schema_trigram.py": {"psycopg"},
    "store/postgres/_stats.py": {"psycopg"},
    "store/postgres/_transfer.py": {"psycopg"},
    "store/postgres/_conn.py": {"psycopg"},
    "store/postgres/_readonly.py": {"psycopg"},
    "store/postgres/_hop.py": {"psycopg"},
    "store/postgres/_trace.py": {"psycopg"},
    "store/postgres/_backend.py": {"psycopg"},
    "store/postgres/_dialect.py": {"psycopg"},
    "store/postgres/_reads.py": {"psycopg"},
}


def core_modules() -> list[Path]:
    return sorted(CORE.rglob("*.py"))


def test_core_imports_only_the_standard_library() -> None:
    stdlib = set(sys.stdlib_module_names) | {"anneal_memory", "__future__"}
    offenders = []
    for path in core_modules():
        allowed = stdlib | OPTIONAL_IMPORTS.get(path.relative_to(CORE).as_posix(), set())
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


def test_optional_imports_happen_inside_functions_only() -> None:
    for relative, packages in OPTIONAL_IMPORTS.items():
        tree = ast.parse((CORE / relative).read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
                names.append(getattr(node, "module", None) or "")
                assert not {n.split(".")[0] for n in names} & packages, relative


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


def test_importing_the_core_loads_only_what_a_command_needs() -> None:
    # `import anneal_memory` must stay light: the CLI and the MCP server start from it. Public
    # names load on first use; no framework, no wrap pipeline, no asyncio at import time.
    code = (
        "import sys, anneal_memory; "
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'langchain', 'langgraph', 'agents', 'pydantic_ai', 'crewai', 'llama_index', 'dspy', "
        "'pydantic', 'mcp', 'httpx', 'asyncio'} or m.startswith(('anneal_memory.continuity', "
        "'anneal_memory.immune', 'anneal_memory.agent._memory', 'anneal_memory.audit', "
        "'anneal_memory.mcp')))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == ""


def test_lazy_exports_resolve_to_their_modules() -> None:
    for name in anneal_memory.__all__:
        value = getattr(anneal_memory, name)
        if name != "__version__":
            assert name in anneal_memory._EXPORTS
            assert value is not None
    assert set(anneal_memory._EXPORTS) == set(anneal_memory.__all__) - {"__version__"}
    assert set(anneal_memory.__all__) <= set(dir(anneal_memory))


def test_every_core_module_imports_on_its_own() -> None:
    # Lazy package exports can hide import cycles; importing each module first, with no
    # module of the package loaded yet, is what a user's `from anneal_memory.x import y` does.
    # One interpreter serves them all: before each import it forgets every anneal_memory
    # module, so each starts from nothing of ours (the stdlib stays loaded, as in any program).
    names = []
    for path in core_modules():
        parts = path.relative_to(CORE.parent).with_suffix("").parts
        if parts[-1] == "__main__":
            continue
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    script = (
        "import importlib, sys, traceback\n"
        "bad = []\n"
        "for name in sys.argv[1:]:\n"
        "    for loaded in [m for m in sys.modules if m.split('.')[0] == 'anneal_memory']:\n"
        "        del sys.modules[loaded]\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except BaseException:\n"
        "        bad.append((name, traceback.format_exc()[-300:]))\n"
        "print(bad)\n"
    )
    # One interpreter per CPU, each with its share of the modules, side by side.
    shares = max(1, min(os.cpu_count() or 1, 4))
    children = [
        subprocess.Popen(
            [sys.executable, "-c", script, *names[k::shares]],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for k in range(shares)
    ]
    for child in children:
        out, err = child.communicate(timeout=300)
        assert child.returncode == 0, err
        assert out.strip() == "[]"
