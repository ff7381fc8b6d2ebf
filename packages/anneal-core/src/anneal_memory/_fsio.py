"""File writes that are either complete or absent, and private file modes."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

__all__ = [
    "PRIVATE_DIR_MODE",
    "PRIVATE_FILE_MODE",
    "atomic_write_bytes",
    "atomic_write_text",
    "ensure_private_dir",
    "ensure_private_file",
    "fsync_dir",
]

PRIVATE_FILE_MODE = 0o600
PRIVATE_DIR_MODE = 0o700


def fsync_dir(directory: Path) -> None:
    """Flush a directory entry to disk so a rename inside it survives a crash."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # platforms without directory handles (Windows)
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def ensure_private_dir(directory: Path) -> list[Path]:
    """Create ``directory`` and each missing parent with mode 0700, whatever the umask.

    An existing directory keeps its mode: it may be shared (a project folder, the cwd).
    Returns the directories created, outermost first (a failed create removes them again).
    """
    missing: list[Path] = []
    for candidate in (directory, *directory.parents):
        if candidate.is_dir():
            break
        missing.append(candidate)
    created: list[Path] = []
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=PRIVATE_DIR_MODE)
        except FileExistsError:
            if not folder.is_dir():
                raise
            continue
        os.chmod(folder, PRIVATE_DIR_MODE)
        created.append(folder)
    return created


def ensure_private_file(path: Path) -> bool:
    """Create ``path`` empty with mode 0600 unless it exists. Returns True if it was created."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE)
    except FileExistsError:
        return False
    os.close(fd)
    return True


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data``: temp file, fsync, rename, directory fsync.

    Readers see either the old file or the new one, never a torn mix. The new file is 0600.
    """
    directory = path.parent
    tmp = directory / f".{path.name}.tmp-{os.urandom(6).hex()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    fsync_dir(directory)


def atomic_write_text(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` encoded as UTF-8 (see :func:`atomic_write_bytes`)."""
    atomic_write_bytes(path, text.encode("utf-8"))
