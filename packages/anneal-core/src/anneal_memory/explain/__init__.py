"""Explanations of the store's decisions: how a pattern earned its level, what an episode is.

Everything here only reads. ``explain_pattern`` walks a pattern's level over every wrap with
the immune rule behind each step, the episodes it cites and the words they share, its crystal
and the audit entries that prove no step was rewritten; ``explain_episode`` gives an
episode's trust and what caps it, its replacements and state-key slot, the patterns and
crystals it grounds, its associations and its audit entries. Each result has ``to_dict()``
(stable JSON keys) and :func:`render_pattern` / :func:`render_episode` give the text people
read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anneal_memory._lazy import lazy_exports

if TYPE_CHECKING:
    from anneal_memory.explain._episode import explain_episode
    from anneal_memory.explain._pattern import explain_pattern
    from anneal_memory.explain._render import render_episode, render_pattern
    from anneal_memory.explain._types import (
        AuditSlice,
        CitedEpisode,
        EpisodeExplanation,
        PatternExplanation,
        PatternStep,
        PatternUse,
        TrustReport,
    )

_TYPES = "anneal_memory.explain._types"
_EXPORTS: dict[str, str] = {
    "AuditSlice": _TYPES,
    "CitedEpisode": _TYPES,
    "EpisodeExplanation": _TYPES,
    "PatternExplanation": _TYPES,
    "PatternStep": _TYPES,
    "PatternUse": _TYPES,
    "TrustReport": _TYPES,
    "explain_episode": "anneal_memory.explain._episode",
    "explain_pattern": "anneal_memory.explain._pattern",
    "render_episode": "anneal_memory.explain._render",
    "render_pattern": "anneal_memory.explain._render",
}

__all__ = [
    "AuditSlice",
    "CitedEpisode",
    "EpisodeExplanation",
    "PatternExplanation",
    "PatternStep",
    "PatternUse",
    "TrustReport",
    "explain_episode",
    "explain_pattern",
    "render_episode",
    "render_pattern",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
