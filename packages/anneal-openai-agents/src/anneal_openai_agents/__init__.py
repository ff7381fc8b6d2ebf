"""anneal-memory for the OpenAI Agents SDK.

``AnnealHooks`` records tool results and final outputs, adds recalled memory to every model
call through the run's model-input filter, offers a ``recall`` tool and wraps the session with
the agent's own model.
"""

try:
    import agents as _agents  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "anneal_openai_agents needs the OpenAI Agents SDK: pip install anneal-openai-agents "
        '(or pip install "anneal-memory[openai-agents]")'
    ) from exc

from anneal_openai_agents._adapter import AnnealHooks

__version__ = "0.1.0"

__all__ = ["AnnealHooks", "__version__"]
