"""Which store a bearer token reads: one store and one random token, or a token file's scopes."""

from __future__ import annotations

import hmac
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from anneal_memory.store import Store

__all__ = ["SingleStore", "TokenScopes"]


class SingleStore:
    """``anneal-memory inspect``: one read-only store, one token (compared in constant time).

    Args:
        store: The store, opened with ``read_only=True``.
        token: The token printed in the inspector's URL.
    """

    def __init__(self, store: Store, token: str) -> None:
        self._store = store
        self._token = token

    def store_for(self, bearer: str) -> Store | None:
        """The store when ``bearer`` is the token."""
        if hmac.compare_digest(bearer.encode(), self._token.encode()):
            return self._store
        return None

    def close(self) -> None:
        """Close the store."""
        self._store.close()


class TokenScopes:
    """``serve --http``: each token reads its own scope's store, opened read-only on first use.

    Args:
        scope_of: The scope a bearer token is bound to (None: not a token of the file).
        open_scope: Opens a scope's store read-only (raises when it cannot).
    """

    def __init__(
        self, scope_of: Callable[[str], str | None], open_scope: Callable[[str], Store]
    ) -> None:
        self._scope_of = scope_of
        self._open_scope = open_scope
        self._lock = threading.Lock()
        self._stores: dict[str, Store] = {}

    def store_for(self, bearer: str) -> Store | None:
        """The read-only store of the token's scope, or None for an unknown token.

        Raises:
            AnnealMemoryError: The scope's store cannot be opened (e.g. it holds nothing yet).
        """
        scope = self._scope_of(bearer)
        if scope is None:
            return None
        with self._lock:
            store = self._stores.get(scope)
            if store is None:
                store = self._stores[scope] = self._open_scope(scope)
            return store

    def close(self) -> None:
        """Close every store opened."""
        with self._lock:
            for store in self._stores.values():
                store.close()
            self._stores.clear()
