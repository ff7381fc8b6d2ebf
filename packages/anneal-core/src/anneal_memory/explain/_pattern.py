"""``explain_pattern``: a pattern's level over every wrap, the rule behind each step, its proof.

Assembled from reads only: the pattern's summary and history rows (``anneal_memory.store.wraps``),
the wraps' snapshots, the current continuity line, the episodes it cites, the crystal of the
same name, the audit entries of its wraps, its worth counts and the probes on it. The
immune system's own word lists and thresholds (``immune._grounding``) recompute which words
an explanation shares with an episode, so the explanation says what the judge saw.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from anneal_memory.audit import field_needles
from anneal_memory.document._markers import PatternLine, parse_pattern_line
from anneal_memory.explain._audit import audit_slice
from anneal_memory.explain._checks import check_limit, check_name, check_scope
from anneal_memory.explain._cited import cite, episode_facts, grounds
from anneal_memory.explain._rules import outcome_of, rules_of
from anneal_memory.explain._types import AuditSlice, CitedEpisode, PatternExplanation, PatternStep
from anneal_memory.explain._worth import pattern_probes, worth_counts
from anneal_memory.store.provenance import episode_place
from anneal_memory.store.wraps import (
    PatternStepRow,
    pattern_row,
    pattern_steps,
    snapshot_page,
)

if TYPE_CHECKING:
    from anneal_memory.store import Store

__all__ = ["MAX_RECOMPUTED", "SNAPSHOT_READ", "explain_pattern"]

SNAPSHOT_READ = 2000
"""The most episodes of one wrap's snapshot read to recompute a step's grounding."""
MAX_RECOMPUTED = 50
"""The most grounding episodes a recomputed step lists."""
_AUDIT_LIMIT = 50
_CORROBORATING = frozenset({"agent", "operator"})


def _current_line(store: Store, identity: str, scope: str) -> PatternLine | None:
    for raw in (store.load_continuity(scope) or "").splitlines():
        line = parse_pattern_line(raw)
        if line is not None and line.identity == identity:
            return line
    return None


def _snapshots(
    store: Store, scope: str, rows: Sequence[PatternStepRow]
) -> dict[int, list[tuple[str, str]]]:
    """Each validated step's snapshot (one more than read, to tell a truncation)."""
    wanted = {
        row.wrap_id: row for row in rows if row.validated and row.explanation and not row.cited_ids
    }
    with store.reading("explain pattern") as r:
        return {
            wrap_id: snapshot_page(
                r.conn, scope, row.after_seq, row.through_seq, limit=SNAPSHOT_READ + 1
            )
            for wrap_id, row in wanted.items()
        }


def _step(
    row: PatternStepRow,
    prior: PatternStepRow | None,
    cited: tuple[CitedEpisode, ...],
    source: str | None,
    truncated: bool,
) -> PatternStep:
    outcome = outcome_of(row, None if prior is None else prior.level)
    grounding = [c for c in cited if c.grounds]
    corroborated = None
    if outcome == "validated":
        corroborated = any((c.effective_trust or "") in _CORROBORATING for c in grounding)
    return PatternStep(
        wrap_id=row.wrap_id,
        day=row.today,
        completed_at=row.completed_at,
        line_date=row.line_date,
        level=row.level,
        claimed_level=row.claimed_level,
        outcome=outcome,
        rules=rules_of(row, outcome, None if prior is None else prior.level),
        explanation=row.explanation,
        citations=source,
        cited=cited,
        snapshot_truncated=truncated,
        corroborated=corroborated,
    )


def _citations(
    row: PatternStepRow,
    newest: bool,
    line: PatternLine | None,
    snapshot: list[tuple[str, str]] | None,
) -> tuple[list[str], str, str | None]:
    """The ids a step cites, the explanation they are measured against, and the source."""
    if newest and line is not None and line.has_evidence and line.date == row.today:
        return list(line.evidence_ids), line.explanation, "continuity"
    if row.cited_ids:
        return list(row.cited_ids), row.explanation, "history"
    if snapshot is not None and row.validated and row.explanation:
        ids = [i for i, text in snapshot[:SNAPSHOT_READ] if grounds(row.explanation, text)]
        return ids[:MAX_RECOMPUTED], row.explanation, "recomputed"
    return [], "", None


def _members(store: Store, scope: str, row: PatternStepRow, ids: Sequence[str]) -> set[str]:
    """Which of ``ids`` belong to the snapshot of ``row``'s wrap (its scope and seq range)."""
    found = set()
    with store.reading("explain pattern") as r:
        for ident in ids:
            place = episode_place(r.conn, ident)
            inside = place is not None and row.after_seq < place.seq <= row.through_seq
            if inside and place is not None and place.scope == scope:
                found.add(ident)
    return found


def _steps(
    store: Store, scope: str, rows: Sequence[PatternStepRow], line: PatternLine | None
) -> tuple[PatternStep, ...]:
    snapshots = _snapshots(store, scope, rows)
    facts_wanted: set[str] = set()
    plans = []
    for index, row in enumerate(rows):
        snapshot = snapshots.get(row.wrap_id)
        ids, explanation, source = _citations(row, index == 0, line, snapshot)
        exact = source in {"continuity", "history"}
        members = _members(store, scope, row, ids) if exact else set(ids)
        facts_wanted.update(ids)
        truncated = snapshot is not None and len(snapshot) > SNAPSHOT_READ
        plans.append((row, ids, explanation, source, members, truncated))
    facts = episode_facts(store, facts_wanted)
    steps = []
    for index, (row, ids, explanation, source, members, truncated) in enumerate(plans):
        judged = set(row.validated_ids) if row.cited_ids else None
        cited = tuple(
            cite(
                i, explanation, facts.get(i), i in members, None if judged is None else i in judged
            )
            for i in ids
        )
        prior = rows[index + 1] if index + 1 < len(rows) else None
        steps.append(_step(row, prior, cited, source, truncated))
    return tuple(steps)


def _crystal(store: Store, name: str) -> dict[str, Any] | None:
    from anneal_memory.crystal import get_crystal
    from anneal_memory.errors import CrystalNotFoundError, InvalidCrystalError

    try:
        found = get_crystal(store, name)
    except (CrystalNotFoundError, InvalidCrystalError):
        return None
    return {
        "name": found.name,
        "level": found.level,
        "status": "crystallized" if found.live else "retired",
        "evidence": list(found.evidence),
        "crystallized_on": found.crystallized_on,
    }


def _audit(
    store: Store, steps: Sequence[PatternStepRow], crystal: str | None, *, verify: bool
) -> AuditSlice:
    needles = field_needles("wrap_id", [s.wrap_id for s in steps])
    since = min((s.started_at for s in steps), default=None)
    if crystal is not None:
        needles += field_needles("name", [crystal])
        since = None  # a crystal's entries may be older than the wraps shown
    return audit_slice(store, needles, limit=_AUDIT_LIMIT, since=since, verify=verify)


def explain_pattern(
    store: Store, name: str, *, scope: str = "", limit: int = 20, verify: bool = True
) -> PatternExplanation:
    """How pattern ``name`` of ``scope`` came to its level, newest wrap first.

    Args:
        store: The store (only read).
        name: The pattern's name (matched case-insensitively, as pattern history keys it).
        scope: The scope whose continuity holds it ("" is the shared one).
        limit: Explain at most this many of its newest steps (``more_steps`` says if more)
            and list at most this many of the probes on it.
        verify: Also walk the audit chain and attach its verdict.

    Raises:
        InvalidInputError: ``name``, ``scope`` or ``limit`` is not valid.
    """
    name, scope = check_name(name), check_scope(scope)
    limit = check_limit(limit)
    identity = name.casefold()
    with store.reading("explain pattern") as r:
        summary = pattern_row(r.conn, identity, scope)
        rows = [] if summary is None else pattern_steps(r.conn, identity, scope, limit=limit + 1)
    if summary is None:
        return PatternExplanation(name=name, identity=identity, scope=scope, found=False)
    line = _current_line(store, identity, scope)
    crystal = _crystal(store, summary.name)
    shown = rows[:limit]
    audit = _audit(
        store,
        shown,
        None if crystal is None else summary.name,
        verify=verify,
    )
    probes, probes_total = pattern_probes(store, identity, scope, limit)
    return PatternExplanation(
        name=summary.name,
        identity=identity,
        scope=scope,
        found=True,
        level=summary.level,
        max_level=summary.max_level,
        first_wrap_id=summary.first_wrap_id,
        last_wrap_id=summary.last_wrap_id,
        last_grounded=summary.last_grounded,
        line=None if line is None else line.raw,
        steps=_steps(store, scope, rows, line)[:limit],
        more_steps=len(rows) > limit,
        crystal=crystal,
        audit=audit,
        worth=worth_counts(store, "pattern", summary.name),
        probes=probes,
        probes_total=probes_total,
    )
