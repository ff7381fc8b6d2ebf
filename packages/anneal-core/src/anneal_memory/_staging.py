"""Import staging beside the store: private, removed on every exit, orphans cleaned up.

An import stages what it reads (hundreds of MB for a million episodes) in a folder beside the
destination database, ``.<stem>.import-<12 hex>`` (mode 0700), so it stays on the store's
file system and never piles up in the system temp folder. The folder holds a ``lock`` file
its importer keeps locked while it works; the folder is removed when the import ends, on
success, error or ``KeyboardInterrupt``. A killed importer leaves it behind: the next
write-capable open of the store, or the next import, removes such orphans, and ``check``
names them. An orphan is recognised by its name, its owner (this user), its age (a minute at
least: younger, its importer may be between creating it and locking it) and its lock, which
nobody holds any more (a live import in any process holds it).
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import time
from collections.abc import Iterator
from pathlib import Path

from anneal_memory._fsio import PRIVATE_DIR_MODE, PRIVATE_FILE_MODE

try:
    import fcntl

    _HAVE_FCNTL = True
except ImportError:  # pragma: no cover - Windows
    _HAVE_FCNTL = False

__all__ = [
    "STAGING_PREFIX",
    "orphaned_staging",
    "remove_orphaned_staging",
    "staging_folder",
]

STAGING_PREFIX = ".import-"
_LOCK = "lock"
_MIN_AGE_SECONDS = 60.0
_NAME = re.compile(r"\.import-[0-9a-f]{12}")


def _name_pattern(db_path: Path) -> re.Pattern[str]:
    return re.compile(re.escape(f".{db_path.stem}") + _NAME.pattern)


def _hold(lock: Path) -> int:
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(lock, flags, PRIVATE_FILE_MODE)
    if _HAVE_FCNTL:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BaseException:
            os.close(fd)
            raise
    return fd


@contextlib.contextmanager
def staging_folder(db_path: Path) -> Iterator[Path]:
    """A new private folder beside ``db_path`` for one import, removed when the block ends.

    Orphans of killed imports beside the same database are removed first.
    """
    import shutil  # only here and for orphans: an open need not load it (start-up, #25)

    remove_orphaned_staging(db_path)
    folder = db_path.with_name(f".{db_path.stem}{STAGING_PREFIX}{os.urandom(6).hex()}")
    folder.mkdir(mode=PRIVATE_DIR_MODE)
    fd = None
    try:
        os.chmod(folder, PRIVATE_DIR_MODE)
        fd = _hold(folder / _LOCK)
        yield folder
    finally:
        # The folder goes before its lock is let go: no other process takes it for an orphan.
        shutil.rmtree(folder, ignore_errors=True)
        if fd is not None:
            os.close(fd)


def _ours(entry: os.DirEntry[str]) -> bool:
    try:
        info = entry.stat(follow_symlinks=False)
    except OSError:
        return False
    owner = getattr(os, "geteuid", None)
    return stat.S_ISDIR(info.st_mode) and (owner is None or info.st_uid == owner())


def _lock_free(lock: Path) -> bool:
    """True when nobody holds ``lock`` (or it is missing): its importer is gone."""
    flags = os.O_RDWR | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(lock, flags)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    if not _HAVE_FCNTL:  # pragma: no cover - Windows: a file held open cannot be removed
        os.close(fd)
        try:
            lock.unlink()
        except OSError:
            return False
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


def _abandoned(folder: Path, now: float) -> bool:
    """True when ``folder`` is a minute old and no live import holds its lock."""
    try:
        young = now - folder.stat().st_mtime < _MIN_AGE_SECONDS
    except OSError:
        return False
    return not young and _lock_free(folder / _LOCK)


def orphaned_staging(db_path: Path) -> list[Path]:
    """Staging folders beside ``db_path`` left by imports that were killed (ours only)."""
    pattern = _name_pattern(db_path)
    now = time.time()
    try:
        entries = list(os.scandir(db_path.parent))
    except OSError:
        return []
    found = [
        Path(entry.path)
        for entry in entries
        if pattern.fullmatch(entry.name) and _ours(entry) and _abandoned(Path(entry.path), now)
    ]
    return sorted(found)


def remove_orphaned_staging(db_path: Path) -> int:
    """Remove the orphaned staging folders beside ``db_path``; return how many went."""
    removed = 0
    for folder in orphaned_staging(db_path):
        import shutil  # rare: loaded only when there is an orphan to remove

        shutil.rmtree(folder, ignore_errors=True)
        removed += not os.path.lexists(folder)
    return removed
