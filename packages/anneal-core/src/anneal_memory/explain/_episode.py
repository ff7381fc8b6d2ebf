"""``explain_episode``: an episode's trust, replacements, scope, uses and audit entries.

Reads only: the episode, its place and tombstone, its supersession links and state-key slot
(``anneal_memory.store.provenance``), the effective trust of it and its sources, the lines of its
scope's continuity that cite it, the crystals citing it, its association links, the
audit entries that name it and its worth counts (``anneal_memory.worth``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anneal_memory.audit import value_needles
from anneal_memory.document._markers import parse_pattern_line
from anneal_memory.explain._audit import audit_slice
from anneal_memory.explain._checks import check_episode_id, check_limit
from anneal_memory.explain._types import (
    AuditSlice,
    EpisodeExplanation,
    PatternUse,
    TrustReport,
)
from anneal_memory.explain._worth import worth_counts
from anneal_memory.store.provenance import (
    episode_place,
    links_touching,
    slot_members,
    tombstone,
)

if TYPE_CHECKING:
    from anneal_memory.store import Store
    from anneal_memory.types import Episode

__all__ = ["explain_episode"]


def _trust(store: Store, episode: Episode) -> TrustReport:
    sources = list(episode.derived_from)
    effective = store.effective_trusts([episode.id, *sources])
    mine = effective.get(episode.id, episode.trust)
    known = [(s, effective[s]) for s in sources if s in effective]
    capped_by: tuple[str, ...] = ()
    if mine.rank < episode.trust.rank:
        capped_by = tuple(s for s, t in known if t.rank == mine.rank)
    return TrustReport(
        recorded=episode.trust.value,
        effective=mine.value,
        capped_by=capped_by,
        sources=tuple({"id": s, "effective_trust": t.value} for s, t in known),
    )


def _uses(store: Store, episode_id: str, scope: str) -> tuple[PatternUse, ...]:
    uses = []
    for raw in (store.load_continuity(scope) or "").splitlines():
        line = parse_pattern_line(raw)
        if line is not None and episode_id in line.evidence_ids:
            uses.append(PatternUse(scope=scope, name=line.name, level=line.level, line=raw))
    return tuple(uses)


def _audit(
    store: Store, episode_id: str, limit: int, *, verify: bool, since: str | None = None
) -> AuditSlice:
    return audit_slice(store, value_needles([episode_id]), limit=limit, since=since, verify=verify)


def _links(
    store: Store, episode: Episode, limit: int
) -> tuple[tuple[dict[str, str], ...], tuple[dict[str, str], ...], list[str], int]:
    with store.reading("explain episode") as r:
        older, newer = links_touching(r.conn, episode.id, limit=limit)
        slot: list[str] = []
        size = 0
        if episode.state_key is not None:
            slot, size = slot_members(r.conn, episode.state_key, limit=limit)
    return (
        tuple(link.to_dict() for link in older),
        tuple(link.to_dict() for link in newer),
        slot,
        size,
    )


def _missing(store: Store, episode_id: str, limit: int, *, verify: bool) -> EpisodeExplanation:
    with store.reading("explain episode") as r:
        gone = tombstone(r.conn, episode_id)
    return EpisodeExplanation(
        id=episode_id,
        found=False,
        deleted=None if gone is None else {"deleted_at": gone.deleted_at, "reason": gone.reason},
        audit=_audit(store, episode_id, limit, verify=verify),
    )


def _since(store: Store, episode: Episode) -> str | None:
    """The episode's time when it is past: its audit entries are no older (else None)."""
    from anneal_memory._clock import format_timestamp

    now = format_timestamp(store.clock.now())
    return episode.timestamp if episode.timestamp <= now else None


def explain_episode(
    store: Store, episode_id: str, *, limit: int = 20, verify: bool = True
) -> EpisodeExplanation:
    """Everything the store holds about one episode, and how it counts.

    Args:
        store: The store (only read).
        episode_id: The episode's eight-hex id.
        limit: List at most this many links, slot members, associations and audit entries.
        verify: Also walk the audit chain and attach its verdict.

    Raises:
        InvalidInputError: ``episode_id`` or ``limit`` is not valid.
    """
    from anneal_memory.associations import associations
    from anneal_memory.crystal import crystals_citing

    episode_id, limit = check_episode_id(episode_id), check_limit(limit)
    episode = store.get(episode_id)
    with store.reading("explain episode") as r:
        place = None if episode is None else episode_place(r.conn, episode_id)
    if episode is None or place is None:
        return _missing(store, episode_id, limit, verify=verify)
    older, newer, slot, size = _links(store, episode, limit)
    links = associations(store, episode_id=episode_id, limit=limit)
    return EpisodeExplanation(
        id=episode_id,
        found=True,
        episode=episode.to_dict(),
        scope=place.scope,
        trust=_trust(store, episode),
        superseded_by=episode.superseded_by,
        replaces=older,
        replaced_by=newer,
        state_key=episode.state_key,
        slot=tuple(slot),
        slot_size=size,
        patterns=_uses(store, episode_id, place.scope),
        crystals=crystals_citing(store, [episode_id]),
        associations=tuple(link.to_dict() for link in links),
        audit=_audit(store, episode_id, limit, verify=verify, since=_since(store, episode)),
        worth=worth_counts(store, "episode", episode_id),
    )
