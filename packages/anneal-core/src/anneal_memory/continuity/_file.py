"""The continuity file beside a SQLite database: ``<stem>.continuity.md``.

Writers hold ``<stem>.continuity.md.lock`` (a separate file that is never replaced) and
replace the file atomically, so a reader sees the old text or the new one, never a mix.
Reading takes no lock for the same reason. The wrap itself goes through
``store.continuity_place()`` (``store/_continuity_place.py``), which is this file on SQLite
and a row of the database on PostgreSQL.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from anneal_memory._fsio import atomic_write_text
from anneal_memory.store import Store
from anneal_memory.store._continuity_place import LOCK_SUFFIX, FilePlace, read_file

__all__ = [
    "CONTINUITY_SUFFIX",
    "LOCK_SUFFIX",
    "continuity_lock",
    "continuity_path",
    "read_continuity",
    "write_continuity",
]

CONTINUITY_SUFFIX = ".continuity.md"


def continuity_path(store: Store) -> Path:
    """Where ``store`` keeps its continuity file."""
    return store.sidecar(CONTINUITY_SUFFIX)


@contextlib.contextmanager
def continuity_lock(path: Path) -> Iterator[None]:
    """Hold the continuity file's cross-process lock for the block.

    Raises:
        LockUnavailableError: Another process held it past the timeout.
    """
    with FilePlace(path).lock():
        yield


def read_continuity(path: Path) -> str | None:
    """The file's text, or None when it does not exist yet."""
    return read_file(path)


def write_continuity(path: Path, text: str) -> None:
    """Replace the file with ``text`` (call with :func:`continuity_lock` held)."""
    atomic_write_text(path, text)
