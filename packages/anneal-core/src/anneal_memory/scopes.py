"""Scopes named by a framework's own keys: a user id, a thread, a session.

Every adapter names scopes with one scheme, :func:`scope_for`: ``user:<id>`` for a user,
``thread:<id>`` for one conversation, ``agent:<name>`` for an agent's own memory. The most
durable identity a run names wins, so the same user is the same memory in every framework
(``docs/scopes.md``). :func:`scope_from_keys` is the older ``key=value`` naming, kept for
custom integrations.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping

from anneal_memory.store import MAX_SOURCE_CHARS

__all__ = ["SCOPE_KINDS", "key_of", "scope_for", "scope_from_keys"]

SCOPE_KINDS = ("user", "thread", "agent")
"""The scheme's kinds, most durable first."""


def scope_from_keys(parts: Iterable[tuple[str, object]], *, base: str | None = None) -> str | None:
    """The scope ``"<base>,key=value,..."`` of the keys that have a value, in their order.

    ``base`` (an ``AgentMemory``'s own scope) comes first when set; a key whose value is None
    or blank text is left out; None when nothing is left. A scope longer than a store
    accepts or with unprintable characters becomes ``"sha256:"`` and 32 hex digits of its
    hash, so any id a framework hands over gives a valid scope of its own.
    """
    named = [f"{key}={value}" for key, value in parts if _has_value(value)]
    if base:
        named.insert(0, base)
    if not named:
        return None
    scope = ",".join(named)
    if len(scope) > MAX_SOURCE_CHARS or not scope.isprintable():
        scope = "sha256:" + hashlib.sha256(scope.encode()).hexdigest()[:32]
    return scope


def _has_value(value: object) -> bool:
    if isinstance(value, str):
        return bool(value.strip())
    return value is not None


def scope_for(*, user: object = None, thread: object = None, agent: object = None) -> str | None:
    """The scope of the most durable identity given (user, else thread, else agent).

    ``user:<id>``, ``thread:<id>`` or ``agent:<name>``; None when none has a value (None or
    blank text). A user's memory is shared by all their conversations and by every
    framework that names the same user id. An id that would make the scope longer than a
    store accepts, or that has unprintable characters, becomes ``<kind>:sha256-`` and 32
    hex digits of its hash.
    """
    for kind, value in zip(SCOPE_KINDS, (user, thread, agent), strict=True):
        if _has_value(value):
            ident = str(value).strip()
            scope = f"{kind}:{ident}"
            if len(scope) > MAX_SOURCE_CHARS or not scope.isprintable():
                scope = f"{kind}:sha256-" + hashlib.sha256(ident.encode()).hexdigest()[:32]
            return scope
    return None


def key_of(obj: object, key: str = "user_id") -> object:
    """``obj[key]`` of a mapping, else the attribute ``key`` of an object; None without it.

    Adapters read a run's user id this way from whatever the framework hands over (a run
    context, dependencies, a configurable dict).
    """
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)
