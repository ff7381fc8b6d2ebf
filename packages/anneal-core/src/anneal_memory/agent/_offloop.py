"""Store work off the event loop, for adapters whose hooks run on one.

An async framework calls its hooks on its event loop; a store call made there (a write waits
up to about 20 s for a write lock another process holds) would freeze every task of that loop.
``OffLoop`` moves the work to threads:

* **Records** go to one writer thread, in order, and the call returns at once. A record that
  meets a locked store (``StoreDatabaseError.retryable``) is tried again there after a pause
  that grows to ``RETRY_PAUSE_MAX`` seconds, until it is written: nothing is dropped while the
  process lives, and :meth:`OffLoop.drain` (called by ``AgentMemory.close`` and at exit)
  waits for the rest, bounded.
* **Reads** (the memory block, ``wrap_due``) first let the records submitted so far land, then
  run in a reader thread; the caller waits at most ``wait`` seconds in all and otherwise gets
  the call's empty value. Once a wait ran out, later reads and settles return at once until the
  stuck work is done, so a long lock costs the agent one bounded wait in total, not one per call.
"""

from __future__ import annotations

import atexit
import collections
import concurrent.futures
import logging
import sys
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

from anneal_memory.errors import StoreDatabaseError

__all__ = ["DEFAULT_WAIT", "RETRY_PAUSE_MAX", "OffLoop", "holds_for_retry", "in_event_loop"]

T = TypeVar("T")
logger = logging.getLogger("anneal_memory")

DEFAULT_WAIT = 2.0
"""Seconds an async hook waits for the store at most (reads and settling)."""
RETRY_PAUSE_MAX = 5.0
"""The longest pause between two tries of a record that met a locked store."""
_FIRST_PAUSE = 0.2
_LAST_MOMENT = 0.1
_EXIT_DRAIN_SECONDS = 30.0

_writer_thread = threading.local()
_live: weakref.WeakSet[OffLoop] = weakref.WeakSet()


def in_event_loop() -> bool:
    """Whether the calling thread is running an asyncio event loop right now."""
    asyncio = sys.modules.get("asyncio")  # never imported: no loop can be running
    if asyncio is None:
        return False
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def holds_for_retry(exc: BaseException) -> bool:
    """Whether ``exc`` is a locked store met by an ``OffLoop`` writer, which retries it."""
    locked = isinstance(exc, StoreDatabaseError) and exc.retryable
    return locked and getattr(_writer_thread, "active", False)


class OffLoop:
    """A writer thread with a retry queue and bounded reads for one ``AgentMemory``.

    Args:
        wait: The longest an awaited read or settle waits for the store, in seconds.

    Attributes:
        wait: See Args.
        retries: How many times a record met a locked store and was queued again.
    """

    def __init__(self, *, wait: float = DEFAULT_WAIT) -> None:
        self.wait = wait
        self.retries = 0
        self._jobs: collections.deque[Callable[[], object]] = collections.deque()
        self._cond = threading.Condition()
        self._unfinished = 0
        self._writer: threading.Thread | None = None
        self._readers: concurrent.futures.ThreadPoolExecutor | None = None
        self._stuck: concurrent.futures.Future[Any] | None = None
        self._stalled = False
        _live.add(self)

    @property
    def pending(self) -> int:
        """Records submitted and not yet written (queued, being written or being retried)."""
        with self._cond:
            return self._unfinished

    # -- writing -----------------------------------------------------------------------------

    def submit(self, fn: Callable[..., object], /, *args: Any, **kwargs: Any) -> None:
        """Run ``fn(*args, **kwargs)`` on the writer thread, after what was submitted before."""
        with self._cond:
            self._jobs.append(lambda: fn(*args, **kwargs))
            self._unfinished += 1
            if self._writer is None:
                self._writer = threading.Thread(
                    target=self._write_forever, name="anneal-memory-writer", daemon=True
                )
                self._writer.start()
            self._cond.notify_all()

    def record(self, fn: Callable[..., object], /, *args: Any, **kwargs: Any) -> None:
        """Call ``fn`` now when no event loop runs in this thread, else :meth:`submit` it."""
        if in_event_loop():
            self.submit(fn, *args, **kwargs)
        else:
            fn(*args, **kwargs)

    def _write_forever(self) -> None:
        _writer_thread.active = True
        while True:
            with self._cond:
                while not self._jobs:
                    self._cond.wait()
                job = self._jobs.popleft()
            try:
                self._until_written(job)
            finally:
                with self._cond:
                    self._unfinished -= 1
                    self._cond.notify_all()

    def _until_written(self, job: Callable[[], object]) -> None:
        pause = _FIRST_PAUSE
        while True:
            try:
                job()
            except StoreDatabaseError as exc:
                if not exc.retryable:
                    logger.warning("anneal-memory: a queued write failed: %s", exc)
                    return
                self.retries += 1
                logger.info("anneal-memory: the store is locked; retrying in %.1f s", pause)
                time.sleep(pause)
                pause = min(pause * 2, RETRY_PAUSE_MAX)
            except Exception as exc:
                logger.warning("anneal-memory: a queued write failed: %r", exc)
                return
            else:
                return

    def drain(self, timeout: float | None = None) -> bool:
        """Block until every submitted record is written (or ``timeout`` s); True when done."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._unfinished:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(left)
        return True

    # -- waiting on the loop -----------------------------------------------------------------

    def _may_wait(self) -> bool:
        if self._stalled:
            stuck = self._stuck is not None and not self._stuck.done()
            if stuck or self.pending:
                return False
            self._stalled, self._stuck = False, None
        return True

    async def settle(self, timeout: float | None = None) -> bool:
        """Wait (bounded, on the loop) until the records submitted so far are written.

        Returns False at once while an earlier wait is still stuck, or when the wait ran out.
        """
        import asyncio

        if not self.pending:
            return True
        if not self._may_wait():
            return False
        wait = self.wait if timeout is None else timeout
        done = await asyncio.to_thread(self.drain, wait)
        if not done:
            self._stalled = True
        return done

    async def read(self, fn: Callable[..., T], /, *args: Any, default: T, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` in a reader thread, after the queued records; bounded wait.

        Returns ``default`` when the records or the read take longer than ``wait`` seconds in
        all, or at once while an earlier wait is still stuck.
        """
        import asyncio

        start = time.monotonic()
        if not await self.settle():
            return default
        if not self._may_wait():
            return default
        if self._readers is None:
            self._readers = concurrent.futures.ThreadPoolExecutor(
                max_workers=2, thread_name_prefix="anneal-memory-reader"
            )
        future = self._readers.submit(fn, *args, **kwargs)
        # What settling left of the wait (a fast read still gets a moment when it used it up).
        left = max(self.wait - (time.monotonic() - start), min(self.wait, _LAST_MOMENT))
        try:
            return await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(future)), left)
        except asyncio.TimeoutError:
            self._stuck, self._stalled = future, True
            logger.warning(
                "anneal-memory: the store did not answer within %.1f s; the agent carries on "
                "without memory until it does",
                self.wait,
            )
            return default

    def close(self, timeout: float = _EXIT_DRAIN_SECONDS) -> None:
        """Wait (bounded) for the queued records and stop the reader threads.

        Called on the writer thread itself (a close queued after the records), it only stops
        the readers: everything submitted before it is written by then.
        """
        on_writer = getattr(_writer_thread, "active", False)
        if not on_writer and not self.drain(timeout):
            logger.warning(
                "anneal-memory: %d record(s) were still waiting for a locked store at close",
                self.pending,
            )
        readers, self._readers = self._readers, None  # made again if the memory is used on
        if readers is not None:
            readers.shutdown(wait=False)


@atexit.register
def _drain_at_exit() -> None:  # pragma: no cover - runs at interpreter exit
    for offloop in list(_live):
        if offloop.pending:
            offloop.close()
