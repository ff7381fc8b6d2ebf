"""Results of the wrap calls: frozen, keyword-only dataclasses."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anneal_memory.immune._checks import StalePattern
from anneal_memory.immune._report import Finding
from anneal_memory.types import Episode

__all__ = [
    "CancelResult",
    "PrepareResult",
    "ProvenPattern",
    "SaveResult",
    "WrapPackage",
    "WrapStatus",
]


class WrapStatus(str, enum.Enum):
    """What ``prepare_wrap`` did."""

    EMPTY = "empty"  # no episodes since the last wrap; nothing was opened
    READY = "ready"  # a wrap is open; compress the package and save
    DOWNGRADED = "downgraded"  # the gate allowed capture only; nothing was opened

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True, kw_only=True)
class ProvenPattern:
    """An existing 2x+ pattern of the current continuity, listed for the dedup scan."""

    name: str
    level: int
    summary: str


@dataclass(frozen=True, slots=True, kw_only=True)
class WrapPackage:
    """Everything the compressing model needs for one wrap.

    Attributes:
        episodes: The frozen snapshot, oldest first.
        continuity: The current continuity text (None before the first save).
        stale_patterns: Pattern lines old enough to reconsider.
        proven_patterns: Existing 2x+ patterns (for the contradiction and dedup scans).
        durable_facts: The current durable facts, one per entry.
        instructions: How to write the new continuity.
        today: The wrap's day; pattern lines dated today are judged at save.
        schema_name: The section schema of this wrap.
        max_chars: The size target.
        hard_max_chars: Above this the save is refused (durable section excluded).
        episodes_left: Unwrapped episodes newer than the snapshot that did not fit the
            package budget; they stay unwrapped for the next wrap.
        max_package_chars: The package budget this package was built for.
    """

    episodes: tuple[Episode, ...]
    continuity: str | None
    stale_patterns: tuple[StalePattern, ...]
    proven_patterns: tuple[ProvenPattern, ...]
    durable_facts: tuple[str, ...]
    instructions: str
    today: str
    schema_name: str
    max_chars: int
    hard_max_chars: int
    episodes_left: int = 0
    max_package_chars: int = 60_000

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field."""
        return {
            "episodes": [e.to_dict() for e in self.episodes],
            "continuity": self.continuity,
            "stale_patterns": [
                {name: getattr(s, name) for name in s.__slots__} for s in self.stale_patterns
            ],
            "proven_patterns": [
                {"name": p.name, "level": p.level, "summary": p.summary}
                for p in self.proven_patterns
            ],
            "durable_facts": list(self.durable_facts),
            "instructions": self.instructions,
            "today": self.today,
            "schema_name": self.schema_name,
            "max_chars": self.max_chars,
            "hard_max_chars": self.hard_max_chars,
            "episodes_left": self.episodes_left,
            "max_package_chars": self.max_package_chars,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class PrepareResult:
    """What ``prepare_wrap`` returns. ``result["status"]`` works as well as ``result.status``.

    Attributes:
        status: ``empty``, ``ready`` or ``downgraded``.
        message: One line saying what happened and what to do next.
        episode_count: Episodes in the wrap (or waiting, when not ready).
        wrap_token: The open wrap's token (32 hex), to pass to the save.
        package: The package, when ready.
        text: The package rendered for a model, when ready.
        wrap_id: The open wrap's number, when ready.
        episodes_left: Unwrapped episodes left out of this wrap by the package budget.
    """

    status: WrapStatus
    message: str
    episode_count: int
    wrap_token: str | None = None
    package: WrapPackage | None = None
    text: str | None = None
    wrap_id: int | None = None
    episodes_left: int = 0

    def __getitem__(self, key: str) -> Any:
        if key not in self.__slots__:
            raise KeyError(key)
        return getattr(self, key)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the package as a dict, the text as is)."""
        return {
            "status": self.status.value,
            "message": self.message,
            "episode_count": self.episode_count,
            "wrap_token": self.wrap_token,
            "wrap_id": self.wrap_id,
            "episodes_left": self.episodes_left,
            "package": None if self.package is None else self.package.to_dict(),
            "text": self.text,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class SaveResult:
    """What a validated save wrote and decided.

    Attributes:
        path: The continuity file (SQLite), or the database and table holding the text
            (PostgreSQL, as text).
        chars: Length of the text written.
        wrap_id: The wrap this save completed.
        episodes_compressed: Snapshot episodes marked as wrapped.
        graduations_validated: Pattern lines that climbed a rung on grounded evidence.
        demotions: Pattern lines lowered, held (carried forward) or capped.
        findings: Every finding, in pipeline order.
        citation_spread: Distinct episodes of this wrap cited on today's 2x+ lines.
        sha256: SHA-256 of the text written.
        sections: Characters per section heading.
        associations_formed: New association links.
        associations_strengthened: Existing links reinforced.
        associations_decayed: Links decayed because this wrap did not reinforce them.
        associations_pruned: Links removed for falling below 0.1.
        drift: What the drift probes found (``anneal_memory.probes``): ``{"counts": {held,
            changed, weakened, crystallized, lost, unchecked}, "<status>": [probe ids]}``
            for every status but held; ``{}`` when no probe is live.
    """

    path: Path | str
    chars: int
    wrap_id: int
    episodes_compressed: int
    graduations_validated: int
    demotions: int
    findings: tuple[Finding, ...]
    citation_spread: int = 0
    sha256: str = ""
    sections: dict[str, int] = field(default_factory=dict)
    associations_formed: int = 0
    associations_strengthened: int = 0
    associations_decayed: int = 0
    associations_pruned: int = 0
    drift: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field."""
        out = {name: getattr(self, name) for name in self.__slots__}
        out["drift"] = dict(self.drift)
        out["path"] = str(self.path)
        out["findings"] = [f.to_dict() for f in self.findings]
        out["sections"] = dict(self.sections)
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class CancelResult:
    """What ``wrap_cancel`` closed. Episodes are never deleted.

    Attributes:
        wrap_id: The cancelled wrap's number.
        wrap_token: Its token.
        started_at: When it was prepared.
        episode_count: Episodes of its snapshot (they stay unwrapped for the next prepare).
    """

    wrap_id: int
    wrap_token: str
    started_at: str
    episode_count: int

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field."""
        return {name: getattr(self, name) for name in self.__slots__}
