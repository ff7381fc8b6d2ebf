"""``validated_save_continuity``: the wrap's save as a pipeline of named steps.

1. ``_open_wrap``: find the open wrap and check the token (read only).
2. Pure steps (``_judge``): text check, structure, level claims, durable carry-forward, shrink gate,
   graduation of every pattern line, checks across lines, hard maximum.
3. ``_commit``: under the continuity lock, one SQLite transaction closes the wrap (only if
   it is still open with this token), marks the snapshot's episodes, records pattern
   history and the associations of the validated citations (``_link_deltas``), and writes
   the continuity text (``store.continuity_place()``: the file, atomically, just before
   ``COMMIT`` on SQLite; the row, in the same transaction, on PostgreSQL).
4. Audit events, after the commit.

A refusal raises :class:`ContinuityRejectedError`: nothing is written and the wrap stays open
(its lease is renewed: the owner is still at work).
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from anneal_memory._clock import format_timestamp
from anneal_memory.associations import Affect, association_deltas
from anneal_memory.continuity import _judge, _updates
from anneal_memory.continuity._file import wrap_scope
from anneal_memory.continuity._lease import lease_end
from anneal_memory.continuity._prepare import validate_session_id
from anneal_memory.continuity._results import SaveResult
from anneal_memory.document import _document
from anneal_memory.document._schema import schema_by_name
from anneal_memory.errors import (
    ContinuityRejectedError,
    InvalidInputError,
    NoWrapInProgressError,
    StoreDatabaseError,
    StoreError,
    WrapTokenMismatchError,
)
from anneal_memory.gate import check_save, recheck_save
from anneal_memory.immune._graduation import (
    GraduationContext,
    PriorPattern,
    validated_citations,
)
from anneal_memory.immune._report import Finding, Severity
from anneal_memory.store import Store
from anneal_memory.store._target import file_of
from anneal_memory.store.sqlite._connection import write_transaction
from anneal_memory.store.wraps._patterns import (
    AssociationCounts,
    apply_associations,
    load_prior,
    save_patterns,
)
from anneal_memory.store.wraps._place import ContinuityPlace
from anneal_memory.store.wraps._rows import (
    WrapRecord,
    complete_wrap,
    existing_ids,
    find_open_wrap,
    last_completed_wrap_id,
    renew_lease,
    saves_so_far,
    snapshot_texts,
)

__all__ = ["NO_WRAP_MESSAGE", "validated_save_continuity"]

NO_WRAP_MESSAGE = (
    "No wrap in progress: nothing to save. If this session already saved its wrap, it is "
    "done; a second save needs a new prepare_wrap first"
)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Context:
    wrap: WrapRecord
    place: ContinuityPlace
    snapshot: Mapping[str, str]
    prior_text: str | None
    first_wrap: bool
    last_wrap_id: int | None


def _short(token: str) -> str:
    return token[:8] + "..."


def _open_wrap(store: Store, wrap_token: str | None, scope: str | None) -> _Context:
    if wrap_token is not None and not isinstance(wrap_token, str):
        raise InvalidInputError(f"wrap_token must be a string, got {type(wrap_token).__name__}")
    scope = None if scope is None else wrap_scope(scope)
    with store._lock:
        conn = store.connection("save_continuity")
        wrap = find_open_wrap(conn, scope, wrap_token)
        if wrap is None:
            raise NoWrapInProgressError(NO_WRAP_MESSAGE)
        if wrap_token is not None and wrap_token != wrap.token:
            raise WrapTokenMismatchError(
                f"wrap_token mismatch: this save carried {_short(wrap_token)}, which is not "
                "the open wrap's token; use the token of the latest prepare"
            )
        snapshot = snapshot_texts(conn, wrap)
        last = last_completed_wrap_id(conn, wrap.scope)
        place = store.continuity_place(wrap.scope)
        prior_text = place.read(conn)
    return _Context(
        wrap=wrap,
        place=place,
        snapshot=snapshot,
        prior_text=prior_text,
        first_wrap=last is None,
        last_wrap_id=last,
    )


def _history(
    store: Store, draft: _judge.Draft, ctx: _Context
) -> tuple[dict[str, PriorPattern], frozenset[str]]:
    lines = [line for _i, _j, line in _judge.pattern_lines(draft)]
    cited = {i for line in lines for i in line.evidence_ids}
    # Snapshot ids were just read joined to their live episodes: only the others are looked up.
    in_snapshot = {i for i in cited if i in ctx.snapshot}
    with store._lock:
        conn = store.connection("save_continuity")
        prior = load_prior(
            conn, {line.identity for line in lines}, ctx.last_wrap_id, ctx.wrap.scope
        )
        others = cited - in_snapshot
        exists = existing_ids(conn, others, ctx.wrap.scope) if others else frozenset()
    return prior, exists | in_snapshot


def _judge_draft(
    store: Store, draft: _judge.Draft, ctx: _Context, *, allow_shrink: bool
) -> _updates.WrapLinks:
    _judge.check_text(draft)
    _judge.check_structure(draft)
    _judge.check_level_claims(draft)
    _judge.carry_durable(draft)
    _judge.check_shrink(draft, allow_shrink=allow_shrink)
    links, citable, superseded = _updates.begin_links(store, draft, ctx.snapshot, ctx.wrap.scope)
    prior, exists = _history(store, draft, ctx)
    graduation = GraduationContext(
        today=ctx.wrap.today,
        snapshot=citable,
        known_ids=exists,
        prior=prior,
        first_wrap=ctx.first_wrap,
    )
    _judge.apply_graduation(draft, graduation)
    _updates.corroborate(store, draft, citable, superseded)
    _judge.check_document(draft, prior, exists)
    _judge.check_hard_max(draft)
    draft.prior = prior
    return links


@dataclass(frozen=True, slots=True, kw_only=True)
class _Written:
    text: str
    sha256: str
    marked: int
    graduations: int
    demotions: int
    counts: AssociationCounts


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
    draft: _judge.Draft, ctx: _Context, affect: Affect | None
) -> dict[tuple[str, str], float]:
    """Association strength to add: only citations validated this wrap link episodes."""
    return association_deltas(validated_citations(draft.verdicts), ctx.snapshot, affect)


def _commit(
    store: Store,
    draft: _judge.Draft,
    ctx: _Context,
    affect: Affect | None,
    links: _updates.WrapLinks,
    *,
    actor: str,
    allow_shrink: bool,
) -> _Written:
    text = _document.render(draft.document)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    graduations, demotions = _tally(draft, draft.prior)
    deltas = _link_deltas(draft, ctx, affect)
    affect_row = None if affect is None else (affect.tag, float(affect.intensity))
    codes = dict(Counter(f.code.value for f in draft.findings))
    place = ctx.place
    with place.lock(), store._lock:
        conn = store.connection("save_continuity")
        previous = place.read(conn)
        try:
            with write_transaction(conn, operation="save_continuity", path=file_of(store)):
                recheck_save(conn, wrap_session=ctx.wrap.session_id, open_token=ctx.wrap.token)
                save_no = saves_so_far(conn) + 1
                marked = complete_wrap(
                    conn,
                    ctx.wrap,
                    completed_at=format_timestamp(store.clock.now()),
                    sha256=digest,
                    chars=len(text),
                    graduations=graduations,
                    demotions=demotions,
                    finding_counts=codes,
                    affect=affect_row,
                    save_no=save_no,
                )
                if marked < 0:
                    raise NoWrapInProgressError(NO_WRAP_MESSAGE)
                save_patterns(conn, ctx.wrap.id, draft.verdicts, draft.today, ctx.wrap.scope)
                _updates.write_links(conn, links, now=format_timestamp(store.clock.now()))
                counts = apply_associations(conn, ctx.wrap.id, save_no, deltas, affect_row)
                written = _Written(
                    text=text,
                    sha256=digest,
                    marked=marked,
                    graduations=graduations,
                    demotions=demotions,
                    counts=counts,
                )
                _stage(store, conn, ctx, written, _Trailed(actor, allow_shrink, codes))
                _updates.stage_links(store, conn, links, actor=actor)
                try:
                    place.write(conn, text, now=format_timestamp(store.clock.now()))
                except OSError as exc:  # the transaction rolls back: nothing was saved
                    raise StoreError(
                        f"save_continuity failed: could not write {place.label}: "
                        f"{exc.strerror or exc}; nothing was saved and the wrap stays open",
                        operation="save_continuity",
                        path=place.label if isinstance(place.label, Path) else None,
                    ) from exc
        except StoreDatabaseError:
            place.undo(previous, text)
            raise
        store.flush_audit()
    return written


def _renew_lease(store: Store, ctx: _Context, refusal: _judge.Refusal) -> None:
    """A refused save is the owner still at work: its wrap's lease starts again.

    The refusal's audit entry commits with the renewal (durably when a trail file gets it
    after the commit).
    """
    with store._lock:
        conn = store.connection("save_continuity")
        with write_transaction(
            conn,
            operation="save_continuity",
            path=file_of(store),
            durable=store.audit_after_commit,
        ):
            renew_lease(conn, ctx.wrap, until=lease_end(store.clock.now()))
            store.stage_audit(
                conn,
                "continuity_refused",
                actor="agent",
                data={"wrap_id": ctx.wrap.id, "code": refusal.finding.code.value},
            )
        store.flush_audit()


def _refused(
    store: Store, ctx: _Context, draft_findings: list[Finding], refusal: _judge.Refusal
) -> ContinuityRejectedError:
    findings = (*draft_findings, refusal.finding)
    _renew_lease(store, ctx, refusal)
    return ContinuityRejectedError(refusal.finding.message, findings=findings)


def _result(store: Store, draft: _judge.Draft, ctx: _Context, written: _Written) -> SaveResult:
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
    )


@dataclass(frozen=True, slots=True)
class _Trailed:
    actor: str
    allow_shrink: bool
    finding_codes: dict[str, int]


def _stage(
    store: Store, conn: sqlite3.Connection, ctx: _Context, written: _Written, how: _Trailed
) -> None:
    """The save's audit entries, staged in its transaction: committed with it or not at all."""
    store.stage_audit(
        conn,
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
    store.stage_audit(
        conn,
        "continuity_saved",
        actor=how.actor,
        data={
            "wrap_id": ctx.wrap.id,
            "chars": len(written.text),
            "content_hash": "sha256:" + written.sha256,
            "allow_shrink": how.allow_shrink,
            "findings": how.finding_codes,
        },
    )
    counts = written.counts
    store.stage_audit(
        conn,
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
    ctx = _open_wrap(store, wrap_token, scope)
    check_save(
        store,
        wrap_token=wrap_token,
        wrap_session=ctx.wrap.session_id,
        session_id=session_id,
        open_token=ctx.wrap.token,
    )
    draft = _judge.Draft(
        text=text,
        schema=schema_by_name(ctx.wrap.schema_name),
        today=ctx.wrap.today,
        max_chars=ctx.wrap.max_chars,
        prior_text=ctx.prior_text,
    )
    try:
        links = _judge_draft(store, draft, ctx, allow_shrink=allow_shrink)
    except _judge.Refusal as refusal:
        raise _refused(store, ctx, draft.findings, refusal) from None
    actor = session_id or "agent"
    written = _commit(store, draft, ctx, affect, links, actor=actor, allow_shrink=allow_shrink)
    draft.findings.extend(links.findings())
    return _result(store, draft, ctx, written)
