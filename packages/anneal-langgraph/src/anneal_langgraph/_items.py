"""Pure mapping between LangGraph store items and anneal-memory episodes.

A namespace names a scope, a (namespace, key) pair a state key, and an item's value rides in
the episode's metadata while its text is what recall searches. Nothing here imports LangGraph.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from anneal_memory.scopes import SCOPE_KINDS, scope_for

__all__ = [
    "SOURCE",
    "episode_text",
    "item_state_key",
    "matches_filter",
    "namespace_scope",
    "parse_time",
]

SOURCE = "langgraph-store"
"""The ``source`` of every episode a put writes (so recall can keep to the store's items)."""

_KIND_LABELS = {kind: kind for kind in SCOPE_KINDS} | {f"{kind}s": kind for kind in SCOPE_KINDS}
_OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": operator.eq,
    "$ne": operator.ne,
    "$gt": operator.gt,
    "$gte": operator.ge,
    "$lt": operator.lt,
    "$lte": operator.le,
}


def namespace_scope(namespace: Sequence[str]) -> str:
    """The scope of a namespace: the user, thread or agent it names, else the namespace.

    A label ``user:<id>`` (``thread:``, ``agent:``), or a label ``user``/``users`` (``thread``,
    ``threads``, ``agent``, ``agents``) followed by an id, names that scope of the scheme, so
    ``("users", "alice", "memories")`` is ``user:alice``, the memory every adapter gives Alice.
    Any other namespace is its own scope ``ns:<label>/<label>...`` (hashed when too long).
    """
    for index, label in enumerate(namespace):
        kind, colon, ident = label.partition(":")
        if colon and kind in SCOPE_KINDS and ident:
            return str(scope_for(**{kind: ident}))
        if label in _KIND_LABELS and index + 1 < len(namespace):
            return str(scope_for(**{_KIND_LABELS[label]: namespace[index + 1]}))
    path = "/".join(namespace)
    scope = f"ns:{path}"
    if len(scope) > 64 or not scope.isprintable():
        scope = "ns:sha256-" + hashlib.sha256(path.encode()).hexdigest()[:32]
    return scope


def item_state_key(namespace: Sequence[str], key: str) -> str:
    """The state key of one item: each put of it replaces the previous value."""
    ident = json.dumps([list(namespace), key], ensure_ascii=False)
    return "langgraph:" + hashlib.sha256(ident.encode()).hexdigest()[:40]


def episode_text(key: str, value: Mapping[str, Any]) -> str:
    """What recall searches: the key, then the value's text fields, then the rest as JSON."""
    texts = [str(v) for v in value.values() if isinstance(v, str) and v.strip()]
    rest = {k: v for k, v in value.items() if not isinstance(v, str)}
    parts = [f"{key}:", *texts]
    if rest:
        parts.append(json.dumps(rest, ensure_ascii=False, sort_keys=True, default=str))
    return " ".join(parts)


def matches_filter(value: Mapping[str, Any], wanted: Mapping[str, Any] | None) -> bool:
    """LangGraph's filter: each field equals the value, or meets ``{"$gt": x}`` and friends."""
    for field, condition in (wanted or {}).items():
        actual = value.get(field)
        if isinstance(condition, Mapping) and condition and set(condition) <= set(_OPERATORS):
            try:
                if not all(_OPERATORS[op](actual, x) for op, x in condition.items()):
                    return False
            except TypeError:  # an ordering between a missing field and a value
                return False
        elif actual != condition:
            return False
    return True


def parse_time(text: str) -> dt.datetime:
    """An episode timestamp (``...Z``) as an aware datetime."""
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
