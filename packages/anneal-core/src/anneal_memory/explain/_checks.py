"""Argument checks of the explain calls: a bad argument is refused before anything is read."""

from __future__ import annotations

import re

from anneal_memory.errors import InvalidInputError

__all__ = ["MAX_LIMIT", "check_episode_id", "check_limit", "check_name", "check_scope"]

MAX_LIMIT = 1000
"""The most steps, links or audit entries one explanation lists."""
_MAX_SCOPE = 64
_MAX_NAME = 200
_EPISODE_ID = re.compile(r"[0-9a-f]{8}")


def check_name(value: object) -> str:
    """A pattern name: 1-200 printable characters (surrounding spaces dropped)."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"a pattern name is needed, got {value!r}")
    name = value.strip()
    if len(name) > _MAX_NAME or not name.isprintable():
        raise InvalidInputError(
            f"a pattern name is at most {_MAX_NAME} printable characters, got {value!r}"
        )
    return name


def check_scope(value: object) -> str:
    """A scope: "" (the shared one) or at most 64 printable characters."""
    if not isinstance(value, str) or len(value) > _MAX_SCOPE or not value.isprintable():
        raise InvalidInputError(
            f"scope must be up to {_MAX_SCOPE} printable characters, got {value!r}"
        )
    return value


def check_limit(value: object) -> int:
    """A limit from 1 to :data:`MAX_LIMIT`."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_LIMIT:
        raise InvalidInputError(f"limit must be an integer from 1 to {MAX_LIMIT}, got {value!r}")
    return value


def check_episode_id(value: object) -> str:
    """An episode id: eight hex characters (case and surrounding spaces ignored)."""
    ident = value.strip().lower() if isinstance(value, str) else ""
    if not _EPISODE_ID.fullmatch(ident):
        raise InvalidInputError(f"an episode id is eight hex characters, got {value!r}")
    return ident
