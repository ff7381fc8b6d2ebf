"""Keywords of a prompt or query, and the weights ``crystal_recall`` gives them. Pure.

Prompt mode (recall before a model call) keeps distinctive words only: at least 4
characters, no stopwords, at most 14. Query mode (someone asking on purpose) also keeps
short ALL-CAPS or digit-bearing tokens such as ``DB`` or ``v2``. Words are compared after a
light suffix stem, so ``pools`` finds ``pool`` and ``timeouts`` finds ``timeout``.
"""

from __future__ import annotations

import math
import re

__all__ = [
    "IDF_FLOOR",
    "MAX_KEYWORDS",
    "MIN_IDF_CORPUS",
    "extract_keywords",
    "idf_weight",
    "length_weight",
    "stem",
    "stems_of",
]

MAX_KEYWORDS = 14
MIN_IDF_CORPUS = 50
IDF_FLOOR = 0.30
_TOKEN = re.compile(r"[A-Za-z0-9]+")
_SUFFIXES = ("ings", "ing", "ies", "es", "ed", "s")
_STOPWORD_TEXT = """
    about above after again against also always because been before being below between
    both cannot could does doing done down during each either else even ever every from
    further have having here hers herself himself into itself just like made make many
    more most much must myself need never next once only other ought ours ourselves over
    same shall should some such than that their theirs them themselves then there these
    they this those through under until upon very want were what when where which while
    whom whose will with within without would your yours yourself yourselves thing things
    today tomorrow yesterday please thanks tell show give take know think going really
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def stem(word: str) -> str:
    """A light suffix stem: lowercase, one common English suffix removed (keeps 4+ chars)."""
    low = word.lower()
    for suffix in _SUFFIXES:
        if low.endswith(suffix) and len(low) - len(suffix) >= 4:
            base = low[: -len(suffix)]
            return base + "y" if suffix == "ies" else base
    return low


def stems_of(text: str) -> frozenset[str]:
    """Every word stem in ``text`` (names split on ``_ . -``)."""
    return frozenset(stem(t) for t in _TOKEN.findall(text))


def _keep(token: str, mode: str) -> bool:
    if len(token) >= 4:
        return token.lower() not in STOPWORDS
    if mode != "query" or len(token) < 2:
        return False
    return token.isupper() or any(c.isdigit() for c in token)


def extract_keywords(text: str, *, mode: str = "prompt") -> tuple[str, ...]:
    """The query's keyword stems, in order, without repeats, at most 14."""
    out: list[str] = []
    for token in _TOKEN.findall(text):
        if _keep(token, mode):
            key = stem(token)
            if key not in out:
                out.append(key)
        if len(out) == MAX_KEYWORDS:
            break
    return tuple(out)


def length_weight(keyword: str) -> float:
    """The weight of a keyword in a small store: 1.0, +0.5 for 8 characters or more."""
    return 1.0 + (0.5 if len(keyword) >= 8 else 0.0)


def idf_weight(document_frequency: int, corpus: int) -> float:
    """``log((N+1)/(df+1)) / log(N+1)``, at least 0.30: rare words weigh near 1."""
    raw = math.log((corpus + 1) / (document_frequency + 1)) / math.log(corpus + 1)
    return max(IDF_FLOOR, raw)
