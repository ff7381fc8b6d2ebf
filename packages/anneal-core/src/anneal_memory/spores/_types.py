"""Spore value types: prospective memory (what the agent means to do next)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from anneal_memory.types import Trust

__all__ = [
    "ASCEND_KINDS",
    "DESCEND_KINDS",
    "Germination",
    "Resolution",
    "Spore",
    "SporeNote",
    "SporeTier",
    "SporeType",
]


class SporeType(str, enum.Enum):
    """What a spore holds."""

    TASK = "task"
    QUESTION = "question"
    THOUGHT = "thought"

    def __str__(self) -> str:
        return self.value


class SporeTier(str, enum.Enum):
    """How close to mind a spore is kept (``parked`` is set aside on purpose)."""

    HOT = "hot"
    WARM = "warm"
    COLD = "cold"
    PARKED = "parked"

    def __str__(self) -> str:
        return self.value


class Germination(str, enum.Enum):
    """A spore's state, computed when read from its tier, ``seen`` and ``next`` dates."""

    GROWING = "growing"
    RESTING = "resting"
    DORMANT = "dormant"
    PARKED = "parked"

    def __str__(self) -> str:
        return self.value


# How an open spore may end, by type: descend lets it go, ascend records what it became.
DESCEND_KINDS: dict[SporeType, tuple[str, ...]] = {
    SporeType.TASK: ("composted", "done", "dropped"),
    SporeType.QUESTION: ("answered", "composted", "mooted"),
    SporeType.THOUGHT: ("composted", "dropped", "explored"),
}
ASCEND_KINDS: dict[SporeType, tuple[str, ...]] = {
    SporeType.TASK: ("project", "thread"),
    SporeType.QUESTION: ("episode", "pattern"),
    SporeType.THOUGHT: ("essay", "pattern", "project"),
}


@dataclass(frozen=True, slots=True, kw_only=True)
class SporeNote:
    """A dated note on a spore."""

    on: str
    text: str

    def render(self) -> str:
        """``[YYYY-MM-DD] text``."""
        return f"[{self.on}] {self.text}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Resolution:
    """How a spore was resolved: ``descend`` (let go) or ``ascend`` (became something)."""

    direction: str
    kind: str
    ref: str
    on: str
    at: str

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict of every field."""
        return {
            "direction": self.direction,
            "kind": self.kind,
            "ref": self.ref,
            "on": self.on,
            "at": self.at,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Spore:
    """One spore.

    Attributes:
        id: ``spore-001``: a sequence number, never reused.
        type: task, question or thought.
        text: What it says.
        domain: Free label ("" if none).
        tier: hot, warm, cold or parked.
        salience: 0-3 (shown as ``!`` marks).
        seen: The day it was last looked at (None if never).
        next: The day to bring it back up (a re-surface date, not a deadline).
        created: The day it was added.
        status: ``open`` or ``resolved``.
        germination: Computed when read (see ``germination_of``).
        resolution: How it was resolved, when resolved.
        pointer: Where more is (a path, a URL, an episode id; "" if none).
        notes: Dated notes, oldest first.
        origin_key: A random key that identifies the spore across exports.
        revision: Grows by one on every change.
        trust: Who planted it (``operator``, else the agent's ``agent``, or lower): the
            start block shows only operator spores as plain text, the others as data.
    """

    id: str
    type: SporeType
    text: str
    domain: str
    tier: SporeTier
    salience: int
    seen: str | None
    next: str | None
    created: str
    status: str
    germination: Germination
    resolution: Resolution | None
    pointer: str
    notes: tuple[SporeNote, ...]
    origin_key: str
    revision: int
    trust: Trust = Trust.AGENT

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict of every field."""
        return {
            "id": self.id,
            "type": self.type.value,
            "text": self.text,
            "domain": self.domain,
            "tier": self.tier.value,
            "salience": self.salience,
            "seen": self.seen,
            "next": self.next,
            "created": self.created,
            "status": self.status,
            "germination": self.germination.value,
            "resolution": None if self.resolution is None else self.resolution.to_dict(),
            "pointer": self.pointer,
            "notes": [n.render() for n in self.notes],
            "origin_key": self.origin_key,
            "revision": self.revision,
            "trust": self.trust.value,
        }
