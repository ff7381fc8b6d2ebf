"""The inspector's episode endpoints: search with the real recall, and one episode explained.

A search runs ``explain_recall`` with the page's filters: recall's own ranking, so the page
shows what an agent's recall returns, in its order, with the reasons of that order beside
each result (the stage that found it, the matched words and their weights, the score, its
lifts) and the episodes left out of the page and why. Without words, the page is recall's
newest first. The trust filter is not a recall filter: it keeps the matching episodes of
recall's ranked results, scanning at most :data:`TRUST_SCAN` of them past the start, and
says when it stopped early (that page carries no explanations).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from anneal_memory.errors import InvalidInputError
from anneal_memory.inspect._params import Params, scope_param
from anneal_memory.store.provenance import scopes_of

if TYPE_CHECKING:
    from anneal_memory.explain import RecallExplanation
    from anneal_memory.store import Store
    from anneal_memory.types import Episode

__all__ = ["TRUST_SCAN", "episode", "episodes"]

TRUST_SCAN = 2000
"""The most recall results one trust-filtered page looks through."""
PREVIEW_CHARS = 400
_TRUSTS = ("external", "tool", "agent", "operator")
_BATCH = 200


def _query(params: Params) -> dict[str, Any]:
    return {
        "keyword": params.text("q"),
        "episode_type": params.text("type"),
        "source": params.text("source"),
        "since": params.text("since"),
        "until": params.text("until"),
        "scope": scope_param(params),
        "include_superseded": params.flag("superseded"),
    }


def _with_trust(
    store: Store, query: dict[str, Any], trust: str, limit: int, offset: int
) -> tuple[list[Episode], bool, bool]:
    """Matching episodes of the page, whether more may follow, whether the scan was cut."""
    kept: list[Episode] = []
    skipped = scanned = 0
    while scanned < TRUST_SCAN:
        batch = store.recall(**query, limit=_BATCH, offset=scanned).episodes
        for item in batch:
            if item.trust.value != trust:
                continue
            if skipped < offset:
                skipped += 1
            elif len(kept) < limit:
                kept.append(item)
            else:
                return kept, True, False
        scanned += len(batch)
        if len(batch) < _BATCH:
            return kept, False, False
    return kept, True, True


def _row(item: Episode, effective: str | None, scope: str | None) -> dict[str, Any]:
    content = item.content
    return {
        "id": item.id,
        "timestamp": item.timestamp,
        "type": item.type.value,
        "source": item.source,
        "scope": scope,
        "trust": item.trust.value,
        "effective_trust": effective,
        "state_key": item.state_key,
        "superseded_by": item.superseded_by,
        "content": content[:PREVIEW_CHARS],
        "content_chars": len(content),
    }


def episodes(store: Store, params: Params) -> dict[str, Any]:
    """One page of episodes: recall's results for the query and filters."""
    limit, offset = params.page(25)
    query = _query(params)
    trust = params.text("trust")
    if trust is not None and trust not in _TRUSTS:
        raise InvalidInputError(f"trust must be one of {', '.join(_TRUSTS)}, got {trust!r}")
    total: int | None
    explained: RecallExplanation | None = None
    if trust is None and (query["keyword"] or "").strip():
        explained = _explained(store, query, limit, offset)
        found = [e for e in (store.get(hit.id) for hit in explained.results) if e is not None]
        total, cut = explained.total_matching, False
        more = offset + len(explained.results) < total
    elif trust is None:
        result = store.recall(**query, limit=limit, offset=offset)
        found, total, cut = list(result.episodes), result.total_matching, False
        more = offset + len(found) < total
    else:
        found, more, cut = _with_trust(store, query, trust, limit, offset)
        total = None
    ids = [e.id for e in found]
    effective = store.effective_trusts(ids)
    with store.reading("inspect episodes") as r:
        places = scopes_of(r.conn, ids)
    return {
        "total": total,
        "has_more": more,
        "trust_scan_cut": cut,
        "limit": limit,
        "offset": offset,
        "episodes": [
            _row(e, effective[e.id].value if e.id in effective else None, places.get(e.id))
            for e in found
        ],
        **_reasons(explained, found),
    }


def _explained(store: Store, query: dict[str, Any], limit: int, offset: int) -> RecallExplanation:
    from anneal_memory.explain import explain_recall

    return explain_recall(
        store,
        query["keyword"],
        episode_type=query["episode_type"],
        since=query["since"],
        until=query["until"],
        source=query["source"],
        scope=query["scope"],
        limit=limit,
        offset=offset,
        include_superseded=query["include_superseded"],
    )


def _reasons(explained: RecallExplanation | None, found: Sequence[Episode]) -> dict[str, Any]:
    """``explanations`` (one per row, in order) and ``hidden`` of a search's page."""
    if explained is None:
        return {"explanations": None, "recall": None, "hidden": []}
    by_id = {hit.id: hit.to_dict() for hit in explained.results}
    keep = ("rank", "found_by", "matched", "score", "base_score", "lifts")
    recall = {
        "stage": explained.stage,
        "terms": list(explained.terms),
        "intent": explained.intent,
        "backend": explained.backend,
    }
    return {
        "explanations": [{key: by_id[e.id][key] for key in keep} for e in found],
        "recall": recall,
        "hidden": [gone.to_dict() for gone in explained.hidden],
    }


def episode(store: Store, params: Params) -> dict[str, Any]:
    """One episode explained (``explain_episode``; the chain is verified on its own page)."""
    from anneal_memory.explain import explain_episode

    limit = params.number("limit", 20, low=1, high=100)
    return explain_episode(store, params.required("id"), limit=limit, verify=False).to_dict()
