"""File names of a scope's continuity: never steered by the scope's text.

Scope ``""`` keeps ``<stem>.continuity.md``. Scope ``S`` gets
``<stem>.continuity.<slug>-<hash>.md``: ``slug`` is at most 24 lower-case ASCII letters,
digits and dashes taken from ``S`` (for a reader), ``hash`` the first 16 hex digits of the
SHA-256 of ``S``'s UTF-8 (for uniqueness). The name has no separator, dot run or reserved
device name of its own, and two scopes differing only in case get different hashes, so they
never share a file on a case-insensitive file system.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__all__ = [
    "CONTINUITY_SUFFIX",
    "IN_FLIGHT_SUFFIXES",
    "LOCK_SUFFIX",
    "NONE_SUFFIX",
    "PREVIOUS_SUFFIX",
    "continuity_suffix",
    "in_flight",
    "interrupted_save_files",
]

CONTINUITY_SUFFIX = ".continuity.md"
# The lock file every writer of a continuity file holds is the file's name plus this.
LOCK_SUFFIX = ".lock"
# While a save's write of a continuity file is in flight (``store/wraps/_place``):
PREVIOUS_SUFFIX = ".prev"
"""``<file>.prev``: the last committed text."""
NONE_SUFFIX = ".none"
"""``<file>.none``: empty; there was no file before the save."""
IN_FLIGHT_SUFFIXES = (PREVIOUS_SUFFIX, NONE_SUFFIX)
_SLUG_CHARS = 24
_HASH_CHARS = 16


def _slug(scope: str) -> str:
    chars = [c if c.isascii() and c.isalnum() else "-" for c in scope.lower()]
    words = [w for w in "".join(chars).split("-") if w]
    return "-".join(words)[:_SLUG_CHARS].strip("-") or "scope"


def continuity_suffix(scope: str) -> str:
    """The suffix after the database's stem of ``scope``'s continuity file (a checked scope)."""
    if scope == "":
        return CONTINUITY_SUFFIX
    digest = hashlib.sha256(scope.encode("utf-8")).hexdigest()[:_HASH_CHARS]
    return f".continuity.{_slug(scope)}-{digest}.md"


def in_flight(path: Path) -> bool:
    """True when a save's write of the continuity file ``path`` was left in flight."""
    return any(os.path.lexists(path.with_name(path.name + s)) for s in IN_FLIGHT_SUFFIXES)


def interrupted_save_files(db_path: Path) -> list[Path]:
    """The continuity files beside ``db_path`` whose save was left in flight (one scan)."""
    prefix = db_path.stem + ".continuity"
    try:
        names = [entry.name for entry in os.scandir(db_path.parent)]
    except OSError:
        return []
    found = {
        name.removesuffix(suffix)
        for name in names
        for suffix in IN_FLIGHT_SUFFIXES
        if name.startswith(prefix) and name.endswith(".md" + suffix)
    }
    return sorted(db_path.with_name(name) for name in found)
