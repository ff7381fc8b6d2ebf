"""One way to open the files anneal-memory reads or appends: never through a link, bounded.

Every file read or appended beside a database (each scope's continuity, the audit trail, its
manifest and sealed weeks, lock files), the HTTP token file and a file given to ``import``
is opened here. ``O_NOFOLLOW`` refuses a symbolic link at the path (its target is never
opened), ``O_NONBLOCK`` makes a FIFO fail at once instead of waiting for a writer, and an
``fstat`` of the open descriptor refuses anything that is not a regular file (a folder, a
FIFO, a device or socket). Reads stop at a bound given by the caller. Where ``O_NOFOLLOW``
does not exist (Windows) the path is ``lstat``-ed first and the opened file compared with it
by device and inode. Files are created 0600. Atomic replacement (``_fsio``) needs none of
this: a rename replaces a link or a FIFO at the path, it never writes through it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

from anneal_memory._fsio import PRIVATE_FILE_MODE
from anneal_memory.errors import StoreError, UnsafeFileError

__all__ = ["IMPORT_HINT", "non_regular", "open_file", "read_at_most", "read_bytes", "read_text"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_SAFE_FLAGS = (
    _NOFOLLOW
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
# What open(2) says when O_NOFOLLOW meets a link (Linux, FreeBSD, NetBSD), a FIFO without a
# reader meets O_NONBLOCK|O_WRONLY, or the path is a folder.
_REFUSALS = {errno.ELOOP, errno.EMLINK, errno.ENXIO, errno.EISDIR, getattr(errno, "EFTYPE", -1)}
_CHUNK = 1 << 20
IMPORT_HINT = "Import reads a regular file only: pass the file itself"


def _kind(mode: int) -> str | None:
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    return "a device or socket"


def non_regular(path: Path) -> str | None:
    """What is at ``path`` when it is not a regular file (``"a FIFO"``); None when it is or none is.

    The path itself is examined (``lstat``): a link is reported as a link, with its target.
    """
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    found = _kind(mode)
    if found == "a symbolic link":
        with contextlib.suppress(OSError):
            found += f" to {os.readlink(path)}"
    return found


def _refuse(path: Path, found: str, what: str, hint: str | None) -> UnsafeFileError:
    if hint is None:
        hint = (
            f"Remove it (if it stands for the real file, put that file at {path.name}) and run "
            "the command again"
        )
    return UnsafeFileError(
        f"{what} {path} is {found}, not a regular file; anneal-memory never reads or writes "
        f"through it. {hint}",
        path=path,
        found=found.split(" to ", 1)[0],
    )


def _flags(*, write: bool, create: bool, append: bool) -> int:
    flags = (os.O_RDWR if write or append else os.O_RDONLY) | _SAFE_FLAGS
    if create:
        flags |= os.O_CREAT
    if append:
        flags |= os.O_APPEND
    return flags


def _checked(
    fd: int, path: Path, what: str, before: os.stat_result | None, hint: str | None
) -> int:
    try:
        opened = os.fstat(fd)
        found = _kind(opened.st_mode)
        if found is None and before is not None:
            same = (opened.st_dev, opened.st_ino) == (before.st_dev, before.st_ino)
            found = None if same else "a file swapped while it was opened"
        if found is not None:
            raise _refuse(path, found, what, hint)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_file(
    path: Path,
    *,
    what: str,
    write: bool = False,
    create: bool = False,
    append: bool = False,
    hint: str | None = None,
) -> int | None:
    """Open the regular file at ``path``: a descriptor, or None when it does not exist.

    ``write`` opens it read-write, ``append`` read-write in append mode, ``create`` creates
    it (mode 0600) when missing. ``what`` names the file in errors ("the audit trail"),
    ``hint`` replaces the advice that ends one (default: remove it, run again).

    Raises:
        UnsafeFileError: A link, folder, FIFO, device or socket is at ``path``.
        OSError: Any other failure (permissions, a missing folder when creating).
    """
    before = None
    if not _NOFOLLOW:  # pragma: no cover - Windows
        try:
            before = os.lstat(path)
        except FileNotFoundError:
            before = None
        else:
            found = _kind(before.st_mode)
            if found is not None:
                raise _refuse(path, non_regular(path) or found, what, hint)
    try:
        fd = os.open(path, _flags(write=write, create=create, append=append), PRIVATE_FILE_MODE)
    except FileNotFoundError:
        if create:
            raise
        return None
    except OSError as exc:
        found = non_regular(path)
        if exc.errno in _REFUSALS and found is not None:
            raise _refuse(path, found, what, hint) from None
        raise
    if before is None and not _NOFOLLOW:  # pragma: no cover - Windows, created just now
        return fd
    return _checked(fd, path, what, before, hint)


def read_at_most(fd: int, limit: int) -> bytes:
    """Read from ``fd`` until its end or ``limit + 1`` bytes: more than ``limit`` means too big."""
    parts: list[bytes] = []
    total = 0
    while total <= limit:
        part = os.read(fd, min(_CHUNK, limit + 1 - total))
        if not part:
            break
        parts.append(part)
        total += len(part)
    return b"".join(parts)


def _read_fd(fd: int, path: Path, limit: int, what: str) -> bytes:
    data = read_at_most(fd, limit)
    if len(data) > limit:
        raise UnsafeFileError(
            f"{what} {path} is larger than {limit:,} bytes, the most anneal-memory reads of "
            "it: it is not a file anneal-memory wrote. Move it aside and run the command again",
            path=path,
            found=f"larger than {limit:,} bytes",
        )
    return data


def read_bytes(path: Path, *, limit: int, what: str) -> bytes | None:
    """The bytes of the regular file at ``path`` (at most ``limit``); None when it is missing.

    Raises:
        UnsafeFileError: It is not a regular file, or is larger than ``limit``.
        OSError: It cannot be read.
    """
    fd = open_file(path, what=what)
    if fd is None:
        return None
    try:
        return _read_fd(fd, path, limit, what)
    finally:
        os.close(fd)


def read_text(path: Path, *, limit: int, what: str) -> str | None:
    """The UTF-8 text of the regular file at ``path``; None when it is missing.

    Raises:
        UnsafeFileError: It is not a regular file, or is larger than ``limit`` bytes.
        StoreError: It is not UTF-8, or cannot be read.
    """
    try:
        data = read_bytes(path, limit=limit, what=what)
    except OSError as exc:
        raise StoreError(
            f"cannot read {what} {path}: {exc.strerror or exc}", operation="read", path=path
        ) from None
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StoreError(
            f"{what} {path} is not UTF-8 text (bad byte at {exc.start}); restore it from a "
            "backup or move it aside",
            operation="read",
            path=path,
        ) from None
