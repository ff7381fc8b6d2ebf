"""``prepare_wrap``: freeze this session's episodes and build the package to compress."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from anneal_memory._owner import current_process
from anneal_memory.continuity._file import wrap_scope
from anneal_memory.continuity._opening import Frame, Opened, WrapRequest, open_wrap
from anneal_memory.continuity._package import render_instructions, render_package
from anneal_memory.continuity._results import PrepareResult, ProvenPattern, WrapPackage, WrapStatus
from anneal_memory.document import _document
from anneal_memory.document._durable import parse_facts
from anneal_memory.document._markers import PatternLine, parse_pattern_line
from anneal_memory.document._schema import SectionRole, SectionSchema
from anneal_memory.errors import InvalidInputError
from anneal_memory.gate import GateDecision
from anneal_memory.immune._checks import find_stale

if TYPE_CHECKING:
    from anneal_memory.crystal._types import Crystal
    from anneal_memory.store import Store
    from anneal_memory.store.wraps import WrapOpening

__all__ = [
    "DEFAULT_PACKAGE_CHARS",
    "MAX_MAX_CHARS",
    "MIN_MAX_CHARS",
    "MIN_PACKAGE_CHARS",
    "prepare_wrap",
    "validate_session_id",
]

MIN_MAX_CHARS = 1000
MAX_MAX_CHARS = 1_000_000
DEFAULT_PACKAGE_CHARS = 60_000
MIN_PACKAGE_CHARS = 5_000

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


def _check_args(max_chars: int | None, staleness_days: int, max_package_chars: int) -> None:
    if (
        isinstance(max_package_chars, bool)
        or not isinstance(max_package_chars, int)
        or max_package_chars < MIN_PACKAGE_CHARS
    ):
        raise InvalidInputError(
            f"max_package_chars must be an integer >= {MIN_PACKAGE_CHARS}, "
            f"got {max_package_chars!r}"
        )
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


def build_frame(
    continuity: str | None,
    schema: SectionSchema,
    *,
    project: str,
    today: str,
    max_chars: int,
    staleness_days: int,
    max_package_chars: int = 0,
) -> Frame:
    """Assemble the package without its episodes, and the continuity's pattern lines (pure).

    Nothing but the episodes and ``episodes_left`` of a package depends on the snapshot:
    the prepare builds this once, sizes the snapshot with it and then puts the snapshot in.
    """
    document = _document.parse(continuity or "")
    lines = graduating_lines(document, schema)
    package = WrapPackage(
        episodes=(),
        continuity=continuity,
        stale_patterns=tuple(find_stale(lines, today, staleness_days)),
        proven_patterns=_proven(lines),
        durable_facts=_durable_facts(document, schema),
        instructions="",
        today=today,
        schema_name=schema.name,
        max_chars=max_chars,
        hard_max_chars=schema.hard_max_chars(max_chars),
        episodes_left=0,
        max_package_chars=max_package_chars or DEFAULT_PACKAGE_CHARS,
    )
    package = dataclasses.replace(
        package, instructions=render_instructions(schema, project, package)
    )
    return Frame(package=package, patterns=tuple(line for _n, line in lines))


def _crystal_proposals(
    crystals: Sequence[Crystal], package: WrapPackage, frame: Frame, today: _dt.date
) -> str:
    from anneal_memory.crystal._candidates import proposals_from, render_proposals

    return render_proposals(proposals_from(crystals, frame.patterns, package.episodes, today))


def prepare_wrap(
    store: Store,
    *,
    session_id: str | None = None,
    max_chars: int | None = None,
    staleness_days: int = 7,
    max_package_chars: int = DEFAULT_PACKAGE_CHARS,
    owner_process: bool = True,
    scope: str = "",
) -> PrepareResult:
    """Open a wrap: freeze the episodes recorded since the last wrap and build the package.

    The wrap belongs to ``scope``: it packages only that scope's unwrapped episodes and
    that scope's continuity, and only another wrap of the same scope blocks it.

    The open-wrap marker and the frozen snapshot are written in one transaction. Episodes
    recorded after this call belong to the next wrap. The package text stays within
    ``max_package_chars``: when the unwrapped episodes do not all fit, the snapshot is the
    oldest ones that do (at least one) and the rest stay unwrapped for the next wrap
    (``episodes_left``). An open wrap whose lease ended, whose process is provably gone,
    or (on a baton-protected store) that the baton moved away from is reclaimed: cancelled,
    audited as ``wrap_cancelled``, and replaced by this one.

    Args:
        store: The store.
        session_id: The preparing session, recorded on the wrap.
        max_chars: Size target of the continuity for this wrap (default: the schema's).
        staleness_days: Pattern lines at least this many days old are listed as stale.
        max_package_chars: Budget of the package text (default 60,000 characters).
        owner_process: Record this process as the wrap's owner, so that a later prepare
            reclaims the wrap as soon as this process is provably gone. Pass False when the
            save will run in another process (the CLI does): then only the lease ends it.
        scope: The scope to wrap ("" is the shared one, the default).

    Returns:
        ``status="empty"`` when there is nothing to compress (nothing is opened), else
        ``status="ready"`` with the token, the package and its text.

    Raises:
        WrapInProgressError: A wrap of a live run is open; its message says what to do.
        InvalidInputError: An argument is invalid.
    """
    session_id = validate_session_id(session_id)
    scope = wrap_scope(scope)
    _check_args(max_chars, staleness_days, max_package_chars)
    me = current_process()  # cheap: the host and boot id are read once per process
    request = WrapRequest(
        session_id=session_id,
        scope=scope,
        max_chars=max_chars,
        owner=(me.pid, me.host, me.start) if owner_process is True else None,
        budget=max_package_chars,
    )

    def frame_for(schema: SectionSchema, opening: WrapOpening) -> Callable[[str | None], Frame]:
        return functools.partial(
            build_frame,
            schema=schema,
            project=store.project_name,
            today=opening.today,
            max_chars=opening.max_chars,
            staleness_days=staleness_days,
            max_package_chars=max_package_chars,
        )

    opened = open_wrap(store, request, now=store.clock.now(), frame_for=frame_for)
    if isinstance(opened, GateDecision):
        return PrepareResult(
            status=WrapStatus.DOWNGRADED, message=opened.message, episode_count=opened.waiting
        )
    if opened.wrap_id is None:
        return PrepareResult(
            status=WrapStatus.EMPTY,
            message="No episodes since the last wrap. Nothing to compress.",
            episode_count=0,
        )
    return _ready(opened, budget=max_package_chars)


def _ready(opened: Opened, *, budget: int) -> PrepareResult:
    episodes, opening = opened.episodes, opened.opening
    package = dataclasses.replace(
        opened.frame.package, episodes=tuple(episodes), episodes_left=opened.left
    )
    today = _dt.date.fromisoformat(opening.today)
    text = render_package(package, opened.shown) + _crystal_proposals(
        opened.crystals, package, opened.frame, today
    )
    message = f"Ready to compress {len(episodes)} episode(s)."
    if opened.left:
        message += (
            f" {opened.left} more episode(s) did not fit the package budget of {budget} "
            "characters; they stay unwrapped for the next wrap."
        )
    return PrepareResult(
        status=WrapStatus.READY,
        message=message,
        episode_count=len(episodes),
        wrap_token=opening.token,
        package=package,
        text=text,
        wrap_id=opened.wrap_id,
        episodes_left=opened.left,
    )
