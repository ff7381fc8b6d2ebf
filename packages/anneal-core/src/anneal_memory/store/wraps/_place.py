"""Where a store keeps its continuity text: a file beside a SQLite store, a row on PostgreSQL.

The wrap reads and writes the text through a :class:`ContinuityPlace` the store hands out
(``Store.continuity_place()``), so the save's logic is written once:

- :class:`FilePlace` (SQLite): ``<stem>.continuity.md``, replaced atomically under its own
  cross-process lock file; written inside the save's transaction just before ``COMMIT`` and
  put back by :meth:`FilePlace.undo` when the commit then fails.
- The PostgreSQL row (``store/postgres/_continuity.py``): written by the save's own transaction,
  so text and wrap state commit together and there is nothing to undo.

Each scope has its own place: its own file (:mod:`anneal_memory._scope_files`), or its own
row. A file is read through :mod:`anneal_memory._sidefile`: never through a link, only when
it is a regular file, at most :data:`CONTINUITY_MAX_BYTES`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from anneal_memory._fsio import atomic_write_text
from anneal_memory._locks import file_lock
from anneal_memory._scope_files import LOCK_SUFFIX
from anneal_memory._sidefile import read_text
from anneal_memory.errors import StoreError
from anneal_memory.store._contract import ContinuityPlace, SqlConnection

__all__ = ["CONTINUITY_MAX_BYTES", "LOCK_SUFFIX", "ContinuityPlace", "FilePlace", "read_file"]

# Above the largest schema's hard maximum (1.25M characters) in UTF-8.
CONTINUITY_MAX_BYTES = 8 * 1024 * 1024


def read_file(path: Path) -> str | None:
    """The continuity file's text, or None when it does not exist yet.

    Raises:
        UnsafeFileError: A link, folder, FIFO or device is at ``path``, or it is too large.
        StoreError: It is not UTF-8 or cannot be read.
    """
    return read_text(path, limit=CONTINUITY_MAX_BYTES, what="the continuity file")


@dataclass(frozen=True, slots=True)
class FilePlace:
    """The continuity file beside a SQLite store."""

    path: Path

    @property
    def label(self) -> Path:
        """The file."""
        return self.path

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold ``<file>.lock`` (a separate file that is never replaced).

        Raises:
            LockUnavailableError: Another process held it past the timeout.
        """
        with file_lock(self.path.with_name(self.path.name + LOCK_SUFFIX)):
            yield

    def read(self, conn: SqlConnection) -> str | None:
        """The file's text (no lock needed: it is replaced atomically)."""
        del conn
        return read_file(self.path)

    def write(self, conn: SqlConnection, text: str, *, now: str) -> None:
        """Replace the file atomically (hold :meth:`lock`)."""
        del conn, now
        atomic_write_text(self.path, text)

    def undo(self, previous: str | None, written: str) -> None:
        """Put the previous text back (or remove the file) if ``written`` is still there."""
        try:
            if read_file(self.path) != written:
                return
        except StoreError:  # no longer the file that was written: leave it
            return
        if previous is not None:
            atomic_write_text(self.path, previous)
        else:
            self.path.unlink(missing_ok=True)
