"""Pure conversions between Pydantic AI run data and the text anneal-memory records and recalls.

Nothing here imports Pydantic AI, so these helpers are tested without the framework.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["prompt_text"]


def prompt_text(prompt: str | Sequence[object] | None) -> str:
    """Return the text of a run's user prompt; non-text parts (images, files) are left out."""
    if prompt is None:
        return ""
    if isinstance(prompt, str):
        return prompt
    return "\n".join(part for part in prompt if isinstance(part, str))
