"""anneal-memory for LangGraph agents built with ``langchain.agents.create_agent``.

``AnnealStore`` is LangGraph's long-term memory slot (``BaseStore``) on anneal-memory, and
``AnnealMiddleware`` adds the continuity file and the episodes relevant to the latest user
message to the system prompt, recalled once per user turn (every model call of the turn gets
the same block), records tool results and the final answer, and wraps the session with the
agent's own model when the agent finishes.
"""

from __future__ import annotations

import anneal_memory as _core

if not str(getattr(_core, "__version__", "")).startswith("2."):
    raise ImportError(
        "anneal_langgraph needs anneal-memory 2.x, but anneal-memory "
        f"{getattr(_core, '__version__', 'of unknown version')} is installed; install both "
        'from the same release: pip install "anneal-memory[langgraph]"'
    )

try:
    from anneal_langgraph._adapter import AnnealMiddleware
    from anneal_langgraph._store import AnnealStore
except ImportError as _exc:  # pragma: no cover - depends on what is installed
    raise ImportError(
        f"anneal_langgraph could not import {_exc.name or 'a dependency'!r} ({_exc}); it needs "
        'LangChain v1 and LangGraph 1.x: pip install "anneal-memory[langgraph]"'
    ) from _exc

__version__ = "2.0.0"

__all__ = ["AnnealMiddleware", "AnnealStore", "__version__"]
