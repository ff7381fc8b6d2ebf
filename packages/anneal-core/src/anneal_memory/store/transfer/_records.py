"""What every import source is parsed into before anything is written.

Each reader (our export, the public 1.0.2 export and database, the reference MCP memory
server's ``memory.json``) turns its source into these records and hands them to a
``Sink`` (``_import_sink``), one function per kind. ``place`` names where a record came from
(``episodes[3]``, ``line 7``, ``table tombstones``), for error messages.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from anneal_memory.store._validate import EpisodeInput

__all__ = [
    "AssociationRecord",
    "ContinuityRecord",
    "CrystalRecord",
    "DerivedRecord",
    "EpisodeRecord",
    "Kind",
    "PatternLevelRecord",
    "SourceFormat",
    "SporeRecord",
    "StateKeyRecord",
    "SupersessionRecord",
    "TombstoneRecord",
    "TrustRecord",
    "WorthRecord",
    "WrapRecord",
]


class SourceFormat(str, enum.Enum):
    """The formats ``import`` recognises."""

    EXPORT = "anneal-memory-export"
    V1_EXPORT = "anneal-memory-1.0.2-export"
    V1_DATABASE = "anneal-memory-1.0.2-database"
    SERVER_MEMORY = "server-memory-jsonl"

    def __str__(self) -> str:
        return self.value


class Kind(str, enum.Enum):
    """The kinds of record an import counts."""

    EPISODES = "episodes"
    TOMBSTONES = "tombstones"
    WRAPS = "wraps"
    ASSOCIATIONS = "associations"
    CONTINUITY = "continuity"
    TRUST = "trust"
    SUPERSESSIONS = "supersessions"
    STATE_KEYS = "state_keys"
    DERIVED_FROM = "derived_from"
    PATTERN_LEVELS = "pattern_levels"
    CRYSTALS = "crystals"
    SPORES = "spores"
    EXPOSURES = "exposures"
    WORTH_TOTALS = "worth_totals"
    PROBES = "probes"
    ENTITIES = "entities"
    RELATIONS = "relations"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True, kw_only=True)
class EpisodeRecord:
    """One episode. ``ident`` None draws a new id; ``wrap_number`` the 1.0.2 wrap that took it."""

    place: str
    ident: str | None
    item: EpisodeInput
    wrap_number: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TombstoneRecord:
    """A deleted episode id that must never be reused, and what it kept of its episode.

    ``trust`` None: unknown; ``derived_from`` is JSON list text (None when none).
    """

    place: str
    ident: str
    deleted_at: str
    reason: str = "import"
    trust: str | None = None
    derived_from: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class WrapRecord:
    """One completed 1.0.2 wrap; ``number`` is its id (episodes' ``session_id`` points at it)."""

    place: str
    number: int
    wrapped_at: str
    episodes: int
    continuity_chars: int | None
    continuity_sha256: str | None
    validated: int
    demoted: int


@dataclass(frozen=True, slots=True, kw_only=True)
class AssociationRecord:
    """A Hebbian link between two episodes."""

    place: str
    a: str
    b: str
    strength: float
    affect_tag: str | None
    affect_intensity: float | None


@dataclass(frozen=True, slots=True, kw_only=True)
class ContinuityRecord:
    """The source's continuity text and the section headings its schema requires."""

    place: str
    text: str
    headings: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TrustRecord:
    """An episode's trust class (``external``, ``tool``, ``agent``, ``operator``)."""

    place: str
    episode_id: str
    trust: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SupersessionRecord:
    """``old_id`` was replaced by ``new_id``; ``source`` is ``wrap`` for a wrap's link."""

    place: str
    old_id: str
    new_id: str
    source: str
    recorded_at: str


@dataclass(frozen=True, slots=True, kw_only=True)
class StateKeyRecord:
    """An episode fills the state slot ``key``."""

    place: str
    episode_id: str
    key: str
    set_at: str


@dataclass(frozen=True, slots=True, kw_only=True)
class DerivedRecord:
    """``episode_id`` was derived from ``source_id`` (caps its effective trust)."""

    place: str
    episode_id: str
    source_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PatternLevelRecord:
    """The last saved level of one pattern, with its history where the source kept it."""

    place: str
    name: str
    level: int
    max_level: int
    explanation: str = ""
    last_seen: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CrystalRecord:
    """One crystallized (or retired) pattern; ``data`` is an entry of our export's ``crystals``."""

    place: str
    name: str
    retired: bool
    data: Mapping[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class WorthRecord:
    """One exposure (with its outcome) or per-item total; ``data`` is an entry of our export."""

    place: str
    data: Mapping[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class SporeRecord:
    """One open or resolved spore; ``data`` is an entry of our export's ``spores``."""

    place: str
    ident: str
    resolved: bool
    data: Mapping[str, Any]
