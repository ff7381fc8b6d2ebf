"""``AnnealStore``: LangGraph's long-term memory slot (``BaseStore``) on an anneal-memory store."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from anneal_memory import AgentMemory, Episode, EpisodeType, Store
from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from anneal_langgraph._items import (
    SOURCE,
    episode_text,
    item_state_key,
    matches_filter,
    namespace_scope,
    parse_time,
)

try:  # langgraph-checkpoint 3.x+; older releases validate in the BaseStore methods only
    from langgraph.store.base import validate_op_namespace
except ImportError:  # pragma: no cover - depends on the installed release
    validate_op_namespace = None  # type: ignore[assignment]

__all__ = ["AnnealStore"]

_META = "langgraph_store"
_PAGE = 1000
_MAX_OFFSET = 10_000  # recall's deepest page


class AnnealStore(BaseStore):
    """LangGraph's long-term memory slot (``BaseStore``) backed by anneal-memory.

    Use it where LangGraph takes a store: ``compile(store=)``, ``create_agent(store=)``;
    tools and nodes reach it as ``runtime.store``. Each put records an episode (type
    ``context``, trust ``agent``, source ``langgraph-store``) in the scope its namespace
    names, with the item's key as its state key: a later put of the same key records the new
    value and supersedes the old one (both stay in the audit trail), never overwriting it in
    place. ``get`` reads the current value, ``search`` runs recall (its ranking, on the
    values' text) inside the namespace prefix, then the ``filter`` on value fields and the
    offset; ``delete`` deletes every value the key had. The same episodes are what
    ``AgentMemory`` recalls for the scope, so what a tool put for a user reaches that user's
    prompts through ``AnnealMiddleware`` too.

    Namespaces name scopes (``docs/scopes.md``): ``("users", "alice", ...)`` or
    ``("user:alice", ...)`` is ``user:alice``; another namespace is its own scope ``ns:<path>``.
    TTLs are not supported (``supports_ttl`` is False, as LangGraph's contract allows).

    Args:
        memory: An ``AgentMemory`` or a ``Store`` (left open by :meth:`close`), or a database
            path or ``postgresql://`` URL (opened here, closed by :meth:`close`).
    """

    supports_ttl = False

    def __init__(self, memory: AgentMemory | Store | str | os.PathLike[str]) -> None:
        if isinstance(memory, AgentMemory):
            memory = memory.store
        self._owns = not isinstance(memory, Store)
        self.store: Store = memory if isinstance(memory, Store) else Store(memory)

    def close(self) -> None:
        """Close the store if this object opened it."""
        if self._owns:
            self.store.close()

    def __enter__(self) -> AnnealStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- BaseStore ---------------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run the operations in order; one result per operation (None for a put)."""
        return [self._run(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` in a worker thread: the event loop never waits on the store."""
        return await asyncio.to_thread(self.batch, list(ops))

    def _run(self, op: Op) -> Result:
        if validate_op_namespace is not None:
            validate_op_namespace(op)
        if isinstance(op, GetOp):
            return self._get(op.namespace, op.key)
        if isinstance(op, PutOp):
            self._delete(op.namespace, op.key) if op.value is None else self._put(op)
            return None
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        raise ValueError(f"unknown store operation: {type(op).__name__}")

    # -- items -------------------------------------------------------------------------------

    def _current(self, namespace: Sequence[str], key: str) -> tuple[Episode | None, list[str]]:
        slots = self.store.state_key_report(item_state_key(namespace, key))
        if not slots:
            return None, []
        slot = slots[0]
        episode = self.store.get(slot.current[0]) if slot.current else None
        return episode, [*slot.current, *slot.replaced]

    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        episode, _ = self._current(namespace, key)
        return None if episode is None else _item(episode)

    def _put(self, op: PutOp) -> None:
        value = dict(op.value or {})
        previous, _ = self._current(op.namespace, op.key)
        created = None
        if previous is not None:
            created = _meta(previous).get("created_at") or previous.timestamp
        self.store.record(
            episode_text(op.key, value),
            EpisodeType.CONTEXT,
            source=SOURCE,
            metadata={
                _META: {
                    "namespace": list(op.namespace),
                    "key": op.key,
                    "value": value,
                    "created_at": created,
                }
            },
            state_key=item_state_key(op.namespace, op.key),
            scope=namespace_scope(op.namespace),
        )

    def _delete(self, namespace: tuple[str, ...], key: str) -> None:
        _, ids = self._current(namespace, key)
        for ident in ids:
            self.store.delete(ident)

    # -- search and namespaces ---------------------------------------------------------------

    def _items(
        self, prefix: Sequence[str], query: str | None, first: int = _PAGE
    ) -> Iterator[Episode]:
        """The store's current items under ``prefix``, best match first (newest without a query).

        Pages start at ``first`` episodes and double up to ``_PAGE``, so a search that needs a
        few items reads a few.
        """
        scope, offset, size = _pinned_scope(prefix), 0, max(1, min(first, _PAGE))
        while offset <= _MAX_OFFSET:
            page = self.store.recall(
                query or None, source=SOURCE, limit=size, offset=offset, scope=scope
            ).episodes
            for episode in page:
                if tuple(_meta(episode).get("namespace", ()))[: len(prefix)] == tuple(prefix):
                    yield episode
            if len(page) < size:
                return
            offset, size = offset + size, min(size * 2, _PAGE)

    def _search(self, op: SearchOp) -> list[SearchItem]:
        found: list[SearchItem] = []
        wanted = op.offset + op.limit
        first = wanted if not op.filter else wanted * 4
        for rank, episode in enumerate(self._items(op.namespace_prefix, op.query, first)):
            if matches_filter(_meta(episode).get("value", {}), op.filter):
                score = 1.0 / (rank + 1) if op.query else None
                found.append(_item(episode, score=score))
                if len(found) >= wanted:
                    break
        return found[op.offset :]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        seen: set[tuple[str, ...]] = set()
        for episode in self._items((), None):
            namespace = tuple(_meta(episode).get("namespace", ()))
            if all(_meets(namespace, c) for c in op.match_conditions or ()):
                seen.add(namespace[: op.max_depth] if op.max_depth is not None else namespace)
        return sorted(seen)[op.offset : op.offset + op.limit]


def _meta(episode: Episode) -> dict[str, Any]:
    meta = episode.metadata.get(_META)
    return meta if isinstance(meta, dict) else {}


def _item(episode: Episode, *, score: float | None = None) -> SearchItem:
    meta = _meta(episode)
    updated = parse_time(episode.timestamp)
    created = parse_time(meta["created_at"]) if meta.get("created_at") else updated
    return SearchItem(
        namespace=tuple(meta.get("namespace", ())),
        key=str(meta.get("key", "")),
        value=dict(meta.get("value", {})),
        created_at=created,
        updated_at=updated,
        score=score,
    )


def _pinned_scope(prefix: Sequence[str]) -> str | None:
    """The one scope every namespace under ``prefix`` has, when the prefix names it."""
    if not prefix:
        return None
    scope = namespace_scope(prefix)
    return None if scope.startswith("ns:") else scope


def _meets(namespace: tuple[str, ...], condition: MatchCondition) -> bool:
    path = tuple(condition.path)
    if len(path) > len(namespace):
        return False
    part = namespace[: len(path)] if condition.match_type == "prefix" else namespace[-len(path) :]
    return all(want in ("*", have) for want, have in zip(path, part, strict=True))
