"""anneal-memory for Pydantic AI.

``AnnealCapability`` adds the startup context and recalled memory to an agent's instructions,
records tool results and outputs, and wraps the session with the run's own model.
"""

try:
    import pydantic_ai as _pydantic_ai  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "anneal_pydantic_ai needs Pydantic AI: pip install anneal-pydantic-ai "
        '(or pip install "anneal-memory[pydantic-ai]")'
    ) from exc

from anneal_pydantic_ai._adapter import AnnealCapability

__version__ = "0.1.0"

__all__ = ["AnnealCapability", "__version__"]
