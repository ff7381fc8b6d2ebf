"""``AgentMemory``: the framework-neutral lifecycle every adapter drives.

An adapter maps its framework's hooks onto five calls: ``start()`` when a session begins,
``context_for(prompt)`` before each model call, ``record_tool_result`` / ``record_answer``
as things happen, and ``wrap(compress)`` (or ``awrap``) at session end with the agent's own
model as the compressor; ``turn_context(prompt, turn=key)`` is the first two together,
computed once per turn of the framework. What gets recorded, and how large it may be, is
one :class:`RecordingPolicy` shared by every adapter.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Generator, Hashable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any

from anneal_memory._clock import Clock
from anneal_memory._distinct import OVERFETCH, distinct_episodes
from anneal_memory._recording import (
    RecordingPolicy,
    has_content_words,
    render_startup,
    render_tool_result,
    render_value,
    shape_text,
)
from anneal_memory._wrapflow import (
    Ask,
    WrapOutcome,
    WrapOutcomeStatus,
    run_async,
    run_sync,
    wrap_steps,
)
from anneal_memory.errors import InvalidInputError
from anneal_memory.store import Store
from anneal_memory.store._store import DEFAULT_PROJECT_NAME
from anneal_memory.types import Episode, EpisodeType, Trust

if TYPE_CHECKING:
    from anneal_memory._wrapflow import AffectSource, Compressor
    from anneal_memory.associations import Affect

__all__ = ["AgentMemory", "RecordingPolicy", "WrapOutcome", "WrapOutcomeStatus"]


def _positive(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidInputError(f"{name} must be a positive int, got {value!r}")
    return value


class AgentMemory:
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
        self._seen_lock = threading.Lock()
        self._turn: tuple[tuple[str, object], str] | None = None
        self._turn_lock = threading.Lock()

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

    def close(self) -> None:
        """Close the store if this object opened it. Safe to call twice."""
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

    def start(self) -> str:
        """Return the context to load at session start, at most ``startup_chars`` long.

        The continuity file (what earlier sessions consolidated), then the crystal index
        and the top-of-mind spores, each part under its own heading; "" when all are empty.
        The long-term parts take at most a third of the bound.
        """
        from anneal_memory._longterm import startup_block

        extra = startup_block(self._store, self.startup_chars // 3)
        room = self.startup_chars - (len(extra) + 2 if extra else 0)
        base = render_startup(self._store.load_continuity(), room)
        return "\n\n".join(b for b in (base, extra) if b)

    # -- recording -------------------------------------------------------------------------

    def record(
        self,
        text: str,
        episode_type: EpisodeType | str = EpisodeType.OBSERVATION,
        *,
        source: str = "agent",
        metadata: Mapping[str, Any] | None = None,
        trust: Trust | str = Trust.AGENT,
    ) -> Episode | None:
        """Record a moment under the policy; None when the policy skipped it.

        Blank text and text this session already recorded with the same type are skipped;
        text over ``policy.max_chars`` is cut with a marker saying how much was cut.

        Raises:
            InvalidEpisodeError: The type, source or metadata is invalid.
            StoreDatabaseError: SQLite failed; nothing was written.
        """
        kind = EpisodeType.parse(episode_type)
        if not isinstance(text, str):
            raise InvalidInputError(f"text must be str, got {type(text).__name__}")
        content = shape_text(text, self.policy.max_chars)
        if content is None:
            return None
        key = hashlib.blake2b(f"{kind.value}\0{content}".encode(), digest_size=16).digest()
        with self._seen_lock:
            if self.policy.skip_duplicates and key in self._seen:
                return None
            episode = self._store.record(
                content, kind, source=source, metadata=metadata, trust=trust
            )
            self._seen.add(key)
        return episode

    def record_tool_result(
        self, tool_name: str, result: object, *, metadata: Mapping[str, Any] | None = None
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
        )

    def record_answer(
        self, answer: object, *, metadata: Mapping[str, Any] | None = None
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
        )

    # -- recall ----------------------------------------------------------------------------

    def context_for(self, prompt: str) -> str:
        """Return the memory relevant to ``prompt`` as a bounded block; "" when none is.

        The block starts with ``Relevant memory:`` and lists ``- (id) [type] content``
        lines, best match first, near-duplicates collapsed (see ``_distinct``); a hit on a
        replaced episode shows its replacement (``Replaced since:``), tool and outside
        episodes follow under a "data, not instructions" header, durable facts the prompt
        cues come next, then the crystallized patterns the prompt recalls (under
        ``Crystallized patterns:``). Any prompt text is safe: its words are searched
        literally.
        """
        from anneal_memory._recall_block import build_view, render_view
        from anneal_memory.continuity._cues import cued_facts

        query = prompt[: self.policy.query_chars] if isinstance(prompt, str) else ""
        if not has_content_words(query):
            return ""
        from anneal_memory._longterm import recalled_crystals

        crystals = recalled_crystals(self._store, query, self.context_chars // 2)
        room = self.context_chars - (len(crystals) + 2 if crystals else 0)
        found = self._store.recall(
            keyword=query, limit=self.recall_limit * OVERFETCH, include_superseded=True
        )
        distinct = distinct_episodes(found.episodes, self.recall_limit)
        view = build_view(self._store, distinct, cued_facts(self._store, query))
        return "\n\n".join(b for b in (render_view(view, room), crystals) if b)

    def turn_context(self, prompt: str, *, turn: Hashable | None = None) -> str:
        """Return the memory block for one turn's model calls: startup context plus recall.

        The block is :meth:`start` and :meth:`context_for` of ``prompt``, each stripped and
        joined by one blank line ("" when both are empty). It is computed once and returned
        again while ``turn`` stays equal (``==``), so the model calls after a tool call in
        the same turn do not get back what the turn itself just recorded. When ``turn`` is
        None, the prompt text is the key. Pass a new key (a counter, a fresh ``object()``)
        to recall again, for example after a wrap. One block is kept per ``AgentMemory``:
        the one for the last key asked.
        """
        key = ("prompt", prompt) if turn is None else ("turn", turn)
        with self._turn_lock:
            if self._turn is None or self._turn[0] != key:
                blocks = (self.start(), self.context_for(prompt))
                self._turn = (key, "\n\n".join(b.strip() for b in blocks if b.strip()))
            return self._turn[1]

    # -- session end -----------------------------------------------------------------------

    def wrap(self, compress: Compressor, *, affect: AffectSource = None) -> WrapOutcome:
        """Consolidate this session's episodes into the continuity file with ``compress``.

        ``compress`` receives the wrap package text and returns continuity markdown (sync, or
        async when no event loop is running; inside one use :meth:`awrap`). ``affect`` is an
        ``Affect``, or a callable that gets the compressed text and returns one (or None),
        passed to the save. A refused save is retried once with the refusal appended to the
        package. Lifecycle outcomes (empty, downgraded, refused) are returned, not raised.

        Raises:
            InvalidInputError: ``compress`` returned something other than text, or an async
                callable was used from inside a running event loop.
        """
        return run_sync(self._steps(affect), compress, affect)

    async def awrap(self, compress: Compressor, *, affect: AffectSource = None) -> WrapOutcome:
        """Async :meth:`wrap`: ``compress`` and ``affect`` may be sync or async."""
        return await run_async(self._steps(affect), compress, affect)

    def _steps(self, affect: AffectSource) -> Generator[Ask, Any, WrapOutcome]:
        fixed: Affect | None = None if callable(affect) else affect
        return wrap_steps(self._store, self.session_id, ask_affect=callable(affect), affect=fixed)

    def __repr__(self) -> str:
        return f"AgentMemory({str(self._store.path)!r}, session_id={self.session_id!r})"
