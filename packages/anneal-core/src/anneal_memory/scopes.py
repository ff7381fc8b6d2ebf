"""Scopes named by a framework's own keys: a user id, a thread, a session.

Adapters scope memory by what their framework calls a user or a conversation; this is the
one place that turns those keys into a valid scope.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from anneal_memory.store import MAX_SOURCE_CHARS

__all__ = ["scope_from_keys"]


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
