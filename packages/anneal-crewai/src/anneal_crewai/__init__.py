"""anneal-memory for CrewAI.

``AnnealListener`` is a CrewAI event listener that records tool results and task outputs,
recalls memory before each agent's model calls, and wraps the session with the crew's LLM
when a crew kickoff completes.
"""

try:
    import crewai as _crewai  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "anneal_crewai needs CrewAI: pip install anneal-crewai "
        '(or pip install "anneal-memory[crewai]")'
    ) from exc

from anneal_crewai._adapter import AnnealListener

__version__ = "0.1.0"

__all__ = ["AnnealListener", "__version__"]
