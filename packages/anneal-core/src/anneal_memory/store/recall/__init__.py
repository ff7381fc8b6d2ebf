"""Recall: filters, keyword parsing, the one stage order and one ranker per backend.

``tokenize`` and ``STOPWORDS`` are recall's word rules, shared by the rooms that match words
as recall does (durable-fact cues, recording policy, distinct episodes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anneal_memory._lazy import lazy_exports

if TYPE_CHECKING:
    from anneal_memory.store.recall._search import STOPWORDS, tokenize
    from anneal_memory.store.recall._trace import RecallTrace

_EXPORTS: dict[str, str] = {
    "RecallTrace": "anneal_memory.store.recall._trace",
    "STOPWORDS": "anneal_memory.store.recall._search",
    "tokenize": "anneal_memory.store.recall._search",
}

__all__ = [
    "STOPWORDS",
    "RecallTrace",
    "tokenize",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
