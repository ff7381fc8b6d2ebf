"""How ``AgentMemory`` fails: never by taking the agent's run or answer down.

A record, recall or wrap that fails at run time (the store is locked or unwritable, the disk
is full, the compressing model raised) is logged on the ``anneal_memory`` logger, counted,
and kept as the last failure; the call then returns its empty value (no episode, no memory
block, a ``failed`` wrap outcome) and the agent carries on. With ``strict=True`` the error is
raised instead. Caller mistakes (:class:`~anneal_memory.errors.InvalidInputError`: a
non-text argument, a sync wrap inside an event loop) always raise: they are bugs to fix, not
conditions of a run.
"""

from __future__ import annotations

import enum
import logging
import threading
from dataclasses import dataclass

from anneal_memory.errors import InvalidInputError

__all__ = ["FailureCounts", "FailureKind", "FailurePolicy", "MemoryFailure", "logger"]

logger = logging.getLogger("anneal_memory")
_MAX_MESSAGE_CHARS = 500


class FailureKind(str, enum.Enum):
    """Which part of the memory lifecycle failed."""

    RECORD = "record"
    RECALL = "recall"
    WRAP = "wrap"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True, kw_only=True)
class MemoryFailure:
    """One absorbed failure.

    Attributes:
        kind: ``record``, ``recall`` or ``wrap``.
        operation: The ``AgentMemory`` call that failed (``record_tool_result``, ...).
        error: The exception's type and message, ``"StoreDatabaseError: ..."`` (bounded).
    """

    kind: FailureKind
    operation: str
    error: str


@dataclass(frozen=True, slots=True, kw_only=True)
class FailureCounts:
    """How many records, recalls and wraps failed, and the most recent failure.

    Attributes:
        record: Failed recordings (the episode was not written).
        recall: Failed recalls (the model got no memory block for that call).
        wrap: Failed wraps (nothing saved; the episodes wait for the next wrap).
        last: The most recent failure, or None.
    """

    record: int = 0
    recall: int = 0
    wrap: int = 0
    last: MemoryFailure | None = None

    @property
    def total(self) -> int:
        """All failures together."""
        return self.record + self.recall + self.wrap


def _describe(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= _MAX_MESSAGE_CHARS else text[: _MAX_MESSAGE_CHARS - 1] + "…"


class FailurePolicy:
    """Absorbs (or, when ``strict``, re-raises) the run-time failures of one ``AgentMemory``."""

    def __init__(self, *, strict: bool) -> None:
        self.strict = strict
        self._lock = threading.Lock()
        self._counts = FailureCounts()

    @property
    def counts(self) -> FailureCounts:
        """A snapshot of the failures so far."""
        return self._counts

    def absorb(self, kind: FailureKind, operation: str, exc: Exception) -> MemoryFailure:
        """Log and count ``exc``; raise it instead when strict or a caller mistake.

        Call it from inside the ``except`` block, so a bare ``raise`` keeps the traceback.
        """
        if self.strict or isinstance(exc, InvalidInputError):
            raise exc
        failure = MemoryFailure(kind=kind, operation=operation, error=_describe(exc))
        with self._lock:
            counts = self._counts
            self._counts = FailureCounts(
                record=counts.record + (kind is FailureKind.RECORD),
                recall=counts.recall + (kind is FailureKind.RECALL),
                wrap=counts.wrap + (kind is FailureKind.WRAP),
                last=failure,
            )
        logger.warning(
            "anneal-memory: %s failed (%s); the agent's run continues without it: %s",
            kind.value,
            operation,
            failure.error,
        )
        return failure
