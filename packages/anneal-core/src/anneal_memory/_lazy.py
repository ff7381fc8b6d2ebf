"""Lazy package exports (PEP 562): a package's public names load on first use.

The CLI and the MCP server import ``anneal_memory`` on every start; loading the wrap pipeline,
the immune system and the audit verifier only when a command needs them keeps start-up close
to a bare ``import sqlite3``. It also keeps package ``__init__`` modules free of import cycles:
importing a pure leaf module such as ``continuity._markers`` never drags its siblings in.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: Mapping[str, str], namespace: dict[str, object]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """Return ``(__getattr__, __dir__)`` for a package exporting ``name -> module`` lazily.

    A resolved name is cached in the package namespace, so each loads once.
    """

    def __getattr__(name: str) -> object:  # noqa: N807 - the PEP 562 hook name
        module_name = exports.get(name)
        if module_name is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module_name), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:  # noqa: N807 - the PEP 562 hook name
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__
