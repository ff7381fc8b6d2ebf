"""anneal-memory for DSPy.

``AnnealModule`` wraps a DSPy program: recalled memory becomes one more input field, an
``AnnealCallback`` records the program's answers and tool results, and the session wraps
with the configured ``dspy.LM``.
"""

try:
    import dspy as _dspy  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        'anneal_dspy needs DSPy: pip install anneal-dspy (or pip install "anneal-memory[dspy]")'
    ) from exc

from anneal_dspy._callback import AnnealCallback
from anneal_dspy._module import AnnealModule

__version__ = "0.1.0"

__all__ = ["AnnealCallback", "AnnealModule", "__version__"]
