"""MCP resources: the continuity file and the tool-integrity manifest."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from anneal_memory.mcp._toolkit import Tool
    from anneal_memory.store import Store

__all__ = [
    "CONTINUITY_PLACEHOLDER",
    "CONTINUITY_URI",
    "MANIFEST_URI",
    "RESOURCES",
    "enable_baton_policy",
    "read",
]

CONTINUITY_URI = "anneal://continuity"
MANIFEST_URI = "anneal://integrity/manifest"

CONTINUITY_PLACEHOLDER = (
    "(No continuity yet. Record episodes while you work; at the end of the session call "
    "prepare_wrap and save_continuity to write the first one.)"
)

RESOURCES: tuple[dict[str, Any], ...] = (
    {
        "uri": CONTINUITY_URI,
        "name": "continuity",
        "title": "Continuity",
        "description": "The agent's compressed memory: read it at the start of every session.",
        "mimeType": "text/markdown",
    },
    {
        "uri": MANIFEST_URI,
        "name": "integrity-manifest",
        "title": "Tool integrity manifest",
        "description": "SHA-256 of each tool's description and input schema.",
        "mimeType": "application/json",
    },
)


class _Source(Protocol):
    @property
    def store(self) -> Store: ...

    @property
    def config(self) -> Any: ...


def _continuity_text(store: Store, scope: str) -> str:
    return store.load_continuity(scope) or CONTINUITY_PLACEHOLDER


def manifest_text(tools: Iterable[Tool]) -> str:
    """The live integrity manifest of ``tools`` as JSON text."""
    from anneal_memory.mcp._integrity import build_manifest, render_manifest

    return render_manifest(build_manifest(tool.to_dict() for tool in tools))


def read(source: _Source, uri: str) -> Mapping[str, Any] | None:
    """The content of one resource, or None when ``uri`` names no resource."""
    if uri == CONTINUITY_URI:
        text = _continuity_text(source.store, getattr(source.config, "scope", ""))
        return {"uri": uri, "mimeType": "text/markdown", "text": text}
    if uri == MANIFEST_URI:
        text = manifest_text(source.config.tools)
        return {"uri": uri, "mimeType": "application/json", "text": text}
    return None


def enable_baton_policy(store: Store) -> None:
    """Turn the single-consolidator baton policy on for a store this server created.

    Only the session holding the baton may then wrap; the operator gives it to this server
    with ``anneal-memory --db DB baton claim <session id>``.
    """
    from anneal_memory.gate import set_consolidate_policy

    set_consolidate_policy(store, True)
