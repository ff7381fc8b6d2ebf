"""The inspector's overview and audit endpoints.

The overview is cheap reads only (counts the store keeps, the scopes waiting, open wraps, the
baton); walking the audit chain is its own endpoint, since on a long trail it is the one slow
read, and the page asks for it after the overview has been drawn.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from anneal_memory.errors import InvalidInputError
from anneal_memory.explain._audit import verdict_of
from anneal_memory.inspect._params import Params
from anneal_memory.store.wraps import count_patterns, episode_scopes, open_wraps

if TYPE_CHECKING:
    from anneal_memory.store import Store

__all__ = ["audit", "overview", "verify"]

_SCOPES_SHOWN = 50


def _label(store: Store, path: str) -> dict[str, str]:
    if store.url is not None:  # a database server, not a file
        return {"backend": "postgresql", "name": "PostgreSQL"}
    return {"backend": "sqlite", "name": path.replace("\\", "/").rsplit("/", 1)[-1]}


def _counts(store: Store) -> dict[str, int]:
    from anneal_memory.crystal import list_crystals
    from anneal_memory.spores import list_spores

    with store.reading("inspect overview") as r:
        patterns = count_patterns(r.conn, "")
    return {
        "patterns": patterns,
        "crystals": len(list_crystals(store, status="live")),
        "spores_open": len(list_spores(store, status="open")),
    }


def overview(store: Store, params: Params) -> dict[str, Any]:
    """Counts, sizes, the last write, open wraps, the baton and the scopes waiting."""
    del params
    from anneal_memory.continuity import unwrapped_scopes, wrap_history
    from anneal_memory.gate import baton_status

    status = store.status().to_dict()
    store_label = _label(store, str(status.pop("path")))
    waiting, more = unwrapped_scopes(store, limit=_SCOPES_SHOWN)
    with store.reading("inspect overview") as r:
        opened = open_wraps(r.conn, limit=_SCOPES_SHOWN)
        scopes = episode_scopes(r.conn, limit=_SCOPES_SHOWN)
    last = wrap_history(store, limit=1, completed_only=True)
    return {
        "store": store_label,
        "status": status,
        "waiting_by_scope": [{"scope": s, "episodes": n} for s, n in waiting.items()],
        "more_scopes_waiting": more,
        "scopes": scopes,
        "open_wraps": [dataclasses.asdict(w) for w in opened],
        "baton": baton_status(store).to_dict(),
        "counts": _counts(store),
        "last_wrap": None if not last else {"id": last[0].id, "completed_at": last[0].completed_at},
    }


def audit(store: Store, params: Params) -> dict[str, Any]:
    """A page of audit entries, newest first (``event`` filters one kind)."""
    from anneal_memory.audit import AuditEvent

    limit, offset = params.page(50)
    event = params.text("event")
    if event is not None and event not in {e.value for e in AuditEvent}:
        raise InvalidInputError(f"unknown audit event {event!r}")
    page = store.audit_page(limit=limit, offset=offset, event=event)
    return {
        "entries": list(page.entries),
        "matched": page.matched,
        "limit": limit,
        "offset": offset,
    }


def verify(store: Store, params: Params) -> dict[str, Any]:
    """Walk the whole audit chain: its verdict and the full report."""
    del params
    result = store.verify_audit()
    return {"verdict": verdict_of(result), "report": result.to_dict()}
