"""Conversation items of framework sessions, kept in the store beside the episodes.

A framework session (the OpenAI Agents SDK's ``Session``) keeps a conversation's raw items so
the next run continues it. :func:`add_items`, :func:`get_items`, :func:`pop_item` and
:func:`clear_session` keep them in the store's ``session_items`` table, per session id,
bounded to the newest ``keep`` items; clearing a session deletes its rows. They are working
state, not memory: recall never sees them, and export does not carry them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anneal_memory._lazy import lazy_exports

if TYPE_CHECKING:
    from anneal_memory.sessions._items import (
        DEFAULT_KEEP,
        MAX_ITEM_BYTES,
        add_items,
        clear_session,
        get_items,
        pop_item,
    )

_ITEMS = "anneal_memory.sessions._items"
_EXPORTS: dict[str, str] = {
    "DEFAULT_KEEP": _ITEMS,
    "MAX_ITEM_BYTES": _ITEMS,
    "add_items": _ITEMS,
    "clear_session": _ITEMS,
    "get_items": _ITEMS,
    "pop_item": _ITEMS,
}

__all__ = ["DEFAULT_KEEP", "MAX_ITEM_BYTES", "add_items", "clear_session", "get_items", "pop_item"]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
