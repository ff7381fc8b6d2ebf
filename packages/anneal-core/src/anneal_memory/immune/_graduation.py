"""Graduation: may a pattern line keep the level it claims? Pure: no I/O.

Each pattern line is judged on its own against the wrap's frozen episode snapshot and the
pattern's saved history. The rules, in the order they apply:

1. A today-dated line at 2x or above with ``[evidence: ...]`` must cite at least one episode
   of this wrap's snapshot and its explanation must share at least two meaningful words with
   one of them. Otherwise it drops one level, loses its evidence tag and is marked
   ``(ungrounded)``. A new rung whose explanation rephrases an earlier graduation of the same
   pattern (three shared words, not identical) drops one level ``(cross-session-overlap)``.
2. A today-dated line at 2x or above without evidence drops one level ``(needs-evidence)``,
   except on the store's first wrap.
3. Carryforward: instead of dropping under rule 1 (ungrounded) or 2, a pattern grounded within
   the last seven days that does not claim more than its highest level so far keeps its level
   and is marked ``(carried-forward)``.
4. Level cap: every line's level is cut to its last saved level, plus one when it was
   validated this wrap; a pattern never seen before enters at 1x ``(level-capped)``.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from anneal_memory.document._markers import (
    PatternLine,
    StatusMark,
    add_mark,
    set_level,
    strip_evidence,
    strip_marks,
)
from anneal_memory.immune._grounding import (
    GROUNDING_MIN_SHARED,
    REPHRASE_MIN_SHARED,
    rephrase_words,
    shared_words,
)
from anneal_memory.immune._report import Finding, FindingCode, Severity

__all__ = [
    "CARRYFORWARD_DAYS",
    "GraduationContext",
    "LineVerdict",
    "PriorPattern",
    "ValidatedCitation",
    "judge_line",
    "validated_citations",
]

CARRYFORWARD_DAYS = 7


@dataclass(frozen=True, slots=True, kw_only=True)
class PriorPattern:
    """What the store remembers about a pattern from earlier saves.

    Attributes:
        level: The level written at the last save that contained it.
        max_level: The highest level it ever reached.
        last_grounded: The wrap day (YYYY-MM-DD) it last had grounded evidence, if ever.
        explanations: Explanations of its earlier validated graduations.
        in_last_save: True when the last saved continuity contained it.
    """

    level: int
    max_level: int
    last_grounded: str | None = None
    explanations: tuple[str, ...] = ()
    in_last_save: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class GraduationContext:
    """Everything a verdict depends on besides the line itself.

    Attributes:
        today: The wrap's day (YYYY-MM-DD); only lines dated today are judged.
        snapshot: Episodes this wrap may cite: id -> text.
        known_ids: Ids that exist anywhere in the store (to tell replay from invention).
        prior: Saved history by pattern identity.
        first_wrap: True when the store has never completed a wrap.
        carryforward_days: Width of the carryforward window in days.
    """

    today: str
    snapshot: Mapping[str, str]
    known_ids: frozenset[str] = frozenset()
    prior: Mapping[str, PriorPattern]
    first_wrap: bool = False
    carryforward_days: int = CARRYFORWARD_DAYS


@dataclass(frozen=True, slots=True, kw_only=True)
class LineVerdict:
    """The outcome for one pattern line.

    Attributes:
        line: The line as parsed from the text given to the save.
        text: The line as it will be written.
        level: The level it will be written at.
        validated: True when grounded evidence carried it up a rung this wrap.
        grounded: True when any cited episode of this wrap grounds its explanation.
        findings: What was decided about it.
        validated_ids: The cited ids the immune system accepted this wrap: episodes of the
            snapshot that ground the explanation of a today-dated line whose evidence was
            not rejected (empty for a demoted, carried or rephrased line).
    """

    line: PatternLine
    text: str
    level: int
    validated: bool
    grounded: bool
    findings: tuple[Finding, ...]
    validated_ids: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class ValidatedCitation:
    """The citations of one pattern line that were validated this wrap.

    Attributes:
        level: The level the line claimed.
        evidence_ids: The validated ids, in citation order.
    """

    level: int
    evidence_ids: tuple[str, ...]


@dataclass(slots=True)
class _Work:
    level: int
    text: str
    marks: list[StatusMark]
    findings: list[Finding]
    validated: bool = False
    accepted: tuple[str, ...] = ()


def _days_between(earlier: str, later: str) -> int | None:
    try:
        first = _dt.date.fromisoformat(earlier)
        second = _dt.date.fromisoformat(later)
    except ValueError:
        return None
    return (second - first).days


def _grounding(line: PatternLine, ctx: GraduationContext) -> tuple[list[str], list[str], set[str]]:
    resolved = [i for i in line.evidence_ids if i in ctx.snapshot]
    words: set[str] = set()
    grounding: list[str] = []
    for ident in resolved:
        shared = shared_words(line.explanation, ctx.snapshot[ident])
        if len(shared) >= GROUNDING_MIN_SHARED:
            grounding.append(ident)
            words |= shared
    return resolved, grounding, words


def _rephrase(line: PatternLine, prior: PriorPattern | None) -> str | None:
    if prior is None or line.level <= prior.max_level or line.level <= prior.level:
        return None
    mine = rephrase_words(line.explanation)
    if len(mine) < REPHRASE_MIN_SHARED:
        return None
    normal = " ".join(line.explanation.split())
    for old in prior.explanations:
        # The overlap test is the cheap filter; the same explanation restated is no rephrase.
        if len(mine & rephrase_words(old)) >= REPHRASE_MIN_SHARED and (
            " ".join(old.split()) != normal
        ):
            return old
    return None


def _can_carry(line: PatternLine, prior: PriorPattern | None, ctx: GraduationContext) -> bool:
    if prior is None or prior.last_grounded is None or line.level > prior.max_level:
        return False
    age = _days_between(prior.last_grounded, ctx.today)
    return age is not None and -1 <= age <= ctx.carryforward_days


def _demote(work: _Work, line: PatternLine, mark: StatusMark, message: str) -> None:
    work.level = max(1, work.level - 1)
    work.text = strip_evidence(work.text)
    work.marks.append(mark)
    work.findings.append(
        Finding(
            code=FindingCode(mark.value),
            severity=Severity.DEMOTION,
            message=f"{line.name} {line.level}x -> {work.level}x: {message}",
            pattern=line.name,
            episode_ids=line.evidence_ids,
        )
    )


def _carry(work: _Work, line: PatternLine, prior: PriorPattern, why: str) -> None:
    work.text = strip_evidence(work.text)
    work.marks.append(StatusMark.CARRIED_FORWARD)
    work.findings.append(
        Finding(
            code=FindingCode.CARRIED_FORWARD,
            severity=Severity.DEMOTION,
            message=f"{line.name} held at {line.level}x ({why}); it was grounded on "
            f"{prior.last_grounded}, within the {CARRYFORWARD_DAYS}-day carryforward window",
            pattern=line.name,
            episode_ids=line.evidence_ids,
        )
    )


def _judge_evidence(
    work: _Work, line: PatternLine, prior: PriorPattern | None, ctx: GraduationContext
) -> bool:
    resolved, grounding, words = _grounding(line, ctx)
    echoed = _rephrase(line, prior)
    if echoed is not None:
        _demote(
            work,
            line,
            StatusMark.CROSS_SESSION_OVERLAP,
            f"the explanation rephrases an earlier graduation of this pattern "
            f"({echoed!r}); a new rung needs new understanding",
        )
        return bool(grounding)
    if grounding:
        work.validated = True
        work.accepted = tuple(grounding)
        shown = ", ".join(sorted(words)[:6])
        work.findings.append(
            Finding(
                code=FindingCode.GRADUATED,
                severity=Severity.INFO,
                message=f"{line.name} at {line.level}x is grounded in {', '.join(grounding)} "
                f"(shared words: {shown})",
                pattern=line.name,
                episode_ids=tuple(grounding),
            )
        )
        return True
    if not resolved:
        replayed = [i for i in line.evidence_ids if i in ctx.known_ids]
        why = (
            f"cites only episodes of earlier wraps ({', '.join(replayed)}); "
            "only this wrap's episodes count"
            if replayed
            else "none of the cited ids is an episode of this wrap"
        )
    else:
        why = (
            f"the explanation shares fewer than {GROUNDING_MIN_SHARED} meaningful words "
            f"with every cited episode ({', '.join(resolved)})"
        )
    if _can_carry(line, prior, ctx) and prior is not None:
        _carry(work, line, prior, why)
    else:
        _demote(work, line, StatusMark.UNGROUNDED, why)
    return False


def _judge_bare(
    work: _Work, line: PatternLine, prior: PriorPattern | None, ctx: GraduationContext
) -> None:
    if ctx.first_wrap:
        return
    why = 'a level of 2x or more needs [evidence: ids "explanation"]'
    if _can_carry(line, prior, ctx) and prior is not None:
        _carry(work, line, prior, why)
    else:
        _demote(work, line, StatusMark.NEEDS_EVIDENCE, why)


def _cap(work: _Work, line: PatternLine, prior: PriorPattern | None) -> None:
    allowed = 1
    if prior is not None:
        allowed = max(1, prior.level + 1 if work.validated else prior.level)
    if work.level <= allowed:
        return
    before = work.level
    work.level = allowed
    work.marks.append(StatusMark.LEVEL_CAPPED)
    reason = (
        "a new pattern enters at 1x"
        if prior is None
        else f"its last saved level was {prior.level}x and a wrap climbs at most one rung"
        + ("" if work.validated else " (and only with grounded evidence)")
    )
    work.findings.append(
        Finding(
            code=FindingCode.LEVEL_CAPPED,
            severity=Severity.DEMOTION,
            message=f"{line.name} {before}x -> {allowed}x: {reason}",
            pattern=line.name,
        )
    )


def judge_line(line: PatternLine, ctx: GraduationContext) -> LineVerdict:
    """Decide the level and marks of one pattern line (see the module docstring)."""
    prior = ctx.prior.get(line.identity)
    today = line.date == ctx.today
    work = _Work(
        level=line.level,
        text=strip_marks(line.raw) if today else line.raw,
        marks=[],
        findings=[],
    )
    grounded = False
    if today and line.has_evidence:
        if line.level >= 2:
            grounded = _judge_evidence(work, line, prior, ctx)
        else:
            work.accepted = tuple(_grounding(line, ctx)[1])
            grounded = bool(work.accepted)
    elif today and line.level >= 2:
        _judge_bare(work, line, prior, ctx)
    if line.has_evidence and line.provenance_ids:
        work.findings.append(
            Finding(
                code=FindingCode.PROVENANCE_WITH_EVIDENCE,
                severity=Severity.WARNING,
                message=f"{line.name} carries both [provenance: ...] and [evidence: ...]; "
                "provenance is for mature carries without fresh evidence, use one",
                pattern=line.name,
            )
        )
    _cap(work, line, prior)
    if work.validated and (prior is None or work.level <= prior.level):
        # Grounded, but no rung was climbed (a new pattern, or a level kept): not a graduation.
        work.validated = False
        work.findings = [f for f in work.findings if f.code is not FindingCode.GRADUATED]
    text = set_level(work.text, work.level) if work.level != line.level else work.text
    for mark in work.marks:
        text = add_mark(text, mark)
    return LineVerdict(
        line=line,
        text=text,
        level=work.level,
        validated=work.validated,
        grounded=grounded,
        findings=tuple(work.findings),
        validated_ids=work.accepted,
    )


def validated_citations(verdicts: Iterable[LineVerdict]) -> tuple[ValidatedCitation, ...]:
    """The lines' validated citations, for the association links (lines without any left out)."""
    return tuple(
        ValidatedCitation(level=v.line.level, evidence_ids=v.validated_ids)
        for v in verdicts
        if v.validated_ids
    )
