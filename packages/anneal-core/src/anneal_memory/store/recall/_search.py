"""Keyword parsing for recall: words, stopwords, FTS5 expressions, filter conditions.

A keyword is split into word tokens the way the ``unicode61`` tokenizer splits text; each
token is then quoted, so FTS5 operators (``AND``, ``NEAR``, ``*``, ``:``, ``^``, quotes)
in the keyword are ordinary words and can never change the query's meaning. The ranking
itself lives in ``_ranking``.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

__all__ = [
    "COORDINATION_BONUS",
    "MAX_QUERY_TERMS",
    "STOPWORDS",
    "RecallFilters",
    "SearchPlan",
    "as_typed",
    "plan_prefix_search",
    "plan_search",
    "quote",
    "tokenize",
]

MAX_QUERY_TERMS = 32
MIN_PREFIX_CHARS = 3
_TOKEN = re.compile(r"[^\W_]+")

STOPWORDS = frozenset(
    (
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
    )
)
# What the tokenizer leaves of contractions ("Alice's" -> "alice", "s"; "didn't" ->
# "didn", "t"): as common as stopwords and as empty of meaning.
STOPWORDS |= frozenset(
    (
        "s",
        "t",
        "d",
        "ll",
        "m",
        "re",
        "ve",
        "didn",
        "doesn",
        "isn",
        "wasn",
        "aren",
        "weren",
        "hasn",
        "haven",
        "hadn",
        "wouldn",
        "couldn",
        "shouldn",
        "also",
    )
)
COORDINATION_BONUS = 0.25


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchPlan:
    """The FTS5 expressions for one keyword. Every term is a quoted, operator-free string.

    ``prefix`` plans match each term as a word prefix (``"postgre"*``).
    """

    phrase: str | None
    any_word: str
    terms: tuple[str, ...]
    prefix: bool = False

    def expression(self, term: str) -> str:
        """The FTS5 expression matching one of the plan's terms."""
        return quote(term) + "*" if self.prefix else quote(term)


@dataclass(frozen=True, slots=True, kw_only=True)
class RecallFilters:
    """SQL conditions on the ``episodes`` table (alias ``e``) with their bound parameters.

    ``only_type`` is set when the type is the only filter: its count is then read from the
    per-type counter instead of counting rows.
    """

    clauses: tuple[str, ...] = ()
    params: tuple[object, ...] = ()
    only_type: str | None = None

    def where(self, *extra: str) -> str:
        """Return a ``WHERE`` clause joining ``extra`` and the filter conditions (or '')."""
        parts = (*extra, *self.clauses)
        return f"WHERE {' AND '.join(parts)}" if parts else ""


def tokenize(text: str) -> list[str]:
    """Split text into lowercase word tokens (letters and digits; everything else separates)."""
    return [match.group(0).lower() for match in _TOKEN.finditer(text)]


def quote(token: str) -> str:
    """Quote one token as an FTS5 string: an operator-free literal."""
    return '"' + token.replace('"', '""') + '"'


def plan_search(keyword: str) -> SearchPlan | None:
    """Build the FTS5 expressions for ``keyword``; None when it holds no word at all."""
    tokens = tokenize(keyword)
    if not tokens:
        return None
    distinct = list(dict.fromkeys(tokens))[:MAX_QUERY_TERMS]
    content_words = [t for t in distinct if t not in STOPWORDS]
    terms = tuple(content_words or distinct)
    phrase_tokens = tokens[:MAX_QUERY_TERMS]
    phrase = quote(" ".join(phrase_tokens)) if len(phrase_tokens) > 1 else None
    return SearchPlan(
        phrase=phrase,
        any_word=" OR ".join(quote(t) for t in terms),
        terms=terms,
    )


def plan_prefix_search(keyword: str) -> SearchPlan | None:
    """Build a plan matching the keyword's words as prefixes of stored words.

    Words shorter than :data:`MIN_PREFIX_CHARS` are left out (a one-letter prefix matches
    most of the store); None when no word is long enough.
    """
    distinct = list(dict.fromkeys(tokenize(keyword)))[:MAX_QUERY_TERMS]
    content_words = [t for t in distinct if t not in STOPWORDS] or distinct
    terms = tuple(t for t in content_words if len(t) >= MIN_PREFIX_CHARS)
    if not terms:
        return None
    return SearchPlan(
        phrase=None,
        any_word=" OR ".join(quote(t) + "*" for t in terms),
        terms=terms,
        prefix=True,
    )


def as_typed(filters: RecallFilters, plan: SearchPlan) -> RecallFilters:
    """``filters`` plus: the episode's text holds one of a prefix plan's terms as typed.

    FTS5 stems the term of a prefix query before matching (``"des"*`` becomes ``"de"*``,
    which finds "delta"); requiring the unstemmed term in the text keeps the prefix stage to
    words that begin with what was asked. SQLite's ``lower()`` folds ASCII letters only, so
    the condition is left out when a term is not ASCII.
    """
    if not plan.prefix or not all(term.isascii() for term in plan.terms):
        return filters
    held = " OR ".join("instr(lower(e.content), ?) > 0" for _ in plan.terms)
    return dataclasses.replace(
        filters,
        clauses=(*filters.clauses, f"({held})"),
        params=(*filters.params, *plan.terms),
        only_type=None,
    )
