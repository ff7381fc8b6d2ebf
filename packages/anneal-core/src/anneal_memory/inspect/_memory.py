"""The inspector's endpoints over what the wraps made: continuity, patterns, wraps, the tiers.

Every endpoint returns a page (``limit``/``offset``, at most ``MAX_PAGE`` rows) and the total
it was cut from when counting is cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from anneal_memory.document._markers import parse_pattern_line
from anneal_memory.errors import InvalidInputError
from anneal_memory.inspect._params import Params, scope_param
from anneal_memory.store.wraps import count_patterns, patterns_page, wrap_lines

if TYPE_CHECKING:
    from anneal_memory.store import Store

__all__ = ["continuity", "crystals", "graph", "pattern", "patterns", "probes", "spores", "wraps"]

MAX_LINKS = 300
"""The most association links the graph draws."""
_PREVIEW = 120
_LINES_PER_WRAP = 40


def continuity(store: Store, params: Params) -> dict[str, Any]:
    """A scope's continuity text and where its pattern lines are (for links and charts)."""
    scope = params.text("scope") or ""
    text = store.load_continuity(scope)
    lines = []
    for number, raw in enumerate((text or "").splitlines()):
        line = parse_pattern_line(raw)
        if line is not None:
            lines.append(
                {
                    "line": number,
                    "name": line.name,
                    "level": line.level,
                    "cites": list(line.evidence_ids),
                }
            )
    return {"scope": scope, "exists": text is not None, "text": text, "patterns": lines}


def patterns(store: Store, params: Params) -> dict[str, Any]:
    """A page of a scope's patterns, most recently written first."""
    scope = params.text("scope") or ""
    limit, offset = params.page()
    with store.reading("inspect patterns") as r:
        rows = patterns_page(r.conn, scope, limit=limit, offset=offset)
        total = count_patterns(r.conn, scope)
    return {
        "scope": scope,
        "total": total,
        "patterns": [
            {"name": p.name, "level": p.level, "max_level": p.max_level,
             "last_wrap_id": p.last_wrap_id, "last_grounded": p.last_grounded}
            for p in rows
        ],
    }  # fmt: skip


def pattern(store: Store, params: Params) -> dict[str, Any]:
    """One pattern explained, with its level series (oldest first) for the chart."""
    from anneal_memory.explain import explain_pattern

    found = explain_pattern(
        store,
        params.required("name"),
        scope=params.text("scope") or "",
        limit=params.number("limit", 50, low=1, high=100),
        verify=False,
    )
    series = [
        {"wrap_id": s.wrap_id, "day": s.day, "level": s.level,
         "claimed_level": s.claimed_level, "outcome": s.outcome}
        for s in reversed(found.steps)
    ]  # fmt: skip
    return {**found.to_dict(), "series": series}


def wraps(store: Store, params: Params) -> dict[str, Any]:
    """A page of wraps, newest first, each with the immune decisions on its pattern lines."""
    from anneal_memory.continuity import wrap_history

    limit, offset = params.page(20)
    found = wrap_history(store, limit=offset + limit, scope=scope_param(params))[offset:]
    out = []
    with store.reading("inspect wraps") as r:
        for wrap in found:
            lines = wrap_lines(r.conn, wrap.id, limit=_LINES_PER_WRAP)
            item = wrap.to_dict()
            item.pop("token", None)
            item["lines"] = [
                {"name": ln.identity, "level": ln.level, "claimed_level": ln.claimed_level,
                 "validated": ln.validated, "marks": list(ln.marks), "line_date": ln.line_date}
                for ln in lines
            ]  # fmt: skip
            out.append(item)
    return {"offset": offset, "limit": limit, "wraps": out, "has_more": len(found) == limit}


def crystals(store: Store, params: Params) -> dict[str, Any]:
    """A page of crystals (live and retired), by name."""
    from anneal_memory.crystal import list_crystals

    limit, offset = params.page()
    found = list_crystals(store, status="all")
    return {"total": len(found), "crystals": [c.to_dict() for c in found[offset : offset + limit]]}


def spores(store: Store, params: Params) -> dict[str, Any]:
    """A page of spores (``status`` open, resolved or all), ranked."""
    from anneal_memory.spores import list_spores

    limit, offset = params.page()
    found = list_spores(store, status=params.text("status") or "open")
    return {"total": len(found), "spores": [s.to_dict() for s in found[offset : offset + limit]]}


def probes(store: Store, params: Params) -> dict[str, Any]:
    """A page of drift probes, oldest first: ``status`` live (the default) or all; ``scope``."""
    from anneal_memory.probes import list_probes

    status = params.text("status") or "live"
    if status not in {"live", "all"}:
        raise InvalidInputError(f"status must be live or all, got {status[:40]!r}")
    limit, offset = params.page()
    scope = scope_param(params)
    found = [
        p for p in list_probes(store, include_retired=status == "all")
        if scope is None or p.scope == scope
    ]  # fmt: skip
    return {
        "total": len(found),
        "limit": limit,
        "offset": offset,
        "probes": [p.to_dict() for p in found[offset : offset + limit]],
    }


def graph(store: Store, params: Params) -> dict[str, Any]:
    """The strongest association links and their episodes (type, trust, a preview)."""
    from anneal_memory.associations import associations

    limit = params.number("limit", 150, low=1, high=MAX_LINKS)
    minimum = params.number("min_strength_pct", 0, low=0, high=1000) / 100
    links = associations(store, min_strength=minimum, limit=limit)
    ids = sorted({x for link in links for x in (link.a, link.b)})
    nodes = []
    for ident in ids:
        item = store.get(ident)
        nodes.append(
            {"id": ident, "type": None if item is None else item.type.value,
             "trust": None if item is None else item.trust.value,
             "preview": "" if item is None else item.content[:_PREVIEW]}
        )  # fmt: skip
    return {"nodes": nodes, "links": [link.to_dict() for link in links], "limit": limit}
