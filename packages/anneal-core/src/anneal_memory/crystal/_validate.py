"""Validation of crystal fields. Pure: every refusal names the field and what to do."""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import Enum
from typing import TypeVar

from anneal_memory._fields import check_slug, check_text
from anneal_memory.crystal._types import ActivationMode, Permanence, RetirementKind
from anneal_memory.errors import InvalidCrystalError

__all__ = [
    "MAX_EVIDENCE",
    "MAX_EXPLANATION_CHARS",
    "MAX_NAME_CHARS",
    "MAX_NOTE_CHARS",
    "MAX_TAGS",
    "MIN_LEVEL",
    "check_enum",
    "check_evidence",
    "check_explanation",
    "check_level",
    "check_name",
    "check_note",
    "check_source",
    "check_tags",
    "parse_activation_mode",
    "parse_permanence",
    "parse_retirement_kind",
]

MIN_LEVEL = 2
MAX_NAME_CHARS = 80
MAX_EXPLANATION_CHARS = 4000
MAX_EVIDENCE = 64
MAX_TAGS = 16
_MAX_TAG_CHARS = 40
_MAX_SOURCE_CHARS = 200
MAX_NOTE_CHARS = 2000
_MAX_LEVEL = 999_999_999
_EPISODE_ID = re.compile(r"[0-9a-f]{8}")

E = TypeVar("E", bound=Enum)


def check_name(value: object) -> str:
    """A crystal name: a slug of at most 80 characters."""
    return check_slug(value, "crystal name", limit=MAX_NAME_CHARS, error=InvalidCrystalError)


def check_level(value: object) -> int:
    """A level of 2 or more (1x patterns are still developing in the continuity file)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidCrystalError(f"level must be an integer of 2 or more, got {value!r}")
    if value < MIN_LEVEL:
        raise InvalidCrystalError(
            f"level must be 2 or more (Proven), got {value}: a 1x pattern is still developing "
            "and belongs in the continuity file, not the crystal tier"
        )
    if value > _MAX_LEVEL:
        raise InvalidCrystalError(f"level {value} is out of range (at most {_MAX_LEVEL})")
    return value


def check_explanation(value: object) -> str:
    """The explanation: 1-4000 characters."""
    return check_text(value, "explanation", limit=MAX_EXPLANATION_CHARS, error=InvalidCrystalError)


def check_evidence(values: Iterable[object] | None) -> tuple[str, ...]:
    """Episode ids: 8 hex characters each (lowercased), at most 64, repeats dropped."""
    if values is None:
        return ()
    if isinstance(values, str):
        raise InvalidCrystalError("evidence must be a list of episode ids, not one string")
    out: list[str] = []
    for value in values:
        ident = value.strip().lower() if isinstance(value, str) else value
        if not isinstance(ident, str) or not _EPISODE_ID.fullmatch(ident):
            raise InvalidCrystalError(
                f"evidence id {value!r} is not an episode id (8 hex characters, e.g. 0a1b2c3d)"
            )
        if ident not in out:
            out.append(ident)
    if len(out) > MAX_EVIDENCE:
        raise InvalidCrystalError(f"{len(out)} evidence ids; the limit is {MAX_EVIDENCE}")
    return tuple(out)


def check_tags(values: Iterable[object] | None) -> tuple[str, ...]:
    """Tags: slugs of at most 40 characters, at most 16, repeats dropped."""
    if values is None:
        return ()
    if isinstance(values, str):
        raise InvalidCrystalError("tags must be a list of tags, not one string")
    out: list[str] = []
    for value in values:
        tag = check_slug(value, "tag", limit=_MAX_TAG_CHARS, error=InvalidCrystalError)
        if tag not in out:
            out.append(tag)
    if len(out) > MAX_TAGS:
        raise InvalidCrystalError(f"{len(out)} tags; the limit is {MAX_TAGS}")
    return tuple(out)


def check_source(value: object) -> str:
    """Who crystallized it: one line of at most 200 characters ("" allowed)."""
    return check_text(
        value,
        "source",
        limit=_MAX_SOURCE_CHARS,
        error=InvalidCrystalError,
        allow_empty=True,
        multiline=False,
    )


def check_note(value: object) -> str:
    """A note: 1-2000 characters."""
    return check_text(value, "note", limit=MAX_NOTE_CHARS, error=InvalidCrystalError)


def check_enum(kind: type[E], value: object, name: str) -> E:
    """Accept an enum member or its value; refuse anything else naming the valid values."""
    if isinstance(value, kind):
        return value
    for member in kind:
        if value == member.value:
            return member
    valid = ", ".join(str(m.value) for m in kind)
    raise InvalidCrystalError(f"{name} {value!r} is not valid; use one of: {valid}")


def parse_permanence(value: object) -> Permanence:
    """``timeless`` or ``phase-specific``."""
    return check_enum(Permanence, value, "permanence")


def parse_activation_mode(value: object) -> ActivationMode:
    """``just-in-time`` or ``catastrophic``."""
    return check_enum(ActivationMode, value, "activation_mode")


def parse_retirement_kind(value: object) -> RetirementKind:
    """``falsified``, ``superseded``, ``merged`` or ``obsolete``."""
    return check_enum(RetirementKind, value, "retirement kind")
