"""anneal-memory for dspy (work in progress)."""

__version__ = "0.1.0"
