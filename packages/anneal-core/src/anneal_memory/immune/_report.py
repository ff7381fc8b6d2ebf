"""Findings: what the immune system and the save checks decided, and why."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

__all__ = ["Finding", "FindingCode", "Severity"]


class Severity(str, enum.Enum):
    """How much a finding changed the save."""

    REFUSAL = "refusal"  # the save was refused; nothing was written
    DEMOTION = "demotion"  # a pattern line was lowered or held
    WARNING = "warning"  # written as given; worth a look
    INFO = "info"  # a fact about the save


class FindingCode(str, enum.Enum):
    """Every finding code. ``docs/wrap.md`` explains each one."""

    INVALID_TEXT = "invalid-text"
    MISSING_SECTION = "missing-section"
    AMBIGUOUS_HEADING = "ambiguous-heading"
    DUPLICATE_SECTION = "duplicate-section"
    SHRINK_REFUSED = "shrink-refused"
    OVER_HARD_MAX = "over-hard-max"
    GRADUATED = "graduated"
    UNGROUNDED = "ungrounded"
    NEEDS_EVIDENCE = "needs-evidence"
    CROSS_SESSION_OVERLAP = "cross-session-overlap"
    CARRIED_FORWARD = "carried-forward"
    LEVEL_CAPPED = "level-capped"
    REPLAYED_CITATION = "replayed-citation"
    CITATION_REUSE = "citation-reuse"
    ZERO_RESOLVED_CITATIONS = "zero-resolved-citations"
    OMITTED_PROVEN = "omitted-proven"
    PROVEN_WITHOUT_STANCE = "proven-without-stance"
    CONTRADICTION = "contradiction"
    PROVENANCE_WITH_EVIDENCE = "provenance-with-evidence"
    DURABLE_REINSERTED = "durable-reinserted"
    DURABLE_DROPPED = "durable-dropped"
    DURABLE_OVER_BUDGET = "durable-over-budget"
    OVER_TARGET = "over-target"
    UNCORROBORATED = "uncorroborated"
    SUPERSEDED_CITATION = "superseded-citation"
    SUPERSESSION_RECORDED = "supersession-recorded"
    SUPERSESSION_REJECTED = "supersession-rejected"
    UNREADABLE_LEVEL = "unreadable-level"
    LEVEL_REWRITTEN = "level-rewritten"
    REPRODUCED_DATA = "reproduced-data"
    RECALLED_COPY = "recalled-copy"
    OUTSIDE_WORDS = "outside-words"


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One decision of the save, with its reason.

    Attributes:
        code: What kind of finding this is.
        severity: Whether it refused the save, demoted a line, or only informs.
        message: One human-readable sentence with the reason.
        pattern: The pattern name it concerns, if any.
        episode_ids: Episode ids it concerns, if any.
    """

    code: FindingCode
    severity: Severity
    message: str
    pattern: str | None = None
    episode_ids: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field."""
        return {
            "code": self.code.value,
            "severity": self.severity.value,
            "message": self.message,
            "pattern": self.pattern,
            "episode_ids": list(self.episode_ids),
        }
