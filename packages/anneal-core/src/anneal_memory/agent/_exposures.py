"""``AgentMemory``'s exposures: each block it hands a model, and the run's outcome.

``RunExposures`` records a non-empty block as an exposure (``anneal_memory.worth``; a failure
to record is logged, never raised) and remembers the newest ``PENDING_EXPOSURES`` that have
no outcome from this object yet: the run an ``outcome()`` without an exposure id labels.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Mapping
from typing import TYPE_CHECKING

from anneal_memory.agent._failures import FailureKind, FailurePolicy
from anneal_memory.agent._offloop import OffLoop
from anneal_memory.errors import ExposureNotFoundError, InvalidOutcomeError
from anneal_memory.worth._exposures import expose, get_exposure, prune_quietly
from anneal_memory.worth._outcomes import parse_label, parse_result, record_outcome
from anneal_memory.worth._types import Label, OutcomeRecord, Result, parse_item

if TYPE_CHECKING:
    from anneal_memory.agent._blocks import Block
    from anneal_memory.store import Store

__all__ = ["PENDING_EXPOSURES", "OutcomeReports", "RunExposures"]

PENDING_EXPOSURES = 256
"""How many exposures without an outcome ``outcome()`` (the run) remembers, newest kept."""


class RunExposures:
    """The exposures one ``AgentMemory`` recorded, and the outcomes it reports for them."""

    def __init__(self, store: Store, failures: FailurePolicy, offloop: OffLoop) -> None:
        self._store = store
        self._failures = failures
        self._offloop = offloop
        self._pending: deque[str] = deque(maxlen=PENDING_EXPOSURES)
        self._lock = threading.Lock()
        self.last: str | None = None

    def absorb(self, exc: Exception) -> None:
        """Count and log a failed outcome (raises it when strict)."""
        self._failures.absorb(FailureKind.RECORD, "outcome", exc)

    def expose(self, via: str, block: Block, scope: str | None, session_id: str | None) -> None:
        """Record ``block`` as an exposure (never raises; nothing when it shows nothing)."""
        if not block.items:
            return
        ident = expose(
            self._store, via, block.items, scope=scope or "", session_id=session_id,
            defer_prune=lambda: self._offloop.submit(prune_quietly, self._store),
        )  # fmt: skip
        if ident is not None:
            with self._lock:
                self._pending.append(ident)
                self.last = ident

    def outcome(
        self,
        result: Result | str | None,
        *,
        exposure: str | None,
        items: Mapping[str, Label | str] | None,
        note: str,
    ) -> tuple[OutcomeRecord, ...]:
        """See ``AgentMemory.outcome``."""
        outcome = parse_result(result)
        if items is not None and not isinstance(items, Mapping):
            raise InvalidOutcomeError("items must map KIND:REF to a label")
        labels = {k: parse_label(v) for k, v in (items or {}).items()}
        for key in labels:
            parse_item(key)
        if exposure is not None:
            targets = [exposure]
            with self._lock:  # it has its outcome now: the run's outcome leaves it alone
                if exposure in self._pending:
                    self._pending.remove(exposure)
        else:
            with self._lock:
                targets = list(self._pending)
                self._pending.clear()
        done: list[OutcomeRecord] = []
        for ident in targets:
            try:
                done.append(self._one(ident, outcome, labels, note, run=exposure is None))
            except InvalidOutcomeError:
                raise
            except ExposureNotFoundError:
                if exposure is not None:
                    raise
            except Exception as exc:
                self._failures.absorb(FailureKind.RECORD, "outcome", exc)
        return tuple(done)

    def _one(
        self, ident: str, result: Result, labels: Mapping[str, Label], note: str, *, run: bool
    ) -> OutcomeRecord:
        if run and labels:
            shown = set(get_exposure(self._store, ident).items)
            labels = {k: v for k, v in labels.items() if parse_item(k) in shown}
        return record_outcome(self._store, ident, result=result, items=labels, note=note)


class OutcomeReports:
    """``AgentMemory``'s outcome methods (kept here to keep that module small)."""

    _exposures: RunExposures

    def outcome(
        self,
        result: Result | str | None = None,
        *,
        exposure: str | None = None,
        items: Mapping[str, Label | str] | None = None,
        note: str = "",
    ) -> tuple[OutcomeRecord, ...]:
        """Say how the work after memory reached the model went; the merged outcomes.

        ``exposure`` names one exposure (``last_exposure``, or an id a recall reported);
        None means the run: every exposure this object recorded that has no outcome from it
        yet (the newest ``PENDING_EXPOSURES``). ``result`` is ``success``, ``failure`` or
        None (unknown); ``items`` labels shown items ``followed`` / ``ignored`` /
        ``not_applicable`` by ``KIND:REF`` (``episode:1a2b3c4d``, ``crystal:NAME``,
        ``pattern:NAME``); for the run, each exposure gets the labels of the items it
        showed. Later outcomes merge (``anneal_memory.worth.record_outcome``). Report-only:
        nothing ranks from it. A failure is absorbed like a failed record (``()``) unless
        :attr:`strict`; bad input raises.

        A run's exposure the retention already pruned is skipped.

        Raises:
            InvalidOutcomeError: A bad result, label or item (also when not strict).
            ExposureNotFoundError: The named ``exposure`` does not exist (also when not
                strict).
        """
        return self._exposures.outcome(result, exposure=exposure, items=items, note=note)

    @property
    def last_exposure(self) -> str | None:
        """The id of the newest exposure this object recorded (None before the first)."""
        return self._exposures.last

    def run_failed(self, cause: BaseException | str) -> None:
        """Report the run a failure: what adapters call when the framework says it failed.

        ``cause`` is the exception (a cancellation is noted as ``cancelled``) or a short
        text (``tool search failed``). Every exposure of this object without an outcome yet
        gets result ``failure`` and the note; nothing is labelled. Never raises: a store
        failure is absorbed like any other (see ``strict``). Safe to hand to
        ``offloop.record`` from an event loop.
        """
        import asyncio

        if isinstance(cause, asyncio.CancelledError):
            note = "cancelled"
        elif isinstance(cause, BaseException):
            note = f"raised {type(cause).__name__}"
        else:
            note = str(cause)[:200]
        try:
            self._exposures.outcome("failure", exposure=None, items=None, note=note)
        except Exception as exc:  # never take the agent's run down
            self._exposures.absorb(exc)
