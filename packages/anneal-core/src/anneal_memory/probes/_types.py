"""Drift probes: what the operator expects the continuity to keep, and what a save found."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["DriftReport", "DriftStatus", "Probe", "ProbeCheck", "ProbeKind"]


class ProbeKind(str, enum.Enum):
    """What a probe watches."""

    PATTERN = "pattern"
    FACT = "fact"


class DriftStatus(str, enum.Enum):
    """What one save found for one probe.

    ``held``: still there as expected; ``changed``: there, but its line changed (a fact: only
    a similar line is left); ``weakened``: a pattern below its ``min_level``; ``crystallized``:
    the pattern moved to the long-term tier (a live crystal of that name); ``lost``: gone;
    ``unchecked``: the probe could not be checked (its section is not in the document, or the
    check failed; a probe never blocks a save).
    """

    HELD = "held"
    CHANGED = "changed"
    WEAKENED = "weakened"
    CRYSTALLIZED = "crystallized"
    LOST = "lost"
    UNCHECKED = "unchecked"


@dataclass(frozen=True, slots=True, kw_only=True)
class Probe:
    """One drift probe.

    Attributes:
        id: ``probe-001`` (never reused).
        kind: Pattern or fact.
        target: The pattern's name, or the fact's text.
        min_level: A pattern probe's lowest acceptable level (None for a fact).
        section: The section heading a fact is looked for in (None: the whole document).
        scope: The scope whose continuity it watches ("" the shared one).
        note: Why the operator added it.
        created_at: When.
        retired_at: When it was retired (None: live).
        last_status: What the last save found (None: not checked yet).
        last_line: The line the last check matched (None when none).
        last_wrap_id: The wrap whose save checked it last.
    """

    id: str
    kind: ProbeKind
    target: str
    min_level: int | None
    section: str | None
    scope: str
    note: str
    created_at: str
    retired_at: str | None
    last_status: DriftStatus | None
    last_line: str | None
    last_wrap_id: int | None

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready form."""
        return {
            "id": self.id, "kind": self.kind.value, "target": self.target,
            "min_level": self.min_level, "section": self.section, "scope": self.scope,
            "note": self.note, "created_at": self.created_at, "retired_at": self.retired_at,
            "last_status": None if self.last_status is None else self.last_status.value,
            "last_line": self.last_line, "last_wrap_id": self.last_wrap_id,
        }  # fmt: skip


@dataclass(frozen=True, slots=True, kw_only=True)
class ProbeCheck:
    """One probe's result at one save: its status and the line it matched (or None)."""

    probe_id: str
    status: DriftStatus
    line: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class DriftReport:
    """What a save's probe checks found (empty when no probe is live)."""

    checks: tuple[ProbeCheck, ...] = ()

    @property
    def counts(self) -> Mapping[str, int]:
        """How many probes got each status (every status listed)."""
        return {s.value: sum(c.status is s for c in self.checks) for s in DriftStatus}

    def ids(self, status: DriftStatus) -> tuple[str, ...]:
        """The probes that got ``status``."""
        return tuple(c.probe_id for c in self.checks if c.status is status)

    def to_dict(self) -> dict[str, object]:
        """``{"counts": {...}, "<status>": [ids] ...}`` (statuses other than held, when any)."""
        out: dict[str, object] = {"counts": dict(self.counts)}
        for status in DriftStatus:
            if status is not DriftStatus.HELD and (ids := self.ids(status)):
                out[status.value] = list(ids)
        return out
