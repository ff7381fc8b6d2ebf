"""Section schemas of the continuity file: which sections, in which role, how big.

A schema is a closed list of ``## `` sections, each with a role that tells the wrap what the
section is for (live state, graduating patterns, decisions, narrative, ...). The role also
decides how much room the section earns: the default schema's four core roles fit in the
base budget, every further section adds its role's increment.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

from anneal_memory.errors import InvalidSchemaError

__all__ = [
    "DEFAULT_SCHEMA",
    "PARTNERSHIP_SCHEMA",
    "PROJECT_SCHEMA",
    "SCHEMAS",
    "SectionRole",
    "SectionSchema",
    "SectionSpec",
    "schema_by_name",
]

BASE_TARGET_CHARS = 20000
HARD_MAX_FACTOR = 1.25
DURABLE_BUDGET_SHARE = 0.15


class SectionRole(str, enum.Enum):
    """What a section of the continuity file is for."""

    LIVE_STATE = "live-state"
    GRADUATING = "graduating"
    DECISIONS = "decisions"
    NARRATIVE = "narrative"
    NARRATIVE_TIMELESS = "narrative-timeless"
    FROZEN = "frozen"
    DERIVED_STATE = "derived-state"
    DURABLE = "durable"


_ROLE_INCREMENT = {
    SectionRole.LIVE_STATE: 1500,
    SectionRole.GRADUATING: 2500,
    SectionRole.DECISIONS: 1500,
    SectionRole.NARRATIVE: 2500,
    SectionRole.NARRATIVE_TIMELESS: 4000,
    SectionRole.FROZEN: 1000,
    SectionRole.DERIVED_STATE: 1500,
    SectionRole.DURABLE: 0,
}
_BASE_ROLES = (
    SectionRole.LIVE_STATE,
    SectionRole.GRADUATING,
    SectionRole.DECISIONS,
    SectionRole.NARRATIVE,
)


@dataclass(frozen=True, slots=True, kw_only=True)
class SectionSpec:
    """One ``## `` section a schema asks for.

    Attributes:
        heading: The heading text without ``## `` (e.g. ``"Patterns"``).
        role: What the section is for.
        optional: Only the durable section may be left out.
    """

    heading: str
    role: SectionRole
    optional: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class SectionSchema:
    """A named, ordered list of sections with the size bounds they imply."""

    name: str
    sections: tuple[SectionSpec, ...]

    @property
    def target_chars(self) -> int:
        """The size the wrap aims for: the base budget plus each extra section's increment."""
        unused = list(_BASE_ROLES)
        total = BASE_TARGET_CHARS
        for spec in self.sections:
            if spec.role in unused:
                unused.remove(spec.role)
            else:
                total += _ROLE_INCREMENT[spec.role]
        return total

    def hard_max_chars(self, target: int | None = None) -> int:
        """The refusal bound: 1.25 x the target, rounded up (the durable section excluded)."""
        return math.ceil((target or self.target_chars) * HARD_MAX_FACTOR)

    def durable_budget_chars(self, target: int | None = None) -> int:
        """How much the durable facts section may hold before a warning: 15% of the target."""
        return int((target or self.target_chars) * DURABLE_BUDGET_SHARE)

    def with_role(self, role: SectionRole) -> tuple[SectionSpec, ...]:
        """The sections of this schema that have ``role``."""
        return tuple(spec for spec in self.sections if spec.role is role)

    @property
    def required(self) -> tuple[SectionSpec, ...]:
        """The sections a saved continuity must contain."""
        return tuple(spec for spec in self.sections if not spec.optional)


def _spec(heading: str, role: SectionRole, *, optional: bool = False) -> SectionSpec:
    return SectionSpec(heading=heading, role=role, optional=optional)


DEFAULT_SCHEMA = SectionSchema(
    name="default",
    sections=(
        _spec("State", SectionRole.LIVE_STATE),
        _spec("Durable Facts", SectionRole.DURABLE, optional=True),
        _spec("Patterns", SectionRole.GRADUATING),
        _spec("Decisions", SectionRole.DECISIONS),
        _spec("Context", SectionRole.NARRATIVE),
    ),
)
PARTNERSHIP_SCHEMA = SectionSchema(
    name="partnership",
    sections=(
        _spec("State", SectionRole.LIVE_STATE),
        _spec("Active Threads", SectionRole.LIVE_STATE),
        _spec("Durable Facts", SectionRole.DURABLE, optional=True),
        _spec("Patterns", SectionRole.GRADUATING),
        _spec("Decisions", SectionRole.DECISIONS),
        _spec("Context", SectionRole.NARRATIVE),
        _spec("Understanding", SectionRole.NARRATIVE_TIMELESS),
    ),
)
PROJECT_SCHEMA = SectionSchema(
    name="project",
    sections=(
        _spec("Plan", SectionRole.DECISIONS),
        _spec("State", SectionRole.DERIVED_STATE),
        _spec("Decisions", SectionRole.DECISIONS),
        _spec("Open", SectionRole.LIVE_STATE),
        _spec("Lessons", SectionRole.GRADUATING),
        _spec("History", SectionRole.NARRATIVE),
    ),
)
SCHEMAS = {s.name: s for s in (DEFAULT_SCHEMA, PARTNERSHIP_SCHEMA, PROJECT_SCHEMA)}


def schema_by_name(name: str) -> SectionSchema:
    """Return the named schema (``default``, ``partnership`` or ``project``).

    Raises:
        InvalidSchemaError: No schema has that name.
    """
    try:
        return SCHEMAS[name]
    except KeyError:
        names = ", ".join(sorted(SCHEMAS))
        raise InvalidSchemaError(f"unknown section schema {name!r}; use one of: {names}") from None
