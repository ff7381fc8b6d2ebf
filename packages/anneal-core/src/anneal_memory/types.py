"""Public value types: episodes, recall results and store status."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from anneal_memory._lazy import lazy_exports

if TYPE_CHECKING:
    from anneal_memory._result_types import (
        ImportCount,
        ImportReport,
        ImportResult,
        PruneResult,
        StateSlot,
        StoreStatus,
        SupersessionLink,
    )

__all__ = [
    "Episode",
    "EpisodeType",
    "ImportCount",
    "ImportReport",
    "ImportResult",
    "PruneResult",
    "RecallResult",
    "StateSlot",
    "StoreStatus",
    "SupersessionLink",
    "Trust",
]


class EpisodeType(str, enum.Enum):
    """What kind of moment an episode records."""

    OBSERVATION = "observation"
    DECISION = "decision"
    TENSION = "tension"
    QUESTION = "question"
    OUTCOME = "outcome"
    CONTEXT = "context"

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, value: EpisodeType | str) -> EpisodeType:
        """Accept an ``EpisodeType`` or its string value (case-insensitive).

        Raises:
            ValueError: The value names no episode type.
        """
        if isinstance(value, EpisodeType):
            return value
        if isinstance(value, str):
            found = _TYPES_BY_VALUE.get(value) or _TYPES_BY_VALUE.get(value.strip().lower())
            if found is not None:
                return found
        valid = ", ".join(t.value for t in cls)
        raise ValueError(f"unknown episode type {value!r}; use one of: {valid}")


_TYPES_BY_VALUE: dict[str, EpisodeType] = {t.value: t for t in EpisodeType}


class Trust(str, enum.Enum):
    """Where an episode came from, lowest first: a claim is only as strong as its source."""

    EXTERNAL = "external"
    TOOL = "tool"
    AGENT = "agent"
    OPERATOR = "operator"

    def __str__(self) -> str:
        return self.value

    @property
    def rank(self) -> int:
        """0 for ``external`` up to 3 for ``operator``."""
        return _TRUST_ORDER.index(self)

    @classmethod
    def parse(cls, value: Trust | str) -> Trust:
        """Accept a ``Trust`` or its value (case-insensitive).

        Raises:
            ValueError: The value names no trust level.
        """
        if isinstance(value, Trust):
            return value
        if isinstance(value, str):
            for level in cls:
                if level.value == value.strip().lower():
                    return level
        valid = ", ".join(t.value for t in cls)
        raise ValueError(f"unknown trust {value!r}; use one of (lowest first): {valid}")


_TRUST_ORDER = (Trust.EXTERNAL, Trust.TOOL, Trust.AGENT, Trust.OPERATOR)


@dataclass(frozen=True, slots=True, kw_only=True)
class Episode:
    """One recorded moment.

    Attributes:
        id: Eight lowercase hex characters, unique in the store and never reused.
        timestamp: ISO-8601 UTC with microseconds, e.g. ``2026-11-29T22:00:54.123456Z``.
        type: The episode type.
        content: The text, as recorded.
        source: Who recorded it (``agent``, ``cli``, ``tool``, ...).
        metadata: Free JSON object given at record time (empty if none).
        idempotency_key: The key given at record time, if any.
        trust: Where it came from: ``external`` < ``tool`` < ``agent`` < ``operator``.
        state_key: The single-valued fact slot it fills (``user.home_city``), if any.
        superseded_by: The episode that replaced it (None while it is current).
        derived_from: Episodes it was derived from; they cap its effective trust.
    """

    id: str
    timestamp: str
    type: EpisodeType
    content: str
    source: str = "agent"
    metadata: Mapping[str, Any] = field(default_factory=dict)
    idempotency_key: str | None = None
    trust: Trust = field(default_factory=lambda: Trust.AGENT)
    state_key: str | None = None
    superseded_by: str | None = None
    derived_from: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict of every field."""
        return {
            "id": self.id,
            "timestamp": self.timestamp,
            "type": self.type.value,
            "content": self.content,
            "source": self.source,
            "metadata": dict(self.metadata),
            "idempotency_key": self.idempotency_key,
            "trust": self.trust.value,
            "state_key": self.state_key,
            "superseded_by": self.superseded_by,
            "derived_from": list(self.derived_from),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class RecallResult:
    """Episodes returned by a recall, best first, and how many matched in all.

    Attributes:
        episodes: At most ``limit`` episodes: exact-phrase matches first, then word matches,
            each ranked by relevance; newest first when no keyword was given.
        total_matching: How many episodes match the keyword and filters in all.
    """

    episodes: tuple[Episode, ...]
    total_matching: int


# Issue #25: the types a plain record does not need are built on first use (PEP 562).
__getattr__, __dir__ = lazy_exports(
    __name__,
    dict.fromkeys(
        (
            "ImportCount",
            "ImportReport",
            "ImportResult",
            "PruneResult",
            "StateSlot",
            "StoreStatus",
            "SupersessionLink",
        ),
        "anneal_memory._result_types",
    ),
    globals(),
)
