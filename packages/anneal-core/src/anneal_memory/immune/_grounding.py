"""Meaningful words and overlap: does an explanation rest on the text it cites? Pure.

Grounding uses a short stopword list (function words only), so domain words count. The
cross-session rephrase check uses a longer list that also drops common verbs of speech,
quantifiers and the number words one to ten, because a rephrased explanation keeps its
content words and changes the glue.
"""

from __future__ import annotations

import functools
import re

__all__ = [
    "CROSS_SESSION_STOPWORDS",
    "GROUNDING_MIN_SHARED",
    "GROUNDING_STOPWORDS",
    "REPHRASE_MIN_SHARED",
    "grounding_words",
    "rephrase_words",
    "shared_words",
]

GROUNDING_MIN_SHARED = 2
REPHRASE_MIN_SHARED = 3

_GROUNDING_TEXT = """
a an the is are was were be been being have has had do does did will would shall should
may might can could this that these those it its he she they we you i me my our his her
their in on at to for of by with from and or but not no nor so if as
"""
_REPHRASE_EXTRA_TEXT = """
about above after again all also any because before between both each few more most
other over same some such than then there through under very what when where which while
who why how into only own just once here out off up down too until against during
them themselves itself ourselves yourself him one two three four five six seven eight
nine ten first second many much every always never often still yet
"""
GROUNDING_STOPWORDS = frozenset(_GROUNDING_TEXT.split())
CROSS_SESSION_STOPWORDS = GROUNDING_STOPWORDS | frozenset(_REPHRASE_EXTRA_TEXT.split())
_SPLIT = re.compile(r"[^0-9a-z]+")


_CACHE_TEXT_CHARS = 2000


def _split(text: str, stopwords: frozenset[str]) -> frozenset[str]:
    tokens = _SPLIT.split(text.casefold())
    return frozenset(t for t in tokens if len(t) > 2 and t not in stopwords)


_cached_split = functools.lru_cache(maxsize=2048)(_split)


def _words(text: str, stopwords: frozenset[str]) -> frozenset[str]:
    # Explanations and short episodes recur across the lines of a save; long texts would
    # make the cache heavy, so only short ones are kept.
    if len(text) <= _CACHE_TEXT_CHARS:
        return _cached_split(text, stopwords)
    return _split(text, stopwords)


def grounding_words(text: str) -> frozenset[str]:
    """Lower-cased tokens longer than two characters that are not grounding stopwords."""
    return _words(text, GROUNDING_STOPWORDS)


def rephrase_words(text: str) -> frozenset[str]:
    """Like :func:`grounding_words` with the longer cross-session stopword list."""
    return _words(text, CROSS_SESSION_STOPWORDS)


def shared_words(explanation: str, content: str) -> frozenset[str]:
    """The meaningful words an explanation shares with an episode's text."""
    return grounding_words(explanation) & grounding_words(content)
