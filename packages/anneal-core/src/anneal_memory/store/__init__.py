"""SQLite storage: connection policy, schema migrations, episodes and ranked recall."""

from anneal_memory.store._store import DEFAULT_PROJECT_NAME, Store
from anneal_memory.store._validate import MAX_CONTENT_BYTES

__all__ = ["DEFAULT_PROJECT_NAME", "MAX_CONTENT_BYTES", "Store"]
