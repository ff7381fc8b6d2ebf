"""``prepare_wrap``: freeze this session's episodes and build the package to compress."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence

from anneal_memory._clock import format_timestamp
from anneal_memory.continuity import _document
from anneal_memory.continuity._durable import parse_facts
from anneal_memory.continuity._file import continuity_path, read_continuity
from anneal_memory.continuity._markers import PatternLine, parse_pattern_line
from anneal_memory.continuity._package import render_instructions, render_package
from anneal_memory.continuity._results import PrepareResult, ProvenPattern, WrapPackage, WrapStatus
from anneal_memory.continuity._schema import SectionRole, SectionSchema
from anneal_memory.continuity._settings import current_schema
from anneal_memory.errors import InvalidInputError, WrapInProgressError
from anneal_memory.gate import authorize_prepare, bind_wrap
from anneal_memory.immune._checks import find_stale
from anneal_memory.store import Store
from anneal_memory.store._connection import write_transaction
from anneal_memory.store._wraps import insert_wrap, load_open_wrap, unwrapped_episodes
from anneal_memory.types import Episode

__all__ = ["MAX_MAX_CHARS", "MIN_MAX_CHARS", "prepare_wrap", "validate_session_id"]

MIN_MAX_CHARS = 1000
MAX_MAX_CHARS = 1_000_000
_MAX_SESSION_ID = 128


def validate_session_id(session_id: str | None) -> str | None:
    """Check a session id (1-128 printable characters) or None.

    Raises:
        InvalidInputError: It is not a short printable string.
    """
    if session_id is None:
        return None
    if (
        not isinstance(session_id, str)
        or not session_id.strip()
        or len(session_id) > _MAX_SESSION_ID
        or not session_id.isprintable()
    ):
        raise InvalidInputError(
            f"session_id must be 1-{_MAX_SESSION_ID} printable characters, got {session_id!r}"
        )
    return session_id


def _check_args(max_chars: int | None, staleness_days: int) -> None:
    if max_chars is not None and (
        isinstance(max_chars, bool)
        or not isinstance(max_chars, int)
        or not MIN_MAX_CHARS <= max_chars <= MAX_MAX_CHARS
    ):
        raise InvalidInputError(
            f"max_chars must be an integer from {MIN_MAX_CHARS} to {MAX_MAX_CHARS:,}, "
            f"got {max_chars!r}"
        )
    if (
        isinstance(staleness_days, bool)
        or not isinstance(staleness_days, int)
        or staleness_days < 1
    ):
        raise InvalidInputError(f"staleness_days must be an integer >= 1, got {staleness_days!r}")


def _in_progress(started_at: str) -> WrapInProgressError:
    return WrapInProgressError(
        f"a wrap is already in progress (started {started_at}). Finish it by saving the "
        "compressed continuity (validated_save_continuity, or `anneal-memory save-continuity "
        "FILE --wrap-token TOKEN`), or cancel it (wrap_cancel, or `anneal-memory wrap-cancel`); "
        "its episodes are kept either way",
        started_at=started_at,
    )


def graduating_lines(
    document: _document.ContinuityDocument, schema: SectionSchema
) -> list[tuple[int, PatternLine]]:
    """Pattern lines of the graduating sections with their 1-based line numbers."""
    found, _problems = _document.match_sections(document, schema)
    wanted = {
        found[s.heading] for s in schema.with_role(SectionRole.GRADUATING) if s.heading in found
    }
    out: list[tuple[int, PatternLine]] = []
    number = len(document.preamble)
    for index, section in enumerate(document.sections):
        number += 1
        for offset, raw in enumerate(section.lines, start=1):
            if index in wanted:
                parsed = parse_pattern_line(raw)
                if parsed is not None:
                    out.append((number + offset, parsed))
        number += len(section.lines)
    return out


def _durable_facts(
    document: _document.ContinuityDocument, schema: SectionSchema
) -> tuple[str, ...]:
    found, _problems = _document.match_sections(document, schema)
    facts: list[str] = []
    for spec in schema.with_role(SectionRole.DURABLE):
        section = _document.section_for(document, found, spec.heading)
        if section is not None:
            facts.extend("\n".join(f.lines) for f in parse_facts(section.lines))
    return tuple(facts)


def _proven(lines: Sequence[tuple[int, PatternLine]]) -> tuple[ProvenPattern, ...]:
    out: dict[str, ProvenPattern] = {}
    for _number, line in lines:
        if line.level >= 2:
            summary = line.explanation or "(no explanation)"
            out.setdefault(
                line.identity, ProvenPattern(name=line.name, level=line.level, summary=summary)
            )
    return tuple(out.values())


def build_package(
    episodes: Sequence[Episode],
    continuity: str | None,
    schema: SectionSchema,
    *,
    project: str,
    today: str,
    max_chars: int,
    staleness_days: int,
) -> WrapPackage:
    """Assemble the package (pure)."""
    document = _document.parse(continuity or "")
    lines = graduating_lines(document, schema)
    package = WrapPackage(
        episodes=tuple(episodes),
        continuity=continuity,
        stale_patterns=tuple(find_stale(lines, today, staleness_days)),
        proven_patterns=_proven(lines),
        durable_facts=_durable_facts(document, schema),
        instructions="",
        today=today,
        schema_name=schema.name,
        max_chars=max_chars,
        hard_max_chars=schema.hard_max_chars(max_chars),
    )
    return dataclasses.replace(package, instructions=render_instructions(schema, project, package))


def prepare_wrap(
    store: Store,
    *,
    session_id: str | None = None,
    max_chars: int | None = None,
    staleness_days: int = 7,
) -> PrepareResult:
    """Open a wrap: freeze the episodes recorded since the last wrap and build the package.

    The open-wrap marker and the frozen snapshot of episode ids are written in one
    transaction. Episodes recorded after this call belong to the next wrap.

    Args:
        store: The store.
        session_id: The preparing session, recorded on the wrap.
        max_chars: Size target for this wrap (default: the schema's target).
        staleness_days: Pattern lines at least this many days old are listed as stale.

    Returns:
        ``status="empty"`` when there is nothing to compress (nothing is opened), else
        ``status="ready"`` with the token, the package and its text.

    Raises:
        WrapInProgressError: A wrap is already open; save or cancel it first.
        InvalidInputError: An argument is invalid.
    """
    session_id = validate_session_id(session_id)
    _check_args(max_chars, staleness_days)
    decision = authorize_prepare(store, session_id)
    if not decision.allowed:
        return PrepareResult(
            status=WrapStatus.DOWNGRADED, message=decision.message, episode_count=decision.waiting
        )
    schema = current_schema(store)
    target = max_chars or schema.target_chars
    now = store.clock.now()
    started_at, today = format_timestamp(now), now.date().isoformat()
    token = os.urandom(16).hex()
    with store._lock:
        conn = store.connection("prepare_wrap")
        # Not flushed to disk: a power cut before the save's (durable) commit only leaves no
        # wrap open, which the save reports; no episode or continuity is at stake.
        with write_transaction(conn, operation="prepare_wrap", path=store.path, durable=False):
            open_wrap = load_open_wrap(conn)
            if open_wrap is not None:
                raise _in_progress(open_wrap.started_at)
            episodes = unwrapped_episodes(conn)
            wrap_id = None
            if episodes:
                wrap_id = insert_wrap(
                    conn,
                    token=token,
                    session_id=session_id,
                    started_at=started_at,
                    today=today,
                    schema_name=schema.name,
                    max_chars=target,
                    episode_count=len(episodes),
                )
                bind_wrap(conn, token)
                store.stage_audit(
                    conn,
                    "wrap_started",
                    actor=session_id or "agent",
                    data={
                        "wrap_id": wrap_id,
                        "wrap_token_prefix": token[:8],
                        "episode_ids": [e.id for e in episodes],
                        "episode_count": len(episodes),
                        "session_id": session_id,
                        "schema": schema.name,
                    },
                )
        store.flush_audit()
    if wrap_id is None:
        return PrepareResult(
            status=WrapStatus.EMPTY,
            message="No episodes since the last wrap. Nothing to compress.",
            episode_count=0,
        )
    continuity = read_continuity(continuity_path(store))
    package = build_package(
        episodes,
        continuity,
        schema,
        project=store.project_name,
        today=today,
        max_chars=target,
        staleness_days=staleness_days,
    )
    return PrepareResult(
        status=WrapStatus.READY,
        message=f"Ready to compress {len(episodes)} episode(s).",
        episode_count=len(episodes),
        wrap_token=token,
        package=package,
        text=render_package(package),
        wrap_id=wrap_id,
    )
