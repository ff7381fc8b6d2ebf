"""Cross-process locks on separate ``.lock`` files that are never replaced or deleted.

Locking a file that an atomic rename replaces would lock the old inode; a dedicated lock
file avoids that. On platforms without ``fcntl`` the lock degrades to an in-process lock.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from anneal_memory._fsio import PRIVATE_FILE_MODE
from anneal_memory.errors import LockUnavailableError

try:
    import fcntl

    _HAVE_FCNTL = True
except ImportError:  # pragma: no cover - Windows
    _HAVE_FCNTL = False

__all__ = ["DEFAULT_LOCK_TIMEOUT", "file_lock"]

DEFAULT_LOCK_TIMEOUT = 30.0
_POLL_SECONDS = 0.005
_thread_locks: dict[str, threading.Lock] = {}
_thread_locks_guard = threading.Lock()


def _thread_lock(path: Path) -> threading.Lock:
    key = os.path.abspath(path)
    with _thread_locks_guard:
        return _thread_locks.setdefault(key, threading.Lock())


@contextlib.contextmanager
def file_lock(path: Path, *, timeout: float = DEFAULT_LOCK_TIMEOUT) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created 0600 if missing) for the block.

    Threads of one process are serialised too, since POSIX record locks are per process.

    Raises:
        LockUnavailableError: The lock was not acquired within ``timeout`` seconds.
    """
    local = _thread_lock(path)
    if not local.acquire(timeout=timeout):
        raise LockUnavailableError(f"could not lock {path} within {timeout:g}s (held in-process)")
    try:
        if not _HAVE_FCNTL:  # pragma: no cover - Windows
            yield
            return
        fd = os.open(path, os.O_RDWR | os.O_CREAT, PRIVATE_FILE_MODE)
        try:
            _acquire(fd, path, timeout)
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)
    finally:
        local.release()


def _acquire(fd: int, path: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise LockUnavailableError(
                    f"could not lock {path} within {timeout:g}s: another process holds it"
                ) from None
            time.sleep(_POLL_SECONDS)
