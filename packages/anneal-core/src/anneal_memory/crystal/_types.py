"""Crystal value types: the record, its retirement, and what recall and the index return."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ActivationMode",
    "ActivationTier",
    "Crystal",
    "CrystalHit",
    "CrystalRecall",
    "IndexLine",
    "Permanence",
    "Retirement",
    "RetirementKind",
]


class Permanence(str, enum.Enum):
    """How long a crystal is expected to stay true."""

    TIMELESS = "timeless"
    PHASE_SPECIFIC = "phase-specific"

    def __str__(self) -> str:
        return self.value


class ActivationMode(str, enum.Enum):
    """When a crystal should come to mind: on a matching cue, or on a looming disaster."""

    JUST_IN_TIME = "just-in-time"
    CATASTROPHIC = "catastrophic"

    def __str__(self) -> str:
        return self.value


class ActivationTier(str, enum.Enum):
    """How recently a crystal was last activated (computed when read)."""

    HOT = "hot"
    WARM = "warm"
    COLD = "cold"
    DORMANT = "dormant"

    def __str__(self) -> str:
        return self.value


class RetirementKind(str, enum.Enum):
    """Why a crystal was retired."""

    FALSIFIED = "falsified"
    SUPERSEDED = "superseded"
    MERGED = "merged"
    OBSOLETE = "obsolete"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True, kw_only=True)
class Retirement:
    """A retired crystal's retirement: kind, reason, day and timestamp."""

    kind: RetirementKind
    reason: str
    on: str
    at: str

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict of every field."""
        return {"kind": self.kind.value, "reason": self.reason, "on": self.on, "at": self.at}


@dataclass(frozen=True, slots=True, kw_only=True)
class Crystal:
    """One crystallized pattern: graduated wisdom held outside the continuity file.

    Attributes:
        name: Unique slug (letters, digits, ``_ . -``).
        level: The graduation level it crystallized at (2 or more, no ceiling).
        explanation: What the pattern says.
        evidence: Episode ids it rests on, in the order given.
        permanence: ``timeless`` or ``phase-specific``.
        activation_mode: ``just-in-time`` or ``catastrophic``.
        tags: Free labels, in the order given.
        crystallized_on: The day it was (last) crystallized, ``YYYY-MM-DD``.
        last_activated_on: The day it was last crystallized or touched.
        activation: Tier computed from ``last_activated_on`` when read.
        source: Who or what crystallized it ("" if not said).
        notes: Dated notes, oldest first.
        revision: Grows by one on every change; pass it back as ``expect_revision``.
        retirement: Set when retired (the crystal is kept and listed).
        evidence_missing: Evidence ids whose episodes were deleted or pruned.
    """

    name: str
    level: int
    explanation: str
    evidence: tuple[str, ...]
    permanence: Permanence
    activation_mode: ActivationMode
    tags: tuple[str, ...]
    crystallized_on: str
    last_activated_on: str
    activation: ActivationTier
    source: str
    notes: tuple[str, ...]
    revision: int
    retirement: Retirement | None = None
    evidence_missing: tuple[str, ...] = ()

    @property
    def live(self) -> bool:
        """True unless retired."""
        return self.retirement is None

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict of every field."""
        return {
            "name": self.name,
            "level": self.level,
            "explanation": self.explanation,
            "evidence": list(self.evidence),
            "evidence_missing": list(self.evidence_missing),
            "permanence": self.permanence.value,
            "activation_mode": self.activation_mode.value,
            "tags": list(self.tags),
            "crystallized_on": self.crystallized_on,
            "last_activated_on": self.last_activated_on,
            "activation": self.activation.value,
            "status": "crystallized" if self.retirement is None else "retired",
            "retirement": None if self.retirement is None else self.retirement.to_dict(),
            "source": self.source,
            "notes": list(self.notes),
            "revision": self.revision,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class IndexLine:
    """One line of the crystal index: the name and the explanation's first clause."""

    name: str
    clause: str

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict of every field."""
        return {"name": self.name, "clause": self.clause}


@dataclass(frozen=True, slots=True, kw_only=True)
class CrystalHit:
    """A crystal found by :func:`crystal_recall`.

    Attributes:
        crystal: The crystal.
        score: Sum of the weights of the query keywords it matched (higher is better).
        via: ``keyword`` (its own text matched), ``evidence`` (an episode it cites matched)
            or ``both``.
        matched: The query keywords that matched, in query order.
        episodes: Ids of the cited episodes that matched (evidence edge).
    """

    crystal: Crystal
    score: float
    via: str
    matched: tuple[str, ...]
    episodes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict of every field."""
        return {
            "name": self.crystal.name,
            "level": self.crystal.level,
            "explanation": self.crystal.explanation,
            "tags": list(self.crystal.tags),
            "activation": self.crystal.activation.value,
            "score": round(self.score, 3),
            "via": self.via,
            "matched": list(self.matched),
            "episodes": list(self.episodes),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class CrystalRecall:
    """What :func:`crystal_recall` found, and why it found nothing when it did not.

    Attributes:
        hits: Best first, at most ``max_patterns``.
        keywords: The keywords taken from the query.
        weighting: ``idf`` (corpus statistics) or ``length`` (small store).
        reason: Why nothing matched ("" when there are hits).
    """

    hits: tuple[CrystalHit, ...]
    keywords: tuple[str, ...]
    weighting: str
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict of every field."""
        return {
            "hits": [h.to_dict() for h in self.hits],
            "keywords": list(self.keywords),
            "weighting": self.weighting,
            "reason": self.reason,
        }
