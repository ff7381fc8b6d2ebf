"""Tool-description integrity: hash what each tool tells the model and the client.

A model trusts what a tool's description says, so a changed description is a changed
instruction; a client trusts the annotations (a tool marked read-only may run without asking),
so the hash covers every field of the ``tools/list`` entry: title, description, input and
output schema, annotations. The package ships ``tool-integrity.json``, generated from the
tool table at build/test time (``python -m anneal_memory.mcp.gen_manifest --write`` in a
source checkout; a test fails when it is stale). ``serve`` compares the live table with it
at startup and refuses to run on any difference unless started with ``--skip-integrity``.
Nothing here ever writes into the installed package.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from anneal_memory.errors import ToolIntegrityError

__all__ = [
    "MANIFEST_PATH",
    "IntegrityReport",
    "build_manifest",
    "check_manifest",
    "load_manifest",
    "render_manifest",
    "tool_hash",
]

MANIFEST_PATH = Path(__file__).with_name("tool-integrity.json")
_VERSION = 2
_CANONICAL = "JSON of the tools/list entry without name: sorted keys, no spaces, UTF-8"


# A NamedTuple, not a dataclass: ``dataclasses`` imports ``inspect`` and would add ~10 ms
# to the server's start-up, which clients wait for.
class IntegrityReport(NamedTuple):
    """The differences between the live tool table and a manifest.

    Attributes:
        changed: Tools whose description or schema hash differs.
        missing: Tools in the manifest that the server no longer offers.
        unknown: Tools the server offers that the manifest does not list.
    """

    changed: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """True when the table matches the manifest exactly."""
        return not (self.changed or self.missing or self.unknown)

    def describe(self) -> str:
        """One line naming every difference."""
        parts = [
            f"{label}: {', '.join(names)}"
            for label, names in (
                ("changed", self.changed),
                ("missing", self.missing),
                ("not in manifest", self.unknown),
            )
            if names
        ]
        return "; ".join(parts) or "tool table matches the manifest"


def tool_hash(entry: Mapping[str, Any]) -> str:
    """SHA-256 hex of the canonical JSON of one ``tools/list`` entry, its name left out."""
    canonical = json.dumps(
        {key: value for key, value in entry.items() if key != "name"},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def build_manifest(tools: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The manifest of ``tools`` (``tools/list`` entries)."""
    hashes = {t["name"]: tool_hash(t) for t in tools}
    return {
        "version": _VERSION,
        "algorithm": "SHA-256",
        "canonicalization": _CANONICAL,
        "tools": dict(sorted(hashes.items())),
    }


def render_manifest(manifest: Mapping[str, Any]) -> str:
    """The manifest as the text of ``tool-integrity.json`` (stable, one tool per line)."""
    return json.dumps(manifest, indent=2, sort_keys=True) + "\n"


def load_manifest(path: Path = MANIFEST_PATH) -> dict[str, Any]:
    """Read a manifest file.

    Raises:
        ToolIntegrityError: The file is missing or is not a manifest.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ToolIntegrityError(f"tool integrity manifest not found: {path}") from None
    except (OSError, ValueError) as exc:
        raise ToolIntegrityError(f"tool integrity manifest {path} is unreadable: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("tools"), dict):
        raise ToolIntegrityError(f"tool integrity manifest {path} has no 'tools' object")
    return data


def check_manifest(live: Mapping[str, Any], shipped: Mapping[str, Any]) -> IntegrityReport:
    """Compare a live manifest with a shipped one (pure)."""
    have: Mapping[str, str] = live["tools"]
    want: Mapping[str, str] = shipped["tools"]
    return IntegrityReport(
        changed=tuple(sorted(n for n in have.keys() & want.keys() if have[n] != want[n])),
        missing=tuple(sorted(want.keys() - have.keys())),
        unknown=tuple(sorted(have.keys() - want.keys())),
    )
