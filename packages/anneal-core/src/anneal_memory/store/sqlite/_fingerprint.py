"""The open-time damage check, paid only when the file changed outside this store's hands.

A write-capable open of a store under ``QUICK_CHECK_MAX_BYTES`` must not write to a file
with damaged pages. SQLite's ``quick_check`` finds them, but it walks every b-tree page
(9 ms at 10k episodes). Most opens find the file exactly as this store's last close left
it, so the check is kept for the files that changed since:

* After a clean ``quick_check`` (or on a store this open created), and again at a close
  that wrote, when no other connection wrote meanwhile and no WAL is left, the file's size
  and CRC-32 go into an extended attribute of the database file (``user.anneal-memory.
  checked``; no file beside the store).
* An open whose file has no WAL content and the recorded size and CRC-32 skips
  ``quick_check``: every byte is the one a checked (or this store's own) state left. Any
  byte changed since, by a crash, a disk, another program or a copy without the
  attribute, means a mismatch, and ``quick_check`` runs as before.

Reading and summing the file (memory-mapped) costs about a quarter of ``quick_check``.
Where extended attributes are missing (not Linux, or a file system without them) nothing
is recorded and every such open runs ``quick_check``, as before.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import sqlite3
import zlib
from pathlib import Path

__all__ = ["XATTR", "Session", "fingerprint", "matches", "record", "wal_is_empty"]

XATTR = "user.anneal-memory.checked"
_getxattr = getattr(os, "getxattr", None)
_setxattr = getattr(os, "setxattr", None)


def fingerprint(path: Path) -> bytes | None:
    """``b"<size>:<crc32>"`` of the file's bytes, or None when it cannot be read."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        if size == 0:
            return b"0:0"
        with mmap.mmap(fd, size, access=mmap.ACCESS_READ) as view:
            crc = zlib.crc32(view)
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)
    return f"{size}:{crc}".encode()


def wal_is_empty(path: Path) -> bool:
    """True when the database has no write-ahead log content (the file is the database)."""
    try:
        return os.stat(f"{path}-wal").st_size == 0
    except FileNotFoundError:
        return True
    except OSError:
        return False


def matches(path: Path) -> bool:
    """True when the file's size and CRC-32 are the ones recorded by a checked state."""
    if _getxattr is None or not wal_is_empty(path):
        return False
    try:
        recorded = bytes(_getxattr(path, XATTR, follow_symlinks=False))
    except OSError:
        return False
    return recorded == fingerprint(path)


def record(path: Path) -> None:
    """Record the file's size and CRC-32 as checked (best effort: unsupported is fine)."""
    if _setxattr is None or not wal_is_empty(path):
        return
    value = fingerprint(path)
    if value is None:
        return
    with contextlib.suppress(OSError):
        _setxattr(path, XATTR, value, follow_symlinks=False)


class Session:
    """What a write-capable connection saw since it opened its file.

    ``seal`` (after the connection closed) records the new fingerprint when the file was
    known good (checked before the first write, or created by this open), this connection
    wrote and nobody else did (``PRAGMA data_version`` unchanged since the open), so the
    next check of an unchanged file skips ``quick_check``. A connection that did not write
    leaves the recorded value as it is.
    """

    __slots__ = ("_changes", "_good", "_path", "_version")

    def __init__(self, conn: sqlite3.Connection, path: Path, *, good: bool) -> None:
        self._path = path
        self._good = good
        self._changes = conn.total_changes
        self._version = conn.execute("PRAGMA data_version").fetchone()[0]

    def checked(self, good: bool) -> None:
        """The damage check ran (before the first write): whether it found the file good."""
        self._good = good

    def before_close(self, conn: sqlite3.Connection) -> bool:
        """True when the file was known good and this connection alone wrote since."""
        if not self._good:
            return False
        try:
            version = conn.execute("PRAGMA data_version").fetchone()[0]
        except sqlite3.Error:
            return False
        return version == self._version and conn.total_changes != self._changes

    @property
    def path(self) -> Path:
        """The database file."""
        return self._path

    def seal(self) -> None:
        """After the close: record the file as this store's own state."""
        record(self._path)
