"""Checks over all pattern lines of one save, and staleness for the package. Pure: no I/O."""

from __future__ import annotations

import datetime as _dt
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from anneal_memory.document._markers import PatternLine
from anneal_memory.immune._graduation import LineVerdict, PriorPattern
from anneal_memory.immune._report import Finding, FindingCode, Severity

__all__ = [
    "REUSE_THRESHOLD",
    "StalePattern",
    "check_citation_reuse",
    "check_contradictions",
    "check_omitted_proven",
    "check_zero_resolved",
    "find_stale",
]

REUSE_THRESHOLD = 3


@dataclass(frozen=True, slots=True, kw_only=True)
class StalePattern:
    """A pattern line whose date is at least ``staleness_days`` old.

    Attributes:
        line_number: 1-based line number in the continuity file.
        line: The line's text.
        name: The pattern's name.
        level: Its level.
        last_date: Its date.
        days_stale: Days between that date and today.
    """

    line_number: int
    line: str
    name: str
    level: int
    last_date: str
    days_stale: int


def _today_claims(lines: Iterable[PatternLine], today: str) -> list[PatternLine]:
    return [p for p in lines if p.date == today and p.level >= 2 and p.has_evidence]


def check_citation_reuse(lines: Sequence[PatternLine], today: str) -> list[Finding]:
    """Flag an episode cited on three or more of today's 2x+ lines (informational)."""
    counts = Counter(i for p in _today_claims(lines, today) for i in p.evidence_ids)
    return [
        Finding(
            code=FindingCode.CITATION_REUSE,
            severity=Severity.WARNING,
            message=f"episode {ident} is cited by {n} graduating lines this wrap; one episode "
            "rarely proves that many patterns",
            episode_ids=(ident,),
        )
        for ident, n in sorted(counts.items())
        if n >= REUSE_THRESHOLD
    ]


def check_zero_resolved(
    lines: Sequence[PatternLine], today: str, exists: frozenset[str]
) -> list[Finding]:
    """Warn when today's graduation lines cite ids and none of them exists in the store."""
    cited = {i for p in _today_claims(lines, today) for i in p.evidence_ids}
    if not cited or cited & exists:
        return []
    return [
        Finding(
            code=FindingCode.ZERO_RESOLVED_CITATIONS,
            severity=Severity.WARNING,
            message=f"{len(cited)} graduation citation(s) this wrap resolved to no episode in "
            "this store; copy ids exactly from the package's episode list",
            episode_ids=tuple(sorted(cited)),
        )
    ]


def check_omitted_proven(
    lines: Sequence[PatternLine], prior: Mapping[str, PriorPattern]
) -> list[Finding]:
    """Warn about Proven (2x+) patterns of the last save that the new text leaves out."""
    present = {p.identity for p in lines}
    return [
        Finding(
            code=FindingCode.OMITTED_PROVEN,
            severity=Severity.WARNING,
            message=f"the Proven pattern {identity} ({old.level}x) is missing from the new "
            "continuity; keep it at some level, or know that it is forgotten",
            pattern=identity,
        )
        for identity, old in sorted(prior.items())
        if old.in_last_save and old.level >= 2 and identity not in present
    ]


def check_contradictions(
    verdicts: Sequence[LineVerdict], prior: Mapping[str, PriorPattern], today: str
) -> list[Finding]:
    """List ``[contradicts: ...]`` declarations; warn about a new Proven without a stance."""
    findings: list[Finding] = []
    for verdict in verdicts:
        line = verdict.line
        if line.contradicts:
            findings.append(
                Finding(
                    code=FindingCode.CONTRADICTION,
                    severity=Severity.INFO,
                    message=f"{line.name} declares it contradicts {', '.join(line.contradicts)}",
                    pattern=line.name,
                )
            )
        old = prior.get(line.identity)
        new_proven = verdict.level >= 2 and (old is None or old.level < verdict.level)
        stance = line.contradicts or line.no_contradicts
        if line.date == today and new_proven and not stance:
            findings.append(
                Finding(
                    code=FindingCode.PROVEN_WITHOUT_STANCE,
                    severity=Severity.WARNING,
                    message=f"{line.name} became Proven at {verdict.level}x without "
                    "[contradicts: ...] or [no-contradicts]; scan the existing Proven patterns",
                    pattern=line.name,
                )
            )
    return findings


def find_stale(
    numbered: Iterable[tuple[int, PatternLine]], today: str, staleness_days: int
) -> list[StalePattern]:
    """Pattern lines dated ``staleness_days`` or more before ``today``."""
    stale: list[StalePattern] = []
    day = _dt.date.fromisoformat(today)
    for number, line in numbered:
        if line.date is None:
            continue
        try:
            age = (day - _dt.date.fromisoformat(line.date)).days
        except ValueError:
            continue
        if age >= staleness_days:
            stale.append(
                StalePattern(
                    line_number=number,
                    line=line.raw,
                    name=line.name,
                    level=line.level,
                    last_date=line.date,
                    days_stale=age,
                )
            )
    return stale
