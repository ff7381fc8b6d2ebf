"""``explain_recall``: recall's own ranking of one question, with the reasons of its order.

The results are recall's: ``Store.recall`` runs with a :class:`RecallTrace`, which the
ranking fills in while it ranks (the stage that answered, the phrase tier, each term's share
of a score, the lifts of neighbours, citation links and the question's intent). Nothing is
ranked a second way, so the order shown is recall's order on either backend. The episodes
the same question would rank on the page once superseded episodes and other scopes are let
in are listed apart, with why they were left out.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from anneal_memory.explain._checks import check_limit, check_scope
from anneal_memory.explain._types import HiddenHit, RecallExplanation, RecallHit
from anneal_memory.store.provenance import episode_place
from anneal_memory.store.recall import RecallTrace

if TYPE_CHECKING:
    import datetime as _dt

    from anneal_memory.store import Store
    from anneal_memory.types import Episode, EpisodeType

__all__ = ["CONTENT_CHARS", "MAX_QUESTION_CHARS", "explain_recall"]

CONTENT_CHARS = 300
"""The most characters of an episode's text an explanation carries."""
MAX_QUESTION_CHARS = 2000
"""The longest question explained (recall itself reads at most 32 distinct words)."""


def _bounded(text: str) -> str:
    return text if len(text) <= CONTENT_CHARS else text[: CONTENT_CHARS - 1] + "\u2026"


def _score(trace: RecallTrace, value: float | None) -> float | None:
    # SQLite's bm25 is lower-is-better; shown the other way round, higher ranks first.
    if value is None:
        return None
    return round(value if trace.higher_is_better else -value, 9)


def _found_by(trace: RecallTrace, seq: int | None) -> str:
    if trace.stage in (None, "newest") or seq is None:
        return "newest"
    if seq in trace.phrase:
        return "phrase"
    if seq in trace.hop_found:
        return "citation hop"
    return str(trace.stage)


def _lifts(trace: RecallTrace, seq: int) -> tuple[dict[str, Any], ...]:
    lifts: list[dict[str, Any]] = []
    if seq in trace.prior:
        lifts.append({"by": "intent", "factor": round(trace.prior[seq], 4)})
    if seq in trace.hop:
        lenders = [trace.ids.get(s, f"#{s}") for s in trace.hop[seq]]
        lifts.append({"by": "citation hop", "from": lenders})
    if seq in trace.neighbour:
        lifts.append({"by": "neighbour", "from": trace.ids.get(trace.neighbour[seq], "")})
    return tuple(lifts)


def _hit(rank: int, episode: Episode, trace: RecallTrace, seq: int | None) -> RecallHit:
    matched: tuple[dict[str, Any], ...] = ()
    score = base = None
    lifts: tuple[dict[str, Any], ...] = ()
    if seq is not None:
        words = trace.weights.get(seq, {})
        shown = [(word, _score(trace, weight) or 0.0) for word, weight in words.items()]
        shown.sort(key=lambda item: (-item[1], item[0]))
        matched = tuple({"word": word, "weight": weight} for word, weight in shown)
        score, base = _score(trace, trace.score.get(seq)), _score(trace, trace.base.get(seq))
        if seq in trace.hop_found:
            base = None
        lifts = _lifts(trace, seq)
    return RecallHit(
        rank=rank,
        id=episode.id,
        type=episode.type.value,
        timestamp=episode.timestamp,
        trust=episode.trust.value,
        content=_bounded(episode.content),
        found_by=_found_by(trace, seq),
        matched=matched,
        score=score,
        base_score=base,
        lifts=lifts,
    )


def _reasons(
    episode: Episode, scopes: dict[str, str], scope: str | None, include_superseded: bool
) -> list[dict[str, Any]]:
    reasons: list[dict[str, Any]] = []
    if episode.superseded_by is not None and not include_superseded:
        if episode.state_key is not None:
            reasons.append(
                {"why": "state key", "key": episode.state_key, "current": episode.superseded_by}
            )
        else:
            reasons.append({"why": "superseded", "by": episode.superseded_by})
    mine = scopes.get(episode.id)
    if scope is not None and mine is not None and mine != scope:
        reasons.append({"why": "scope", "scope": mine})
    return reasons


def _scopes(store: Store, ids: Iterable[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    with store.reading("explain recall") as r:
        for ident in ids:
            place = episode_place(r.conn, ident)
            if place is not None:
                found[ident] = place.scope
    return found


def explain_recall(
    store: Store,
    question: str,
    *,
    episode_type: EpisodeType | str | None = None,
    since: _dt.datetime | str | None = None,
    until: _dt.datetime | str | None = None,
    source: str | None = None,
    scope: str | None = None,
    limit: int = 10,
    offset: int = 0,
    include_superseded: bool = False,
    other_scopes: bool = True,
) -> RecallExplanation:
    """Recall ``question`` as ``Store.recall`` does and say why each result ranks where it does.

    Args:
        store: The store (only read).
        question: The question or keywords, as given to recall.
        episode_type: Only this episode type (recall's filter).
        since: Not before (recall's filter).
        until: Not after (recall's filter).
        source: Only this source (recall's filter).
        scope: Only this scope ("" is the shared one); None searches every scope.
        limit: How many results to explain (1 to 1000).
        offset: Skip this many first, as recall's ``offset`` (results are ranked from
            ``offset + 1``).
        include_superseded: Let superseded episodes in, as recall's flag does.
        other_scopes: With ``scope``, also look in the other scopes for episodes the
            question ranks on the page (False keeps another scope's text out, as an agent
            bound to one scope must).

    Raises:
        InvalidInputError: ``question``, ``scope`` or ``limit`` is not valid.
        InvalidQueryError: A filter is malformed (recall's own check).
    """
    from anneal_memory.errors import InvalidInputError

    if not isinstance(question, str) or len(question) > MAX_QUESTION_CHARS:
        raise InvalidInputError(
            f"a question is text of at most {MAX_QUESTION_CHARS} characters, got "
            f"{type(question).__name__} of {len(question) if isinstance(question, str) else 0}"
        )
    limit = check_limit(limit)
    scope = None if scope is None else check_scope(scope)
    filters = {"episode_type": episode_type, "since": since, "until": until, "source": source}
    trace = RecallTrace()
    result = store.recall(
        question,
        limit=limit,
        offset=offset,
        include_superseded=include_superseded,
        scope=scope,
        trace=trace,
        **filters,  # type: ignore[arg-type]
    )
    seqs: list[int | None] = list(trace.page)
    if len(seqs) != len(result.episodes):  # no keyword: newest first, nothing was ranked
        seqs = [None] * len(result.episodes)
    hits = tuple(
        _hit(rank, episode, trace, seq)
        for rank, (episode, seq) in enumerate(
            zip(result.episodes, seqs, strict=True), start=offset + 1
        )
    )
    hidden = _hidden(
        store, question, filters, scope, (limit, offset), include_superseded, other_scopes, hits
    )
    return RecallExplanation(
        question=question,
        filters={
            "type": None
            if episode_type is None
            else str(getattr(episode_type, "value", episode_type)),
            "since": None if since is None else str(since),
            "until": None if until is None else str(until),
            "source": source,
            "scope": scope,
            "include_superseded": include_superseded,
        },
        backend="sqlite" if store.url is None else "postgresql",
        stage=trace.stage,
        terms=trace.terms,
        intent=None
        if not (trace.intent_types or trace.intent_since or trace.intent_until)
        else {
            "types": list(trace.intent_types),
            "since": trace.intent_since,
            "until": trace.intent_until,
        },
        total_matching=result.total_matching,
        results=hits,
        hidden=hidden,
        searched=dict(trace.searched),
    )


def _hidden(  # noqa: PLR0917 - the recall being explained
    store: Store,
    question: str,
    filters: dict[str, Any],
    scope: str | None,
    page: tuple[int, int],
    include_superseded: bool,
    other_scopes: bool,
    hits: tuple[RecallHit, ...],
) -> tuple[HiddenHit, ...]:
    """What the same ranking puts on the page once nothing is left out, and why it was."""
    if not question.strip():
        return ()
    wide_scope = None if other_scopes else scope
    if include_superseded and wide_scope == scope:
        return ()
    limit, offset = page
    wide = store.recall(
        question, limit=limit, offset=offset, include_superseded=True, scope=wide_scope, **filters
    ).episodes
    shown = {hit.id for hit in hits}
    scopes = _scopes(store, [e.id for e in wide if e.id not in shown]) if scope is not None else {}
    out = []
    for rank, episode in enumerate(wide, start=offset + 1):
        if episode.id in shown:
            continue
        reasons = _reasons(episode, scopes, scope, include_superseded)
        if reasons:
            out.append(
                HiddenHit(
                    id=episode.id,
                    rank=rank,
                    reasons=tuple(reasons),
                    content=_bounded(episode.content),
                )
            )
    return tuple(out)
