"""Where a store keeps its continuity text: a file beside a SQLite store, a row on PostgreSQL.

The wrap reads and writes the text through a :class:`ContinuityPlace` the store hands out
(``Store.continuity_place()``), so the save's logic is written once:

- :class:`FilePlace` (SQLite): ``<stem>.continuity.md``, replaced atomically under its own
  cross-process lock file; written inside the save's transaction just before ``COMMIT`` and
  put back by :meth:`FilePlace.undo` when the commit then fails. While that write is in
  flight the last committed text is kept as ``<file>.prev`` (a hard link, else a copy; or an
  empty ``<file>.none`` when there was no file), removed by :meth:`FilePlace.committed`.
  A process killed between the rename and the ``COMMIT`` leaves them behind, and
  :meth:`FilePlace.recover` (on the next write-capable open, and before the next save) puts
  the last committed text back: the database never learnt of the text the file holds, its
  wrap is still open, and its pattern history, citations and audit entries were never
  written, so the committed text is the one that agrees with everything else.
- The PostgreSQL row (``store/postgres/_continuity.py``): written by the save's own transaction,
  so text and wrap state commit together and there is nothing to undo.

Each scope has its own place: its own file (:mod:`anneal_memory._scope_files`), or its own
row. A file is read through :mod:`anneal_memory._sidefile`: never through a link, only when
it is a regular file, at most :data:`CONTINUITY_MAX_BYTES`.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anneal_memory._fsio import atomic_write_text
from anneal_memory._locks import file_lock
from anneal_memory._scope_files import (
    IN_FLIGHT_SUFFIXES,
    LOCK_SUFFIX,
    NONE_SUFFIX,
    PREVIOUS_SUFFIX,
    in_flight,
    interrupted_save_files,
)
from anneal_memory._sidefile import non_regular, read_bytes, read_text
from anneal_memory.errors import StoreError
from anneal_memory.store._contract import ContinuityPlace, SqlConnection, Tx

__all__ = [
    "CONTINUITY_MAX_BYTES",
    "IN_FLIGHT_SUFFIXES",
    "LOCK_SUFFIX",
    "ContinuityPlace",
    "FilePlace",
    "interrupted_save_files",
    "last_saved_sha256",
    "read_file",
    "restore_interrupted",
]


# Above the largest schema's hard maximum (1.25M characters) in UTF-8.
CONTINUITY_MAX_BYTES = 8 * 1024 * 1024


def read_file(path: Path) -> str | None:
    """The continuity file's text, or None when it does not exist yet.

    Raises:
        UnsafeFileError: A link, folder, FIFO or device is at ``path``, or it is too large.
        StoreError: It is not UTF-8 or cannot be read.
    """
    return read_text(path, limit=CONTINUITY_MAX_BYTES, what="the continuity file")


def last_saved_sha256(conn: SqlConnection, scope: str) -> str | None:
    """The SHA-256 of the text the last committed save of ``scope`` wrote (None: no save)."""
    row = conn.execute(
        "SELECT continuity_sha256 FROM wraps WHERE scope = ? AND status = 'completed'"
        " ORDER BY id DESC LIMIT 1",
        (scope,),
    ).fetchone()
    return None if row is None or row[0] is None else str(row[0])


def _sha256_of(path: Path) -> str | None:
    try:
        raw = read_bytes(path, limit=CONTINUITY_MAX_BYTES, what="the continuity file")
    except (StoreError, OSError):
        return "unreadable"
    return None if raw is None else hashlib.sha256(raw).hexdigest()


@dataclass(frozen=True, slots=True)
class FilePlace:
    """The continuity file beside a SQLite store (``scope``: whose file it is)."""

    path: Path
    scope: str = ""

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

    def marker(self, suffix: str) -> Path:
        """``<file><suffix>``: one of :data:`IN_FLIGHT_SUFFIXES`."""
        return self.path.with_name(self.path.name + suffix)

    def in_flight(self) -> bool:
        """True when a save's write was left in flight (its markers are still there)."""
        return in_flight(self.path)

    def _clear_markers(self) -> None:
        base = os.fspath(self.path)  # plain strings: a save clears them twice (no Path parsing)
        for suffix in IN_FLIGHT_SUFFIXES:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(base + suffix)

    def _keep_previous(self) -> None:
        """Keep the committed text (a hard link, else a copy) before the file is replaced."""
        self._clear_markers()
        if not os.path.lexists(self.path):
            atomic_write_text(self.marker(NONE_SUFFIX), "")
            return
        previous = self.marker(PREVIOUS_SUFFIX)
        try:
            os.link(self.path, previous, follow_symlinks=False)
        except OSError:  # a file system without hard links: a copy
            atomic_write_text(previous, read_file(self.path) or "")

    def write(self, conn: SqlConnection, text: str, *, now: str) -> None:
        """Replace the file atomically (hold :meth:`lock`), keeping the committed text."""
        del conn, now
        self._keep_previous()
        atomic_write_text(self.path, text)

    def committed(self) -> None:
        """After the save's ``COMMIT``: the kept text is no longer needed."""
        self._clear_markers()

    def erase(self, conn: SqlConnection) -> None:
        """Nothing inside the transaction: the file goes after the commit (:meth:`erased`)."""
        del conn

    def erased(self) -> None:
        """Remove the file (and anything a killed save left beside it)."""
        self._clear_markers()
        self.path.unlink(missing_ok=True)

    def undo(self, previous: str | None, written: str) -> None:
        """Put the previous text back (or remove the file) if ``written`` is still there."""
        try:
            if read_file(self.path) != written:
                self._clear_markers()
                return
        except StoreError:  # no longer the file that was written: leave it
            return
        if previous is not None:
            atomic_write_text(self.path, previous)
        else:
            self.path.unlink(missing_ok=True)
        self._clear_markers()

    def recover(self, conn: SqlConnection) -> dict[str, Any] | None:
        """Undo a save's write whose ``COMMIT`` never came (hold :meth:`lock`).

        Returns what was done, for the audit entry (None: nothing was in flight, or the save
        had committed and only its markers were left).
        """
        if not self.in_flight():
            return None
        previous, none = self.marker(PREVIOUS_SUFFIX), self.marker(NONE_SUFFIX)
        current = _sha256_of(self.path)
        saved = last_saved_sha256(conn, self.scope)
        if current is not None and current == saved:
            self._clear_markers()
            return None
        outcome: dict[str, Any] = {
            "discarded_hash": None if current is None else "sha256:" + current,
            "scoped": self.scope != "",
        }
        if os.path.lexists(previous) and non_regular(previous) is None:
            kept = _sha256_of(previous)
            os.replace(previous, self.path)
            outcome["restored_hash"] = None if kept is None else "sha256:" + kept
        elif os.path.lexists(none):
            self.path.unlink(missing_ok=True)
            outcome["restored_hash"] = None
        else:  # a link or FIFO at the marker: leave it for check to name
            return None
        self._clear_markers()
        return outcome


def restore_interrupted(tx: Tx, place: ContinuityPlace) -> bool:
    """Put back the committed text a killed save left replaced (hold the place's lock).

    Audited as ``continuity_restored``; True when something was put back.
    """
    outcome = place.recover(tx.conn)
    if outcome is not None:
        tx.audit("continuity_restored", actor="agent", data=outcome)
    return outcome is not None
