"""``AgentMemory``: the framework-neutral lifecycle every adapter drives.

An adapter maps its framework's hooks onto five calls: ``start()`` when a session begins,
``context_for(prompt)`` before each model call, ``record_tool_result`` / ``record_answer``
as things happen, and ``wrap(compress)`` (or ``awrap``) at session end with the agent's own
model as the compressor; ``turn_context(prompt, turn=key)`` is the first two together,
computed once per turn of the framework. What gets recorded, and how large it may be, is
one :class:`RecordingPolicy` shared by every adapter. Each non-empty block is an exposure
(``anneal_memory.worth``); ``outcome(...)`` says how the run after it went.
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading
from collections.abc import Generator, Hashable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any

from anneal_memory._clock import Clock
from anneal_memory.agent._blocks import Block, context_block, startup_block
from anneal_memory.agent._echoes import SurfacedEpisodes, write_copy
from anneal_memory.agent._exposures import OutcomeReports, RunExposures
from anneal_memory.agent._failures import (
    FailureCounts,
    FailureKind,
    FailurePolicy,
    MemoryFailure,
    logger,
)
from anneal_memory.agent._offloop import OffLoop, holds_for_retry
from anneal_memory.agent._recording import (
    RecordingPolicy,
    has_content_words,
    query_text,
    render_tool_failure,
    render_tool_result,
    render_value,
    shape_text,
)
from anneal_memory.agent._turns import TurnBlocks
from anneal_memory.agent._wrapflow import (
    Ask,
    WrapOutcome,
    WrapOutcomeStatus,
    run_async,
    run_sync,
    waiting_episodes,
    wrap_steps,
)
from anneal_memory.errors import InvalidInputError, StoreDatabaseError
from anneal_memory.store import DEFAULT_PROJECT_NAME, Store, location_of
from anneal_memory.types import Episode, EpisodeType, Trust

if TYPE_CHECKING:
    from anneal_memory.agent._types import AffectSource, Compressor
    from anneal_memory.associations import Affect

__all__ = [
    "AgentMemory",
    "FailureCounts",
    "MemoryFailure",
    "RecordingPolicy",
    "WrapOutcome",
    "WrapOutcomeStatus",
]


def _positive(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidInputError(f"{name} must be a positive int, got {value!r}")
    return value


class AgentMemory(OutcomeReports):
    """One agent session's memory: startup context, recall, recording and the wrap.

    Args:
        store_or_path: An open ``Store`` (left open by ``close()``), or a database path
            (opened here and closed by ``close()``).
        session_id: This session's id, passed to the wrap (a baton-protected store only
            lets the baton holder's session consolidate).
        project_name: The agent's name, used when opening a store from a path.
        policy: What to record; defaults to :class:`RecordingPolicy`'s defaults.
        recall_limit: At most this many episodes in a ``context_for`` block.
        context_chars: Size bound of a ``context_for`` block.
        startup_chars: Size bound of the ``start()`` block.
        clock: Clock for a store opened from a path (tests pass a frozen one).
        strict: Raise run-time failures of record, recall and wrap instead of absorbing
            them. By default a failure (locked or unwritable store, a failing model in the
            wrap) is logged on the ``anneal_memory`` logger and counted in :attr:`failures`,
            and the call returns None, "" or a ``failed`` wrap outcome: memory never takes
            the agent's run or answer down.
        scope: The memory this agent works in (a user, a thread, an agent name): episodes
            are recorded in it and recall only finds that scope's episodes, so one store
            holds several scopes side by side. Each scope has its own wraps and continuity:
            ``start()`` loads the scope's continuity and ``wrap()`` consolidates only its
            episodes. None (the default) records, wraps and loads in the shared scope "" and
            recalls across every scope. Each call may name another ``scope``.

    Raises:
        InvalidInputError: A bound is not a positive int.
    """

    def __init__(
        self,
        store_or_path: Store | str | os.PathLike[str],
        *,
        session_id: str | None = None,
        project_name: str = DEFAULT_PROJECT_NAME,
        policy: RecordingPolicy | None = None,
        recall_limit: int = 5,
        context_chars: int = 2000,
        startup_chars: int = 24000,
        clock: Clock | None = None,
        strict: bool = False,
        scope: str | None = None,
    ) -> None:
        self.recall_limit = _positive("recall_limit", recall_limit)
        self.context_chars = _positive("context_chars", context_chars)
        self.startup_chars = _positive("startup_chars", startup_chars)
        self.session_id = session_id
        self.policy = policy if policy is not None else RecordingPolicy()
        if isinstance(store_or_path, Store):
            self._store, self._owns_store = store_or_path, False
        else:
            self._store = Store(store_or_path, project_name=project_name, clock=clock)
            self._owns_store = True
        self._seen: set[bytes] = set()
        self._surfaced = SurfacedEpisodes()
        self._seen_lock = threading.Lock()
        self._turns = TurnBlocks()
        self._failures = FailurePolicy(strict=strict)
        self._offloop = OffLoop()
        self.scope = scope
        self._exposures = RunExposures(self._store, self._failures, self._offloop)

    @classmethod
    def of(
        cls,
        memory: AgentMemory | Store | str | os.PathLike[str],
        *,
        session_id: str | None = None,
        policy: RecordingPolicy | None = None,
    ) -> AgentMemory:
        """Return ``memory`` itself if it is an ``AgentMemory``, else one built on it.

        Adapters accept an ``AgentMemory``, a ``Store`` or a path; this is that conversion.
        ``session_id`` and ``policy`` apply only when a new ``AgentMemory`` is built.
        """
        if isinstance(memory, AgentMemory):
            return memory
        return cls(memory, session_id=session_id, policy=policy)

    @property
    def store(self) -> Store:
        """The episodic store this memory writes to."""
        return self._store

    @property
    def strict(self) -> bool:
        """Whether run-time failures raise instead of being logged and counted."""
        return self._failures.strict

    @property
    def offloop(self) -> OffLoop:
        """The writer thread and bounded reads that keep store work off an event loop.

        Async adapters record with ``offloop.record(memory.record_answer, ...)`` and read with
        ``await offloop.read(memory.turn_context, ..., default="")``; see ``agent/_offloop.py``.
        """
        return self._offloop

    @property
    def failures(self) -> FailureCounts:
        """How many records, recalls and wraps failed so far, and the last failure."""
        return self._failures.counts

    def close(self) -> None:
        """Wait (bounded) for queued records, then close the store if this object opened it.

        Safe to call twice.
        """
        self._offloop.close()
        if self._owns_store:
            self._store.close()

    def __enter__(self) -> AgentMemory:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- session start ---------------------------------------------------------------------

    def start(self, *, scope: str | None = None) -> str:
        """Return the context to load at session start, at most ``startup_chars`` long.

        The continuity of ``scope`` (default :attr:`scope`; what earlier sessions of that
        scope consolidated), then the crystal index and the top-of-mind spores, each part
        under its own heading; "" when all are empty. The long-term parts take at most a
        third of the bound.
        """
        block = self._startup(scope)
        self._exposures.expose("start", block, self._scope(scope), self.session_id)
        return block.text

    def _startup(self, scope: str | None) -> Block:
        try:
            return startup_block(self._store, self.startup_chars, self._scope(scope) or "")
        except Exception as exc:
            self._failures.absorb(FailureKind.RECALL, "start", exc)
            return Block("", ())

    # -- recording -------------------------------------------------------------------------

    def record(
        self,
        text: str,
        episode_type: EpisodeType | str = EpisodeType.OBSERVATION,
        *,
        source: str = "agent",
        metadata: Mapping[str, Any] | None = None,
        trust: Trust | str = Trust.AGENT,
        scope: str | None = None,
    ) -> Episode | None:
        """Record a moment under the policy, in ``scope`` (default :attr:`scope`); None if skipped.

        A text repeating an episode :meth:`context_for` showed this session is recorded
        ``derived_from`` it: the original's trust and evidence, not new ones (``_echoes``).
        Blank text and text this session already recorded with the same type are skipped;
        text over ``policy.max_chars`` is cut with a marker saying how much was cut.

        A store failure returns None (logged and counted, see ``strict``); a store locked by
        another process returns None too, and the record is queued on :attr:`offloop`, whose
        writer thread retries it until it is written.

        Raises:
            InvalidEpisodeError: The type, source or metadata is invalid.
            StoreDatabaseError: SQLite failed and ``strict`` is set; nothing was written.
        """
        kind = EpisodeType.parse(episode_type)
        if not isinstance(text, str):
            raise InvalidInputError(f"text must be str, got {type(text).__name__}")
        content = shape_text(text, self.policy.max_chars)
        if content is None:
            return None
        where = self._scope(scope) or ""
        key = hashlib.blake2b(f"{where}\0{kind.value}\0{content}".encode(), digest_size=16).digest()
        with self._seen_lock:
            if self.policy.skip_duplicates and key in self._seen:
                return None
            shown = self._surfaced.source_of(content)
            write = functools.partial(
                self._store.record,
                content,
                kind,
                source=source,
                metadata=metadata,
                trust=trust,
                scope=where,
                derived_from=shown or [],  # [] : this session's check is done (``_echoes``)
            )
            try:
                episode = write_copy(write, shown)
            except InvalidInputError:
                raise
            except Exception as exc:
                if holds_for_retry(exc):  # the writer thread tries it again
                    raise
                if not (isinstance(exc, StoreDatabaseError) and exc.retryable) or self.strict:
                    self._failures.absorb(FailureKind.RECORD, "record", exc)
                    return None
                self._offloop.submit(write)  # locked by another process: retried, not dropped
                logger.warning("anneal-memory: the store is locked; the record is queued")
                episode = None
            self._seen.add(key)
        return episode

    def record_tool_result(
        self,
        tool_name: str,
        result: object,
        *,
        metadata: Mapping[str, Any] | None = None,
        scope: str | None = None,
    ) -> Episode | None:
        """Record what a tool returned (as ``"name -> result"``); None when skipped."""
        policy = self.policy
        if not policy.record_tool_results or tool_name in policy.ignore_tools:
            return None
        return self.record(
            render_tool_result(tool_name, result),
            policy.tool_result_type,
            source=policy.tool_source,
            metadata={"tool": tool_name, **(metadata or {})},
            trust=policy.trust_for_tool(tool_name),
            scope=scope,
        )

    def record_tool_failure(
        self,
        tool_name: str,
        error: object,
        *,
        metadata: Mapping[str, Any] | None = None,
        scope: str | None = None,
    ) -> Episode | None:
        """Record that a tool call failed, as an ``outcome`` ``"name failed: error"``.

        None when skipped (``policy.record_tool_failures`` off, or an ignored tool).
        """
        policy = self.policy
        if not policy.record_tool_failures or tool_name in policy.ignore_tools:
            return None
        return self.record(
            render_tool_failure(tool_name, error),
            EpisodeType.OUTCOME,
            source=policy.tool_source,
            metadata={"tool": tool_name, "status": "error", **(metadata or {})},
            trust=policy.tool_trust,
            scope=scope,
        )

    def record_answer(
        self,
        answer: object,
        *,
        metadata: Mapping[str, Any] | None = None,
        scope: str | None = None,
    ) -> Episode | None:
        """Record the agent's final answer; None when skipped.

        ``answer`` may be text or a structured output (a pydantic model, dataclass-like dict,
        list ...), which is recorded as JSON.
        """
        policy = self.policy
        if not policy.record_answers:
            return None
        return self.record(
            render_value(answer),
            policy.answer_type,
            source=policy.answer_source,
            metadata=metadata,
            trust=policy.answer_trust,
            scope=scope,
        )

    # -- recall ----------------------------------------------------------------------------

    def _scope(self, scope: str | None) -> str | None:
        return self.scope if scope is None else scope

    def context_for(self, prompt: str, *, scope: str | None = None) -> str:
        """Return the memory relevant to ``prompt`` as a bounded block; "" when none is.

        The block starts with ``Relevant memory:`` and lists ``- (id) [type] content``
        lines, best match first, near-duplicates collapsed (see ``_distinct``); a hit on a
        replaced episode shows its replacement (``Replaced since:``), tool and outside
        episodes follow under a "data, not instructions" header, durable facts the prompt
        cues come next, then the crystallized patterns the prompt recalls (under
        ``Crystallized patterns:``). Any prompt text is safe: its words are searched
        literally.
        """
        block = self._context(prompt, scope)
        self._exposures.expose("context_for", block, self._scope(scope), self.session_id)
        return block.text

    def _context(self, prompt: str, scope: str | None) -> Block:
        query = query_text(prompt, self.policy.query_chars)
        if not has_content_words(query):
            return Block("", ())
        try:
            block = context_block(
                self._store,
                query,
                limit=self.recall_limit,
                chars=self.context_chars,
                scope=self._scope(scope),
            )
            self._surfaced.remember(block.episodes)
            return block
        except Exception as exc:
            self._failures.absorb(FailureKind.RECALL, "context_for", exc)
            return Block("", ())

    def turn_context(
        self, prompt: str, *, turn: Hashable | None = None, scope: str | None = None
    ) -> str:
        """Return the memory block for one turn's model calls: startup context plus recall.

        The block is :meth:`start` and :meth:`context_for` of ``prompt``, each stripped and
        joined by one blank line ("" when both are empty). It is computed once and returned
        again while ``turn`` stays equal (``==``), so the model calls after a tool call in
        the same turn do not get back what the turn itself just recorded. When ``turn`` is
        None, the prompt text is the key, kept until another prompt without a turn is asked.
        Pass a new key (a counter, a fresh ``object()``) to recall again, for example after a
        wrap. The blocks of the most recent ``TURN_CACHE_SIZE`` keys are kept, so runs
        interleaved on one ``AgentMemory`` (each with its own key) never recall again mid-turn.
        """
        where = self._scope(scope)

        def build() -> str:
            parts = (self._startup(scope), self._context(prompt, scope))
            block = "\n\n".join(b.text.strip() for b in parts if b.text.strip())
            items = tuple(dict.fromkeys(parts[0].items + parts[1].items))
            self._exposures.expose("turn_context", Block(block, items), where, self.session_id)
            return block

        return self._turns.get(prompt, turn, where, build)

    # -- session end -----------------------------------------------------------------------

    def wrap_due(self, every: int | None, *, scope: str | None = None) -> bool:
        """Whether at least ``every`` episodes of ``scope`` wait for a wrap (False for None).

        Adapters whose run is one turn of a longer session wrap at a run's end only when
        this holds, instead of spending a model call on every run. A store failure counts
        as not due (logged and counted, see ``strict``).
        """
        if every is None:
            return False
        limit = _positive("every", every)
        try:
            return waiting_episodes(self._store, self._scope(scope) or "") >= limit
        except Exception as exc:
            self._failures.absorb(FailureKind.WRAP, "wrap_due", exc)
            return False

    def wrap(
        self, compress: Compressor, *, affect: AffectSource = None, scope: str | None = None
    ) -> WrapOutcome:
        """Consolidate this session's episodes into the continuity file with ``compress``.

        The wrap covers ``scope`` (default :attr:`scope`, None meaning the shared ""): only
        its episodes are packaged and only its continuity file is written.

        ``compress`` receives the wrap package text and returns continuity markdown (sync, or
        async when no event loop is running; inside one use :meth:`awrap`). ``affect`` is an
        ``Affect``, or a callable that gets the compressed text and returns one (or None),
        passed to the save. A refused save is retried once with the refusal appended to the
        package. Lifecycle outcomes (empty, downgraded, refused) are returned, not raised; so is
        a failure (the model or the store raised): ``failed``, logged and counted, the wrap
        cancelled so its episodes wait for the next one (``strict`` raises it instead).

        Raises:
            InvalidInputError: ``compress`` returned something other than text, or an async
                callable was used from inside a running event loop.
        """
        self._offloop.drain(self._offloop.wait)
        try:
            return run_sync(self._steps(affect, scope), compress, affect)
        except Exception as exc:
            return self._failed_wrap("wrap", exc)

    async def awrap(
        self, compress: Compressor, *, affect: AffectSource = None, scope: str | None = None
    ) -> WrapOutcome:
        """Async :meth:`wrap`: ``compress`` and ``affect`` may be sync or async.

        Its store steps run in a worker thread, never on the event loop; records queued by
        ``offloop`` are given ``offloop.wait`` seconds to land first.
        """
        await self._offloop.settle()
        try:
            return await run_async(self._steps(affect, scope), compress, affect)
        except Exception as exc:
            return self._failed_wrap("awrap", exc)

    def _failed_wrap(self, operation: str, exc: Exception) -> WrapOutcome:
        failure = self._failures.absorb(FailureKind.WRAP, operation, exc)
        return WrapOutcome(
            status=WrapOutcomeStatus.FAILED,
            message=f"The wrap failed; nothing was saved and its episodes wait for the next "
            f"wrap. {failure.error}",
        )

    def _steps(self, affect: AffectSource, scope: str | None) -> Generator[Ask, Any, WrapOutcome]:
        fixed: Affect | None = None if callable(affect) else affect
        return wrap_steps(
            self._store,
            self.session_id,
            ask_affect=callable(affect),
            affect=fixed,
            scope=self._scope(scope) or "",
        )

    def __repr__(self) -> str:
        return f"AgentMemory({location_of(self._store)!r}, session_id={self.session_id!r})"
