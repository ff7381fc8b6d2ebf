"""The public value types a plain record does not need: status, prune, import, supersession.

They are ``anneal_memory.types``'s (exported from there, and their ``__module__`` says so);
they live here so that importing ``anneal_memory.types`` builds only the episode types
(issue #25: each frozen dataclass costs about half a millisecond at start-up).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ImportCount",
    "ImportReport",
    "ImportResult",
    "PruneResult",
    "StateSlot",
    "StoreStatus",
    "SupersessionLink",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class StoreStatus:
    """A snapshot of the store's health and size."""

    path: str
    total_episodes: int
    episodes_by_type: Mapping[str, int]
    deleted_episodes: int
    episodes_since_wrap: int
    db_bytes: int
    wal_bytes: int
    last_write: str | None
    schema_version: int
    audit_write_failures: int = 0

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict of every field."""
        return {
            "path": self.path,
            "total_episodes": self.total_episodes,
            "episodes_by_type": dict(self.episodes_by_type),
            "deleted_episodes": self.deleted_episodes,
            "episodes_since_wrap": self.episodes_since_wrap,
            "db_bytes": self.db_bytes,
            "wal_bytes": self.wal_bytes,
            "last_write": self.last_write,
            "schema_version": self.schema_version,
            "audit_write_failures": self.audit_write_failures,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class PruneResult:
    """What a prune removed.

    Attributes:
        deleted: How many episodes were deleted.
        cutoff: Episodes stamped before this were deleted.
        crystals_losing_evidence: Crystals that cited a deleted episode (their evidence now
            lists it as deleted).
    """

    deleted: int
    cutoff: str
    crystals_losing_evidence: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class ImportResult:
    """What an import added and skipped (crystals and spores already here are skipped).

    ``trust_capped`` counts the episodes, tombstones and spores whose trust was lowered to
    the importing store's ceiling (an import never creates more trust than its importer has).
    ``not_carried`` says what a rule of this store left out (a state key or a supersession
    link that would let a less trusted episode replace a more trusted one), one line each.
    """

    imported: int
    skipped_existing: int
    tombstones_added: int
    crystals_imported: int = 0
    spores_imported: int = 0
    exposures_imported: int = 0
    """Exposures (with their outcomes) added; one whose id is here already is skipped."""
    worth_totals_imported: int = 0
    """Per-item totals of pruned exposures added; an item with a total here keeps its own."""
    probes_imported: int = 0
    """Drift probes added; the same probe (kind, target, section, scope) here is kept."""
    redacted: Mapping[str, int] = field(default_factory=dict)
    """Imported episodes whose secrets were replaced, per kind (the store's redaction policy)."""
    trust_capped: int = 0
    held_as_data: int = 0
    """Episodes whose ``agent`` text, shaped like an instruction, was written at ``external``
    trust (data until an operator raises it: docs/trust.md)."""
    not_carried: tuple[str, ...] = ()
    wraps_restored: int = 0
    """Completed wraps restored (only into a store with no episodes or wraps before)."""
    patterns_restored: int = 0
    """Pattern levels restored with their history."""
    associations_restored: int = 0
    """Links between episodes restored."""
    continuity_restored: tuple[str, ...] = ()
    """The scopes whose continuity text was restored ("" is the store's own)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SupersessionLink:
    """One "old was replaced by new" link.

    Attributes:
        old_id: The replaced episode.
        new_id: The episode that replaces it.
        via: ``explicit`` (record/supersede), ``wrap`` (a ``[supersedes:]`` marker) or
            ``state_key`` (the newer value of the same key).
    """

    old_id: str
    new_id: str
    via: str

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict of every field."""
        return {"old_id": self.old_id, "new_id": self.new_id, "via": self.via}


@dataclass(frozen=True, slots=True, kw_only=True)
class StateSlot:
    """One state key of one scope: the episode holding its current value, the ones replaced.

    Attributes:
        key: The normalised key, e.g. ``user.home_city``.
        current: The newest episode of the slot (one id).
        replaced: Older episodes of the slot, newest first.
        scope: The scope the slot belongs to ("" is the shared one); each scope keeps its
            own value of a key.
    """

    key: str
    current: tuple[str, ...]
    replaced: tuple[str, ...]
    scope: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict of every field (``scope`` only when not the shared one)."""
        out: dict[str, Any] = {
            "key": self.key,
            "current": list(self.current),
            "replaced": list(self.replaced),
        }
        if self.scope:
            out["scope"] = self.scope
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class ImportCount:
    """What an import did with one kind of record (``episodes``, ``tombstones``, ...).

    Attributes:
        kind: The kind of record.
        found: How many the source held.
        imported: How many were written.
        skipped: How many were already here (or repeated in the source) and left alone.
        not_carried: How many this store could not take.
        reason: Why some were not carried or capped (None when all came as they were).
        capped: How many were written lowered: a trust above the store's ceiling, a
            continuity's pattern level above its saved level, an agent text shaped like an
            instruction written at ``external`` trust (episodes; docs/trust.md).
    """

    kind: str
    found: int
    imported: int
    skipped: int
    not_carried: int
    reason: str | None = None
    capped: int = 0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field."""
        return {name: getattr(self, name) for name in self.__slots__}


@dataclass(frozen=True, slots=True, kw_only=True)
class ImportReport:
    """What ``Store.import_from`` found in a source and did (or, dry, would do).

    Attributes:
        source: The path imported.
        format: The format detected (``anneal-memory-export``, ``anneal-memory-1.0.2-export``,
            ``anneal-memory-1.0.2-database``, ``server-memory-jsonl``).
        sha256: Hex SHA-256 of the source file's bytes.
        dry_run: True when nothing was written.
        counts: One entry per kind of record the source held.
        redacted: Episodes whose secrets were replaced, per kind (the importing store's
            redaction policy applies to what it imports).
    """

    source: str
    format: str
    sha256: str
    dry_run: bool
    counts: tuple[ImportCount, ...]
    redacted: Mapping[str, int] = field(default_factory=dict)

    def count(self, kind: str) -> ImportCount | None:
        """The entry for ``kind``, or None when the source held none."""
        return next((c for c in self.counts if c.kind == kind), None)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field."""
        return {
            "source": self.source,
            "format": self.format,
            "sha256": self.sha256,
            "dry_run": self.dry_run,
            "counts": [c.to_dict() for c in self.counts],
            "redacted": dict(self.redacted),
        }


for _cls in (
    ImportCount,
    ImportReport,
    ImportResult,
    PruneResult,
    StateSlot,
    StoreStatus,
    SupersessionLink,
):
    _cls.__module__ = "anneal_memory.types"
del _cls
