"""anneal-memory for CrewAI.

``AnnealListener`` is a CrewAI event listener that records tool results and task outputs,
recalls memory before each agent's model calls, and wraps the session with the crew's LLM
when a crew kickoff completes.
"""

import anneal_memory as _core

if not str(getattr(_core, "__version__", "")).startswith("2."):
    raise ImportError(
        "anneal_crewai needs anneal-memory 2.x, but anneal-memory "
        f"{getattr(_core, '__version__', 'of unknown version')} is installed; install both "
        'from the same release: pip install "anneal-memory[crewai]"'
    )

try:
    import crewai as _crewai  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "anneal_crewai needs CrewAI: pip install anneal-crewai "
        '(or pip install "anneal-memory[crewai]")'
    ) from exc

from anneal_crewai._adapter import AnnealListener

__version__ = "2.0.0"

__all__ = ["AnnealListener", "__version__"]
