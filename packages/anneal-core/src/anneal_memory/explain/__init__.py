"""Explanations of the store's decisions: how a pattern earned its level, what an episode is.

Everything here only reads. ``explain_recall`` runs recall's own ranking of a question and
says why each result ranks where it does (and why others were left out); ``explain_pattern``
walks a pattern's level over every wrap with the immune rule behind each step, the episodes
it cites and the words they share, its crystal and the audit entries that prove no step was
rewritten; ``explain_episode`` gives an episode's trust and what caps it, its replacements
and state-key slot, the patterns and crystals it grounds, its associations and its audit
entries. Each result has ``to_dict()`` (stable JSON keys) and :func:`render_recall` /
:func:`render_pattern` / :func:`render_episode` give the text people read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anneal_memory._lazy import lazy_exports

if TYPE_CHECKING:
    from anneal_memory.explain._episode import explain_episode
    from anneal_memory.explain._pattern import explain_pattern
    from anneal_memory.explain._recall import explain_recall
    from anneal_memory.explain._render import render_episode, render_pattern, render_recall
    from anneal_memory.explain._types import (
        AuditSlice,
        CitedEpisode,
        EpisodeExplanation,
        HiddenHit,
        PatternExplanation,
        PatternStep,
        PatternUse,
        RecallExplanation,
        RecallHit,
        TrustReport,
    )

_TYPES = "anneal_memory.explain._types"
_EXPORTS: dict[str, str] = {
    "AuditSlice": _TYPES,
    "CitedEpisode": _TYPES,
    "EpisodeExplanation": _TYPES,
    "HiddenHit": _TYPES,
    "RecallExplanation": _TYPES,
    "RecallHit": _TYPES,
    "PatternExplanation": _TYPES,
    "PatternStep": _TYPES,
    "PatternUse": _TYPES,
    "TrustReport": _TYPES,
    "explain_episode": "anneal_memory.explain._episode",
    "explain_pattern": "anneal_memory.explain._pattern",
    "explain_recall": "anneal_memory.explain._recall",
    "render_recall": "anneal_memory.explain._render",
    "render_episode": "anneal_memory.explain._render",
    "render_pattern": "anneal_memory.explain._render",
}

__all__ = [
    "AuditSlice",
    "CitedEpisode",
    "EpisodeExplanation",
    "HiddenHit",
    "PatternExplanation",
    "PatternStep",
    "PatternUse",
    "RecallExplanation",
    "RecallHit",
    "TrustReport",
    "explain_episode",
    "explain_pattern",
    "explain_recall",
    "render_episode",
    "render_pattern",
    "render_recall",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
