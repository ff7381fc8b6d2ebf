"""Validation of spore fields and the germination rule. Pure."""

from __future__ import annotations

import datetime as _dt
import re
from enum import Enum
from typing import TypeVar

from anneal_memory._fields import check_day, check_text
from anneal_memory.errors import InvalidSporeError
from anneal_memory.spores._types import (
    ASCEND_KINDS,
    DESCEND_KINDS,
    Germination,
    SporeTier,
    SporeType,
)

__all__ = [
    "GROWING_DAYS",
    "MAX_TEXT_CHARS",
    "RESTING_DAYS",
    "check_ascend_kind",
    "check_descend_kind",
    "check_domain",
    "check_next",
    "check_note",
    "check_pointer",
    "check_ref",
    "check_salience",
    "check_text_field",
    "format_id",
    "germination_of",
    "parse_enum",
    "parse_id",
    "rank_key",
]

MAX_TEXT_CHARS = 2000
_MAX_DOMAIN_CHARS = 80
_MAX_POINTER_CHARS = 500
GROWING_DAYS = 3
RESTING_DAYS = 7
_ID = re.compile(r"spore-([0-9]{1,9})")
_TIER_ORDER = {t: i for i, t in enumerate(SporeTier)}
_GERMINATION_ORDER = {g: i for i, g in enumerate(Germination)}

E = TypeVar("E", bound=Enum)


def parse_enum(kind: type[E], value: object, name: str) -> E:
    """Accept an enum member or its value; refuse anything else naming the valid values."""
    if isinstance(value, kind):
        return value
    for member in kind:
        if value == member.value:
            return member
    valid = ", ".join(str(m.value) for m in kind)
    raise InvalidSporeError(f"{name} {value!r} is not valid; use one of: {valid}")


def format_id(num: int) -> str:
    """``1`` -> ``spore-001``."""
    return f"spore-{num:03d}"


def parse_id(value: object) -> int:
    """``spore-001`` -> ``1``."""
    found = _ID.fullmatch(value.strip()) if isinstance(value, str) else None
    if found is None or int(found.group(1)) < 1:
        raise InvalidSporeError(f"spore id must look like spore-001, got {value!r}")
    return int(found.group(1))


def check_text_field(value: object) -> str:
    """The spore's text: 1-2000 characters."""
    return check_text(value, "text", limit=MAX_TEXT_CHARS, error=InvalidSporeError)


def check_note(value: object) -> str:
    """A note: 1-2000 characters."""
    return check_text(value, "note", limit=MAX_TEXT_CHARS, error=InvalidSporeError)


def check_domain(value: object) -> str:
    """A domain: one line of at most 80 characters ("" for none)."""
    return check_text(
        value,
        "domain",
        limit=_MAX_DOMAIN_CHARS,
        error=InvalidSporeError,
        allow_empty=True,
        multiline=False,
    )


def check_pointer(value: object) -> str:
    """A pointer: one line of at most 500 characters ("" for none)."""
    return check_text(
        value,
        "pointer",
        limit=_MAX_POINTER_CHARS,
        error=InvalidSporeError,
        allow_empty=True,
        multiline=False,
    )


def check_ref(value: object) -> str:
    """What an ascended spore became: one line of 1-500 characters."""
    return check_text(
        value, "ref", limit=_MAX_POINTER_CHARS, error=InvalidSporeError, multiline=False
    )


def check_salience(value: object) -> int:
    """0, 1, 2 or 3."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
        raise InvalidSporeError(f"salience must be 0, 1, 2 or 3, got {value!r}")
    return value


def check_next(value: object) -> str | None:
    """A re-surface day ``YYYY-MM-DD``; "" or None means none."""
    if value is None or value == "":
        return None
    return check_day(value, "next", error=InvalidSporeError)


def _kind(table: dict[SporeType, tuple[str, ...]], verb: str, kind: object, of: SporeType) -> str:
    valid = table[of]
    if kind not in valid:
        raise InvalidSporeError(
            f"{verb} kind {kind!r} is invalid for a {of.value!r} spore. Valid: {list(valid)}."
        )
    return str(kind)


def check_descend_kind(kind: object, of: SporeType) -> str:
    """A descend kind that fits the spore's type (task: done, dropped, composted; ...)."""
    return _kind(DESCEND_KINDS, "descend", kind, of)


def check_ascend_kind(kind: object, of: SporeType) -> str:
    """An ascend kind that fits the spore's type (task: project, thread; ...)."""
    return _kind(ASCEND_KINDS, "ascend", kind, of)


def germination_of(
    tier: SporeTier, seen: str | None, next_day: str | None, today: _dt.date
) -> Germination:
    """A spore's germination, computed from its fields and today's date.

    Parked when parked; dormant when ``next`` has come or it was never seen; else by the
    age of ``seen``: under 3 days growing, up to 7 resting, older dormant.
    """
    if tier is SporeTier.PARKED:
        return Germination.PARKED
    if seen is None or (next_day is not None and next_day <= today.isoformat()):
        return Germination.DORMANT
    age = (today - _dt.date.fromisoformat(seen)).days
    if age < GROWING_DAYS:
        return Germination.GROWING
    if age <= RESTING_DAYS:
        return Germination.RESTING
    return Germination.DORMANT


def rank_key(tier: SporeTier, salience: int, germination: Germination, num: int) -> tuple[int, ...]:
    """Sort order: tier (hot first), then salience (high first), then germination."""
    return (_TIER_ORDER[tier], -salience, _GERMINATION_ORDER[germination], num)
