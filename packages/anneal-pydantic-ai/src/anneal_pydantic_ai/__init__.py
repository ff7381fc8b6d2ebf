"""anneal-memory for Pydantic AI.

``AnnealCapability`` adds the startup context and recalled memory to an agent's instructions,
records tool results and outputs, and wraps the session with the run's own model.
"""

import anneal_memory as _core

if not str(getattr(_core, "__version__", "")).startswith("2."):
    raise ImportError(
        "anneal_pydantic_ai needs anneal-memory 2.x, but anneal-memory "
        f"{getattr(_core, '__version__', 'of unknown version')} is installed; install both "
        'from the same release: pip install "anneal-memory[pydantic-ai]"'
    )

try:
    import pydantic_ai as _pydantic_ai  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "anneal_pydantic_ai needs Pydantic AI: pip install anneal-pydantic-ai "
        '(or pip install "anneal-memory[pydantic-ai]")'
    ) from exc

from anneal_pydantic_ai._adapter import AnnealCapability

__version__ = "2.0.0"

__all__ = ["AnnealCapability", "__version__"]
