"""anneal-memory for LlamaIndex.

``AnnealLlamaIndex`` plugs an ``AgentMemory`` into LlamaIndex agents: ``AnnealMemoryBlock``
recalls into the agent's ``Memory`` on every turn, ``AnnealSpanHandler`` records tool results
and final responses from LlamaIndex instrumentation, and the wrap runs with the agent's LLM.
"""

import anneal_memory as _core

if not str(getattr(_core, "__version__", "")).startswith("2."):
    raise ImportError(
        "anneal_llamaindex needs anneal-memory 2.x, but anneal-memory "
        f"{getattr(_core, '__version__', 'of unknown version')} is installed; install both "
        'from the same release: pip install "anneal-memory[llamaindex]"'
    )

try:
    import llama_index.core as _llama_index_core  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "anneal_llamaindex needs LlamaIndex: pip install anneal-llamaindex "
        '(or pip install "anneal-memory[llamaindex]")'
    ) from exc

from anneal_llamaindex._adapter import AnnealLlamaIndex
from anneal_llamaindex._block import AnnealMemoryBlock
from anneal_llamaindex._handler import AnnealSpanHandler

__version__ = "2.0.0"

__all__ = ["AnnealLlamaIndex", "AnnealMemoryBlock", "AnnealSpanHandler", "__version__"]
