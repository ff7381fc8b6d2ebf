"""anneal-memory for LangGraph agents built with ``langchain.agents.create_agent``.

``AnnealMiddleware`` adds the continuity file and the episodes relevant to the latest user
message to the system prompt, recalled once per user turn (every model call of the turn gets
the same block), records tool results and the final answer, and wraps the session with the
agent's own model when the agent finishes.
"""

from __future__ import annotations

try:
    from anneal_langgraph._adapter import AnnealMiddleware
except ImportError as _exc:  # pragma: no cover - depends on what is installed
    raise ImportError(
        "anneal_langgraph needs LangChain v1 and LangGraph; install them with "
        '`pip install "anneal-memory[langgraph]"` (or `pip install anneal-langgraph`)'
    ) from _exc

__version__ = "0.1.0"

__all__ = ["AnnealMiddleware", "__version__"]
