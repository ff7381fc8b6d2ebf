"""anneal-memory for DSPy.

``AnnealModule`` wraps a DSPy program: recalled memory becomes one more input field, an
``AnnealCallback`` records the program's answers and tool results, and the session wraps
with the configured ``dspy.LM``.
"""

import anneal_memory as _core

if not str(getattr(_core, "__version__", "")).startswith("2."):
    raise ImportError(
        "anneal_dspy needs anneal-memory 2.x, but anneal-memory "
        f"{getattr(_core, '__version__', 'of unknown version')} is installed; install both "
        'from the same release: pip install "anneal-memory[dspy]"'
    )

try:
    import dspy as _dspy  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        'anneal_dspy needs DSPy: pip install anneal-dspy (or pip install "anneal-memory[dspy]")'
    ) from exc

from anneal_dspy._callback import AnnealCallback
from anneal_dspy._module import AnnealModule

__version__ = "2.0.0"

__all__ = ["AnnealCallback", "AnnealModule", "__version__"]
