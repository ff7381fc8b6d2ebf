"""``validated_save_continuity``: the wrap's save as a pipeline of named steps.

The store is entered twice: once to read, once to write.

1. ``gather`` (``_gather``, one ``store.reading``): find the open wrap, check the token and
   the gate, run the draft's first checks, and read what judging it needs.
2. ``_judge_draft`` (pure): graduation of every pattern line, the uncorroborated rule, checks
   across lines, hard maximum.
3. ``_commit``: under the continuity lock, one ``store.writing`` transaction re-checks the
   gate, closes the wrap (only if it is still open with this token), marks the snapshot's
   episodes, records pattern history, the ``[supersedes:]`` links and the associations of
   the validated citations (``_link_deltas``), stages the audit entries, and writes the
   continuity text (``store.continuity_place()``: the file, atomically, just before
   ``COMMIT`` on SQLite; the row, in the same transaction, on PostgreSQL). The entries are
   appended to the trail after the commit.

A refusal raises :class:`ContinuityRejectedError`: nothing is written and the wrap stays open
(its lease is renewed, with the refusal's audit entry, in a transaction of its own: the owner
is still at work).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from anneal_memory._clock import format_timestamp
from anneal_memory.associations import Affect, association_deltas
from anneal_memory.continuity import _judge, _updates
from anneal_memory.continuity._gather import (
    NO_WRAP_MESSAGE,
    Facts,
    SaveContext,
    SaveRequest,
    gather,
)
from anneal_memory.continuity._lease import lease_end
from anneal_memory.continuity._prepare import validate_session_id
from anneal_memory.continuity._results import SaveResult
from anneal_memory.document import _document
from anneal_memory.errors import (
    ContinuityRejectedError,
    InvalidInputError,
    NoWrapInProgressError,
    StoreDatabaseError,
    StoreError,
)
from anneal_memory.gate import recheck_save
from anneal_memory.immune._graduation import (
    GraduationContext,
    PriorPattern,
    validated_citations,
)
from anneal_memory.immune._outside import outside_words
from anneal_memory.immune._report import Finding, Severity
from anneal_memory.probes._ops import check_probes
from anneal_memory.probes._types import DriftReport
from anneal_memory.store.wraps import (
    AssociationCounts,
    apply_associations,
    complete_wrap,
    renew_lease,
    restore_interrupted,
    save_patterns,
    saves_so_far,
)

if TYPE_CHECKING:
    from anneal_memory.store import Store, Tx

__all__ = ["NO_WRAP_MESSAGE", "validated_save_continuity"]


def _judge_draft(draft: _judge.Draft, ctx: SaveContext, facts: Facts) -> None:
    # A recalled copy is its original's evidence, not new evidence: it grounds nothing; nor
    # does an episode restating the continuity the session loaded (``_restated``).
    citable = {
        i: t for i, t in facts.citable.items() if i not in facts.copies and i not in facts.restated
    }
    _judge.note_copies(draft, facts.copies, facts.restated)
    # Labelled as the model wrote them, before graduation rewrites levels and evidence.
    _judge.label_data_lines(draft, ctx.snapshot, facts.trusts)
    graduation = GraduationContext(
        today=ctx.wrap.today,
        snapshot=citable,
        known_ids=facts.exists,
        prior=facts.prior,
        first_wrap=ctx.first_wrap,
    )
    _judge.apply_graduation(draft, graduation)
    # Agent text carrying words an outside episode brought this wrap counts at its trust.
    derived = outside_words(ctx.snapshot, facts.trusts, ctx.prior_text)
    trusts = {**facts.trusts, **{i: facts.trusts[d.source] for i, d in derived.items()}}
    _updates.apply_corroboration(draft, trusts, citable, facts.superseded)
    _judge.note_outside_words(draft, derived, facts.trusts)
    _judge.check_document(draft, facts.prior, facts.exists)
    _judge.check_hard_max(draft)
    draft.prior = facts.prior


@dataclass(frozen=True, slots=True, kw_only=True)
class _Written:
    text: str
    sha256: str
    marked: int
    graduations: int
    demotions: int
    counts: AssociationCounts
    drift: DriftReport


def _tally(draft: _judge.Draft, prior: Mapping[str, PriorPattern]) -> tuple[int, int]:
    graduations = 0
    demotions = 0
    for verdict in draft.verdicts:
        old = prior.get(verdict.line.identity)
        if verdict.validated and verdict.level >= 2 and (old is None or verdict.level > old.level):
            graduations += 1
        if any(f.severity is Severity.DEMOTION for f in verdict.findings):
            demotions += 1
    return graduations, demotions


def _link_deltas(
    draft: _judge.Draft, ctx: SaveContext, affect: Affect | None
) -> dict[tuple[str, str], float]:
    """Association strength to add: only citations validated this wrap link episodes."""
    return association_deltas(validated_citations(draft.verdicts), ctx.snapshot, affect)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Plan:
    """What the commit writes, computed before the transaction opens."""

    text: str
    digest: str
    graduations: int
    demotions: int
    deltas: dict[tuple[str, str], float]
    affect_row: tuple[str, float] | None
    trailed: _Trailed


def _plan(draft: _judge.Draft, ctx: SaveContext, affect: Affect | None, how: _Trailed) -> _Plan:
    text = _document.render(draft.document)
    graduations, demotions = _tally(draft, draft.prior)
    return _Plan(
        text=text,
        digest=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        graduations=graduations,
        demotions=demotions,
        deltas=_link_deltas(draft, ctx, affect),
        affect_row=None if affect is None else (affect.tag, float(affect.intensity)),
        trailed=how,
    )


def _write(
    tx: Tx, store: Store, draft: _judge.Draft, ctx: SaveContext, *, links: _updates.WrapLinks,
    plan: _Plan,
) -> _Written:  # fmt: skip
    """Everything the save changes, inside its transaction (the continuity text last)."""
    conn = tx.conn
    recheck_save(conn, wrap_session=ctx.wrap.session_id, open_token=ctx.wrap.token)
    save_no = saves_so_far(conn) + 1
    marked = complete_wrap(
        conn,
        ctx.wrap,
        completed_at=format_timestamp(store.clock.now()),
        sha256=plan.digest,
        chars=len(plan.text),
        graduations=plan.graduations,
        demotions=plan.demotions,
        finding_counts=plan.trailed.finding_codes,
        affect=plan.affect_row,
        save_no=save_no,
    )
    if marked < 0:
        raise NoWrapInProgressError(NO_WRAP_MESSAGE)
    save_patterns(conn, ctx.wrap.id, draft.verdicts, draft.today, ctx.wrap.scope)
    _updates.write_links(conn, links, now=format_timestamp(store.clock.now()))
    counts = apply_associations(conn, ctx.wrap.id, save_no, plan.deltas, plan.affect_row)
    drift = check_probes(  # never raises: a probe never blocks a save
        tx, plan.text, scope=ctx.wrap.scope, wrap_id=ctx.wrap.id,
        now=format_timestamp(store.clock.now()),
    )  # fmt: skip
    written = _Written(
        text=plan.text,
        sha256=plan.digest,
        marked=marked,
        graduations=plan.graduations,
        demotions=plan.demotions,
        counts=counts,
        drift=drift,
    )
    _stage(tx, ctx, written, plan.trailed)
    _updates.stage_links(tx, links, actor=plan.trailed.actor)
    place = ctx.place
    try:
        place.write(conn, plan.text, now=format_timestamp(store.clock.now()))
    except OSError as exc:  # the transaction rolls back: nothing was saved
        raise StoreError(
            f"save_continuity failed: could not write {place.label}: "
            f"{exc.strerror or exc}; nothing was saved and the wrap stays open",
            operation="save_continuity",
            path=place.label if isinstance(place.label, Path) else None,
        ) from exc
    return written


def _commit(
    store: Store, draft: _judge.Draft, ctx: SaveContext, links: _updates.WrapLinks, plan: _Plan
) -> _Written:
    place = ctx.place
    with place.lock():
        # Until the text before this save is read, an undo has nothing to put back: writing
        # ``plan.text`` over a file that holds ``plan.text`` changes nothing.
        previous: str | None = plan.text
        try:
            with store.writing("save_continuity") as tx:
                restore_interrupted(tx, place)  # a save killed before its commit, first
                previous = place.read(tx.conn)
                written = _write(tx, store, draft, ctx, links=links, plan=plan)
        except StoreDatabaseError:
            place.undo(previous, plan.text)
            raise
        place.committed()
        return written


def _renew_lease(store: Store, ctx: SaveContext, refusal: _judge.Refusal) -> None:
    """A refused save is the owner still at work: its wrap's lease starts again.

    The refusal's audit entry commits with the renewal (the store flushes the commit to disk
    when a trail file gets the entry).
    """
    with store.writing("save_continuity", durable=False) as tx:
        renew_lease(tx.conn, ctx.wrap, until=lease_end(store.clock.now()))
        tx.audit(
            "continuity_refused",
            actor="agent",
            data={"wrap_id": ctx.wrap.id, "code": refusal.finding.code.value},
        )


def _refused(
    store: Store, ctx: SaveContext, draft_findings: list[Finding], refusal: _judge.Refusal
) -> ContinuityRejectedError:
    findings = (*draft_findings, refusal.finding)
    _renew_lease(store, ctx, refusal)
    return ContinuityRejectedError(refusal.finding.message, findings=findings)


def _result(store: Store, draft: _judge.Draft, ctx: SaveContext, written: _Written) -> SaveResult:
    spread = {
        i
        for v in draft.verdicts
        if v.line.date == draft.today and v.line.level >= 2
        for i in v.line.evidence_ids
        if i in ctx.snapshot
    }
    return SaveResult(
        path=ctx.place.label,
        chars=len(written.text),
        wrap_id=ctx.wrap.id,
        episodes_compressed=written.marked,
        graduations_validated=written.graduations,
        demotions=written.demotions,
        findings=tuple(draft.findings),
        citation_spread=len(spread),
        sha256=written.sha256,
        sections={s.title: s.chars for s in draft.document.sections},
        associations_formed=written.counts.formed,
        associations_strengthened=written.counts.strengthened,
        associations_decayed=written.counts.decayed,
        associations_pruned=written.counts.pruned,
        drift=written.drift.to_dict() if written.drift.checks else {},
    )


@dataclass(frozen=True, slots=True)
class _Trailed:
    actor: str
    allow_shrink: bool
    finding_codes: dict[str, int]


def _stage(tx: Tx, ctx: SaveContext, written: _Written, how: _Trailed) -> None:
    """The save's audit entries, staged in its transaction: committed with it or not at all."""
    tx.audit(
        "wrap_completed",
        actor=how.actor,
        data={
            "wrap_id": ctx.wrap.id,
            "wrap_token_prefix": ctx.wrap.token[:8],
            "episodes_compressed": written.marked,
            "graduations_validated": written.graduations,
            "demotions": written.demotions,
        },
    )
    tx.audit(
        "continuity_saved",
        actor=how.actor,
        data={
            "wrap_id": ctx.wrap.id,
            "chars": len(written.text),
            "content_hash": "sha256:" + written.sha256,
            "allow_shrink": how.allow_shrink,
            "findings": how.finding_codes,
            **({"drift": written.drift.to_dict()} if written.drift.checks else {}),
        },
    )
    counts = written.counts
    tx.audit(
        "associations_updated",
        actor=how.actor,
        data={
            "wrap_id": ctx.wrap.id,
            "formed": counts.formed,
            "strengthened": counts.strengthened,
            "decayed": counts.decayed,
            "pruned": counts.pruned,
        },
    )


def validated_save_continuity(
    store: Store,
    text: str,
    *,
    wrap_token: str | None = None,
    session_id: str | None = None,
    allow_shrink: bool = False,
    affect: Affect | None = None,
    scope: str | None = None,
) -> SaveResult:
    """Check the compressed continuity with the immune system and save it.

    The save closes the open wrap of ``scope`` and writes that scope's continuity file.

    Args:
        store: The store with an open wrap.
        text: The new continuity markdown the model wrote from the package.
        wrap_token: The token ``prepare_wrap`` returned; checked when given.
        session_id: The saving session (recorded in the audit trail).
        allow_shrink: Let a save shrink an identity-layer schema's protected sections.
        affect: The compressor's affective state; weights new associations.
        scope: The scope whose open wrap is saved. None (the default): the open wrap whose
            token is ``wrap_token``, or scope "" when no token is given.

    Returns:
        What was written and every finding.

    Raises:
        NoWrapInProgressError: No wrap is open (or this one was already saved).
        WrapTokenMismatchError: ``wrap_token`` is not the open wrap's.
        ContinuityRejectedError: The text was refused (``.findings`` say why); nothing was
            written and the wrap stays open.
        SaveAuthorityError: On a baton-protected store, the save is not from the session
            that prepared the wrap, or that session lost the baton since.
    """
    session_id = validate_session_id(session_id)
    if affect is not None and not isinstance(affect, Affect):
        raise InvalidInputError("affect must be an Affect(tag=..., intensity=...)")
    request = SaveRequest(
        text=text,
        wrap_token=wrap_token,
        session_id=session_id,
        scope=scope,
        allow_shrink=allow_shrink,
    )
    found = gather(store, request)
    ctx, draft = found.ctx, found.draft
    try:
        if isinstance(found.facts, _judge.Refusal):
            raise found.facts
        facts = found.facts
        _judge_draft(draft, ctx, facts)
    except _judge.Refusal as refusal:
        raise _refused(store, ctx, draft.findings, refusal) from None
    links = facts.links
    codes = dict(Counter(f.code.value for f in draft.findings))
    how = _Trailed(session_id or "agent", allow_shrink, codes)
    written = _commit(store, draft, ctx, links, _plan(draft, ctx, affect, how))
    draft.findings.extend(links.findings())
    return _result(store, draft, ctx, written)
