"""anneal-memory for the OpenAI Agents SDK.

``AnnealHooks`` records tool results and final outputs, adds recalled memory to every model
call through the run's model-input filter, offers a ``recall`` tool and wraps the session with
the agent's own model. ``AnnealSession`` is the SDK's ``Session`` slot: the conversation's
history and its long-term memory in one store.
"""

import anneal_memory as _core

if not str(getattr(_core, "__version__", "")).startswith("2."):
    raise ImportError(
        "anneal_openai_agents needs anneal-memory 2.x, but anneal-memory "
        f"{getattr(_core, '__version__', 'of unknown version')} is installed; install both "
        'from the same release: pip install "anneal-memory[openai-agents]"'
    )

try:
    import agents as _agents  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "anneal_openai_agents needs the OpenAI Agents SDK: pip install anneal-openai-agents "
        '(or pip install "anneal-memory[openai-agents]")'
    ) from exc

from anneal_openai_agents._adapter import AnnealHooks
from anneal_openai_agents._session import AnnealSession

__version__ = "2.0.0"

__all__ = ["AnnealHooks", "AnnealSession", "__version__"]
