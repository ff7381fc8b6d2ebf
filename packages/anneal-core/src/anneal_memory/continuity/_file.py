"""The continuity file beside the database: ``<stem>.continuity.md``.

Writers hold ``<stem>.continuity.md.lock`` (a separate file that is never replaced) and
replace the file atomically, so a reader sees the old text or the new one, never a mix.
Reading takes no lock for the same reason.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from anneal_memory._fsio import atomic_write_text
from anneal_memory._locks import file_lock
from anneal_memory.store import Store

__all__ = [
    "CONTINUITY_SUFFIX",
    "LOCK_SUFFIX",
    "continuity_lock",
    "continuity_path",
    "read_continuity",
    "write_continuity",
]

CONTINUITY_SUFFIX = ".continuity.md"
LOCK_SUFFIX = ".lock"


def continuity_path(store: Store) -> Path:
    """Where ``store`` keeps its continuity file."""
    return store.sidecar(CONTINUITY_SUFFIX)


def _lock_path(path: Path) -> Path:
    return path.with_name(path.name + LOCK_SUFFIX)


@contextlib.contextmanager
def continuity_lock(path: Path) -> Iterator[None]:
    """Hold the continuity file's cross-process lock for the block.

    Raises:
        LockUnavailableError: Another process held it past the timeout.
    """
    with file_lock(_lock_path(path)):
        yield


def read_continuity(path: Path) -> str | None:
    """The file's text, or None when it does not exist yet."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def write_continuity(path: Path, text: str) -> None:
    """Replace the file with ``text`` (call with :func:`continuity_lock` held)."""
    atomic_write_text(path, text)
