"""Helpers for tests of code that uses anneal-memory: a frozen clock and throwaway stores.

These ship with the library (like ``structlog.testing``) so adapter authors and users can
write deterministic tests without reaching into private modules.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from anneal_memory.continuity._scripted import DEMO_GROUNDED, DEMO_INVENTED, demo_compress
from anneal_memory.store import Store

__all__ = ["DEMO_GROUNDED", "DEMO_INVENTED", "FrozenClock", "demo_compress", "temp_store"]

_DEFAULT_START = _dt.datetime(2026, 1, 5, 9, 0, 0, tzinfo=_dt.timezone.utc)


class FrozenClock:
    """A clock that only moves when told to, optionally ticking by ``step`` on every read.

    Args:
        start: The first time it reports (aware; defaults to 2026-01-05 09:00 UTC).
        step: Added after every ``now()`` so successive stamps differ (default: none).
    """

    def __init__(
        self,
        start: _dt.datetime | None = None,
        *,
        step: _dt.timedelta = _dt.timedelta(0),
    ) -> None:
        moment = start or _DEFAULT_START
        if moment.tzinfo is None:
            raise ValueError("FrozenClock start must be timezone-aware")
        self._now = moment.astimezone(_dt.timezone.utc)
        self._step = step
        self._lock = threading.Lock()

    def now(self) -> _dt.datetime:
        """Return the frozen time (then advance by ``step``)."""
        with self._lock:
            current = self._now
            self._now = current + self._step
            return current

    def advance(self, delta: _dt.timedelta | None = None, **units: float) -> _dt.datetime:
        """Move forward by ``delta`` or by keyword units (``days=1``, ``hours=2``)."""
        with self._lock:
            self._now += delta if delta is not None else _dt.timedelta(**units)
            return self._now

    def set(self, moment: _dt.datetime) -> None:
        """Jump to ``moment`` (aware)."""
        if moment.tzinfo is None:
            raise ValueError("FrozenClock.set needs a timezone-aware datetime")
        with self._lock:
            self._now = moment.astimezone(_dt.timezone.utc)


@contextlib.contextmanager
def temp_store(*, project_name: str = "Agent", clock: FrozenClock | None = None) -> Iterator[Store]:
    """Yield a ``Store`` in a fresh temporary folder, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="anneal-") as folder:
        store = Store(Path(folder) / "memory.db", project_name=project_name, clock=clock)
        try:
            yield store
        finally:
            store.close()
