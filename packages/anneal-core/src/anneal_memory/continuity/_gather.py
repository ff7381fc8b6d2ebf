"""The validated save's one read: the open wrap, the gate, and what judging the draft needs.

:func:`gather` runs inside one ``store.reading`` unit: it finds the open wrap and checks the
token and the gate, runs the draft's first pure checks (text, structure, level claims, the
durable carry-forward, the shrink gate: later reads depend on the document they leave), and
reads everything the rest of the judging needs (the ``[supersedes:]`` links, superseded
snapshot episodes, pattern history, cited ids outside the snapshot, effective trusts). The
judging itself then runs without the store (``_save``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from anneal_memory.continuity import _judge, _updates
from anneal_memory.continuity._file import wrap_scope
from anneal_memory.continuity._restated import restated_lines
from anneal_memory.document._schema import schema_by_name
from anneal_memory.errors import InvalidInputError, NoWrapInProgressError, WrapTokenMismatchError
from anneal_memory.gate import check_save
from anneal_memory.store.provenance import recalled_copies, trusts_and_sources
from anneal_memory.store.wraps import (
    ContinuityPlace,
    Snapshot,
    WrapRecord,
    existing_ids,
    find_open_wrap,
    last_completed_wrap_id,
    load_prior,
    read_snapshot,
)

if TYPE_CHECKING:
    from anneal_memory.immune._graduation import PriorPattern
    from anneal_memory.store import SqlConnection, Store
    from anneal_memory.types import Trust

__all__ = ["NO_WRAP_MESSAGE", "Facts", "Gathered", "SaveContext", "SaveRequest", "gather"]

NO_WRAP_MESSAGE = (
    "No wrap in progress: nothing to save. If this session already saved its wrap, it is "
    "done; a second save needs a new prepare_wrap first"
)


@dataclass(frozen=True, slots=True, kw_only=True)
class SaveRequest:
    """What the caller of the save passed (checked)."""

    text: str
    wrap_token: str | None
    session_id: str | None
    scope: str | None
    allow_shrink: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class SaveContext:
    """The open wrap being saved and what the store held for it.

    ``snapshot`` is id -> text of the snapshot's live episodes; ``read`` is the one read of
    them it came from (their replacements and provenance columns too).
    """

    wrap: WrapRecord
    place: ContinuityPlace
    snapshot: Mapping[str, str]
    read: Snapshot
    prior_text: str | None
    first_wrap: bool
    last_wrap_id: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Facts:
    """What the store said about the draft: links, superseded ids, history, trusts.

    ``trusts`` are the effective trusts of the citable and the snapshot episodes;
    ``copies`` maps each snapshot episode that repeats an episode recall showed (it derives
    from it, near word for word, or an exposure of the wrap's session showed that episode
    before it was recorded) to that episode; ``restated`` maps each snapshot episode that
    repeats a line of the continuity in place (``_restated``) to that line. Neither is
    grounding evidence.
    """

    links: _updates.WrapLinks
    citable: Mapping[str, str]
    superseded: Mapping[str, str]
    prior: dict[str, PriorPattern]
    exists: frozenset[str]
    trusts: Mapping[str, Trust]
    copies: Mapping[str, str]
    restated: Mapping[str, str]


@dataclass(frozen=True, slots=True, kw_only=True)
class Gathered:
    """The read's outcome: the wrap, the draft, and its facts or the first checks' refusal."""

    ctx: SaveContext
    draft: _judge.Draft
    facts: Facts | _judge.Refusal


def _short(token: str) -> str:
    return token[:8] + "..."


def _open_wrap(conn: SqlConnection, store: Store, request: SaveRequest) -> SaveContext:
    wrap_token = request.wrap_token
    if wrap_token is not None and not isinstance(wrap_token, str):
        raise InvalidInputError(f"wrap_token must be a string, got {type(wrap_token).__name__}")
    scope = None if request.scope is None else wrap_scope(request.scope)
    wrap = find_open_wrap(conn, scope, wrap_token)
    if wrap is None:
        raise NoWrapInProgressError(NO_WRAP_MESSAGE)
    if wrap_token is not None and wrap_token != wrap.token:
        raise WrapTokenMismatchError(
            f"wrap_token mismatch: this save carried {_short(wrap_token)}, which is not "
            "the open wrap's token; use the token of the latest prepare"
        )
    last = last_completed_wrap_id(conn, wrap.scope)
    place = store.continuity_place(wrap.scope)
    read = read_snapshot(conn, wrap)
    return SaveContext(
        wrap=wrap,
        place=place,
        snapshot=read.texts,
        read=read,
        prior_text=place.read(conn),
        first_wrap=last is None,
        last_wrap_id=last,
    )


def _first_checks(draft: _judge.Draft, *, allow_shrink: bool) -> None:
    _judge.check_text(draft)
    _judge.check_structure(draft)
    _judge.check_level_claims(draft)
    _judge.carry_durable(draft)
    _judge.check_shrink(draft, allow_shrink=allow_shrink)


def _session_copies(conn: SqlConnection, ctx: SaveContext) -> dict[str, str]:
    """Snapshot episodes repeating what the wrap's session was shown (``worth``, #30)."""
    from anneal_memory.worth._session_copies import session_copies

    wrap = ctx.wrap
    return session_copies(
        conn,
        ctx.snapshot,
        scope=wrap.scope,
        session_id=wrap.session_id,
        since=None,
        until=wrap.started_at,
    )


def _facts(conn: SqlConnection, draft: _judge.Draft, ctx: SaveContext) -> Facts:
    links, citable, superseded = _updates.begin_links(
        conn, draft, ctx.snapshot, ctx.read.superseded, ctx.wrap.scope
    )
    lines = [line for _i, _j, line in _judge.pattern_lines(draft)]
    cited = {i for line in lines for i in line.evidence_ids}
    # Snapshot ids were just read joined to their live episodes: only the others are looked up.
    in_snapshot = {i for i in cited if i in ctx.snapshot}
    others = cited - in_snapshot
    exists = existing_ids(conn, others, ctx.wrap.scope) if others else frozenset()
    prior = load_prior(conn, {line.identity for line in lines}, ctx.last_wrap_id, ctx.wrap.scope)
    trusts, sources = trusts_and_sources(
        conn, set(citable) | set(ctx.snapshot), read=ctx.read.provenance
    )
    return Facts(
        links=links,
        citable=citable,
        superseded=superseded,
        prior=prior,
        exists=exists | in_snapshot,
        trusts=trusts,
        copies={**_session_copies(conn, ctx), **recalled_copies(conn, ctx.snapshot, sources)},
        restated=restated_lines(ctx.snapshot, ctx.prior_text),
    )


def gather(store: Store, request: SaveRequest) -> Gathered:
    """The save's one read (see the module docstring).

    Raises:
        NoWrapInProgressError: No wrap is open (or this one was already saved).
        WrapTokenMismatchError: ``wrap_token`` is not the open wrap's.
        SaveAuthorityError: The gate refuses this save.
    """
    with store.reading("save_continuity") as reader:
        conn = reader.conn
        ctx = _open_wrap(conn, store, request)
        check_save(
            conn,
            wrap_token=request.wrap_token,
            wrap_session=ctx.wrap.session_id,
            session_id=request.session_id,
            open_token=ctx.wrap.token,
        )
        draft = _judge.Draft(
            text=request.text,
            schema=schema_by_name(ctx.wrap.schema_name),
            today=ctx.wrap.today,
            max_chars=ctx.wrap.max_chars,
            prior_text=ctx.prior_text,
        )
        try:
            _first_checks(draft, allow_shrink=request.allow_shrink)
        except _judge.Refusal as refusal:
            return Gathered(ctx=ctx, draft=draft, facts=refusal)
        return Gathered(ctx=ctx, draft=draft, facts=_facts(conn, draft, ctx))
