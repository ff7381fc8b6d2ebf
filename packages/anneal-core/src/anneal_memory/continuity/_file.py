"""The continuity file beside the database: ``<stem>.continuity.md``, one per scope.

Scope ``""`` (the shared one) keeps ``<stem>.continuity.md``; any other scope gets its own
file beside it whose name comes from a hash of the scope, never from its raw text (see
:mod:`anneal_memory._scope_files`).

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
from anneal_memory._scope_files import CONTINUITY_SUFFIX, continuity_suffix
from anneal_memory.errors import InvalidInputError
from anneal_memory.store import Store
from anneal_memory.store._validate import validate_scope

__all__ = [
    "CONTINUITY_SUFFIX",
    "LOCK_SUFFIX",
    "continuity_lock",
    "continuity_path",
    "read_continuity",
    "wrap_scope",
    "write_continuity",
]

LOCK_SUFFIX = ".lock"


def wrap_scope(scope: object) -> str:
    """A checked wrap scope: "" (the shared one) or up to 64 printable characters.

    Raises:
        InvalidInputError: It is not such a string.
    """
    return validate_scope(scope, error=InvalidInputError)


def continuity_path(store: Store, scope: str = "") -> Path:
    """Where ``store`` keeps the continuity file of ``scope``.

    Raises:
        InvalidInputError: ``scope`` is not a valid scope.
    """
    return store.sidecar(continuity_suffix(wrap_scope(scope)))


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
