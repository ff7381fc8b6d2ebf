"""Cross-process locks on separate ``.lock`` files that are never replaced or deleted.

Locking a file that an atomic rename replaces would lock the old inode; a dedicated lock
file avoids that. A lock file is opened like every file beside the store (``_sidefile``):
never through a link, and only when it is a regular file. On platforms without ``fcntl``
the lock degrades to an in-process lock.
"""

from __future__ import annotations

import _thread  # threading.Lock is _thread.allocate_lock; threading itself is not needed (#25)
import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

from anneal_memory._sidefile import open_file
from anneal_memory.errors import LockUnavailableError

try:
    import fcntl

    _HAVE_FCNTL = True
except ImportError:  # pragma: no cover - Windows
    _HAVE_FCNTL = False

__all__ = ["DEFAULT_LOCK_TIMEOUT", "HeldFileLock", "file_lock"]

DEFAULT_LOCK_TIMEOUT = 30.0
_POLL_SECONDS = 0.005
_thread_locks: dict[str, _thread.LockType] = {}
_thread_locks_guard = _thread.allocate_lock()


def _thread_lock(path: Path) -> _thread.LockType:
    key = os.path.abspath(path)
    with _thread_locks_guard:
        return _thread_locks.setdefault(key, _thread.allocate_lock())


@contextlib.contextmanager
def file_lock(path: Path, *, timeout: float = DEFAULT_LOCK_TIMEOUT) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created 0600 if missing) for the block.

    Threads of one process are serialised too, since POSIX record locks are per process.

    Raises:
        LockUnavailableError: The lock was not acquired within ``timeout`` seconds.
        UnsafeFileError: A link, folder, FIFO or device is at ``path``.
    """
    local = _thread_lock(path)
    if not local.acquire(timeout=timeout):
        raise LockUnavailableError(f"could not lock {path} within {timeout:g}s (held in-process)")
    try:
        if not _HAVE_FCNTL:  # pragma: no cover - Windows
            yield
            return
        fd = _open_lock_file(path)
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


def _open_lock_file(path: Path) -> int:
    fd = open_file(path, what="the lock file", write=True, create=True)
    if fd is None:  # pragma: no cover - create=True never answers "missing"
        raise FileNotFoundError(path)
    return fd


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


class HeldFileLock:
    """The lock of :func:`file_lock`, with the lock file kept open between uses.

    For hot paths that lock on every call (each audit append): it saves opening and closing
    the lock file each time. Same exclusion as ``file_lock`` on the same path (threads of
    one process, then other processes). Use it as a context manager, as often as needed;
    ``close()`` releases the file. Not for use across ``fork()``: a child would share the
    open file and so the lock.

    Raises:
        LockUnavailableError: On entry, when the lock was not acquired within ``timeout``.
        UnsafeFileError: On entry, when a link, folder, FIFO or device is at the path.
    """

    def __init__(self, path: Path, *, timeout: float = DEFAULT_LOCK_TIMEOUT) -> None:
        self._path = path
        self._timeout = timeout
        self._local = _thread_lock(path)
        self._fd: int | None = None

    def __enter__(self) -> None:
        if not self._local.acquire(timeout=self._timeout):
            raise LockUnavailableError(
                f"could not lock {self._path} within {self._timeout:g}s (held in-process)"
            )
        if not _HAVE_FCNTL:  # pragma: no cover - Windows
            return
        try:
            if self._fd is None:
                self._fd = _open_lock_file(self._path)
            _acquire(self._fd, self._path, self._timeout)
        except BaseException:
            self._local.release()
            raise

    def __exit__(self, *exc_info: object) -> None:
        try:
            if _HAVE_FCNTL and self._fd is not None:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
        finally:
            self._local.release()

    def close(self) -> None:
        """Close the lock file (only while not held)."""
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None
