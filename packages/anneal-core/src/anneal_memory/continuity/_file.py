"""The continuity file beside a SQLite database: ``<stem>.continuity.md``, one per scope.

Scope ``""`` (the shared one) keeps ``<stem>.continuity.md``; any other scope gets its own
file beside it whose name comes from a hash of the scope, never from its raw text (see
:mod:`anneal_memory._scope_files`).

Writers hold ``<stem>.continuity.md.lock`` (a separate file that is never replaced) and
replace the file atomically, so a reader sees the old text or the new one, never a mix.
Reading takes no lock for the same reason. The wrap itself goes through
``store.continuity_place(scope)`` (``store/wraps/_place.py``), which is this file on
SQLite and the scope's row of the database on PostgreSQL.
"""

from __future__ import annotations

from pathlib import Path

from anneal_memory.errors import InvalidInputError
from anneal_memory.store import Store, validate_scope

__all__ = ["continuity_path", "wrap_scope"]


def wrap_scope(scope: object) -> str:
    """A checked wrap scope: "" (the shared one) or up to 64 printable characters.

    Raises:
        InvalidInputError: It is not such a string.
    """
    return validate_scope(scope, error=InvalidInputError)


def continuity_path(store: Store, scope: str = "") -> Path:
    """Where a SQLite ``store`` keeps the continuity file of ``scope``.

    Raises:
        InvalidInputError: ``scope`` is not a valid scope.
        BackendNotSupportedError: The store keeps no files beside it (PostgreSQL).
    """
    return store.continuity_file(scope)
