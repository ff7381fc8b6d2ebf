"""The inspector's episode endpoints: search with the real recall, and one episode explained.

Search runs ``Store.recall`` with the page's filters, so the page shows what an agent's recall
returns, in its order. The trust filter is not a recall filter: it keeps the matching
episodes of recall's ranked results, scanning at most :data:`TRUST_SCAN` of them past the
start, and says when it stopped early.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from anneal_memory.errors import InvalidInputError
from anneal_memory.inspect._params import Params, scope_param
from anneal_memory.store.provenance import scopes_of

if TYPE_CHECKING:
    from anneal_memory.store import Store
    from anneal_memory.types import Episode

__all__ = ["TRUST_SCAN", "episode", "episodes", "recall_explanations"]

TRUST_SCAN = 2000
"""The most recall results one trust-filtered page looks through."""
PREVIEW_CHARS = 400
_TRUSTS = ("external", "tool", "agent", "operator")
_BATCH = 200


def recall_explanations(
    store: Store, query: dict[str, Any], found: Sequence[Episode]
) -> list[dict[str, Any]] | None:
    """HOOK for issue 27's ``explain recall``: per-result explanations of this search.

    Returns None until the recall explanation exists (it is built inside ``store/recall/``,
    with the ranking recall itself uses). Then this returns, for each episode of ``found`` in
    order, its explanation record as a dict (the stage that found it, the matched words and
    their weights, the score), e.g.
    ``[r.to_dict() for r in explain_recall(store, **query).results][: len(found)]``; the page
    shows those fields beside each result.
    """
    del store, query, found
    return None


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
    if trust is None:
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
        "explanations": recall_explanations(store, query, found),
    }


def episode(store: Store, params: Params) -> dict[str, Any]:
    """One episode explained (``explain_episode``; the chain is verified on its own page)."""
    from anneal_memory.explain import explain_episode

    limit = params.number("limit", 20, low=1, high=100)
    return explain_episode(store, params.required("id"), limit=limit, verify=False).to_dict()
