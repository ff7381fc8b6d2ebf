"""Keyword parsing for recall: words, stopwords, FTS5 expressions, filter conditions.

A keyword is split into word tokens the way the ``unicode61`` tokenizer splits text; each
token is then quoted, so FTS5 operators (``AND``, ``NEAR``, ``*``, ``:``, ``^``, quotes)
in the keyword are ordinary words and can never change the query's meaning. The ranking
itself lives in ``_ranking``.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from anneal_memory.store.recall._categories import CATEGORY_WEIGHT, category_members
from anneal_memory.store.recall._intent import Intent
from anneal_memory.store.recall._wordforms import word_forms

if TYPE_CHECKING:
    from anneal_memory.store.recall._trace import RecallTrace

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

    ``prefix`` plans match each term as a word prefix (``"postgre"*``). ``categories`` are
    the terms searched with a category's members (``_categories``).
    """

    phrase: str | None
    any_word: str
    terms: tuple[str, ...]
    prefix: bool = False
    forms: tuple[tuple[str, ...], ...] = ()
    categories: tuple[str, ...] = ()

    def weight(self, term: str) -> float:
        """The factor on ``term``'s bm25 share: :data:`CATEGORY_WEIGHT` for a category word."""
        return CATEGORY_WEIGHT if term in self.categories else 1.0

    def forms_of(self, term: str) -> tuple[str, ...]:
        """The word forms searched for ``term`` (``_wordforms``); just the term if none."""
        for group in self.forms:
            if group[0] == term:
                return group
        return (term,)

    def expression(self, term: str) -> str:
        """The FTS5 expression matching one of the plan's terms (or any of its forms)."""
        if self.prefix:
            return quote(term) + "*"
        return _expression(self.forms_of(term))


@dataclass(frozen=True, slots=True, kw_only=True)
class RecallFilters:
    """SQL conditions on the ``episodes`` table (alias ``e``) with their bound parameters.

    ``only_type`` is set when the type is the only filter: its count is then read from the
    per-type counter instead of counting rows. ``now`` is the store clock's time, which the
    times a question names ("last week") are read against; ``intent`` holds the question's
    priors (``_intent``), applied by the words stage. ``trace``, when set, is filled in by
    the ranking with its reasons (``explain recall``).
    """

    clauses: tuple[str, ...] = ()
    params: tuple[object, ...] = ()
    only_type: str | None = None
    now: _dt.datetime | None = None
    intent: Intent | None = None
    trace: RecallTrace | None = field(default=None, compare=False)

    def where(self, *extra: str) -> str:
        """Return a ``WHERE`` clause joining ``extra`` and the filter conditions (or '')."""
        parts = (*extra, *self.clauses)
        return f"WHERE {' AND '.join(parts)}" if parts else ""


def _expression(forms: tuple[str, ...]) -> str:
    """The FTS5 expression matching any of ``forms`` (a term and its forms, term first)."""
    if len(forms) == 1:
        return quote(forms[0])
    return "(" + " OR ".join(quote(form) for form in forms) + ")"


def tokenize(text: str) -> list[str]:
    """Split text into lowercase word tokens (letters and digits; everything else separates)."""
    return [match.group(0).lower() for match in _TOKEN.finditer(text)]


def quote(token: str) -> str:
    """Quote one token as an FTS5 string: an operator-free literal."""
    return '"' + token.replace('"', '""') + '"'


def _with_forms(
    words: list[str],
) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...], tuple[str, ...]]:
    """The words to search with their forms and members (chose -> choose, pets -> dog).

    A word's group is its irregular forms (``_wordforms``) and, when it names a category,
    the category's members (``_categories``) that are not words of the question. A word
    that is a form of an earlier word is dropped: its group is searched once. Returns the
    terms, the groups of those searched as more than themselves, and the category words.
    """
    terms: list[str] = []
    groups: list[tuple[str, ...]] = []
    categories: list[str] = []
    covered: set[str] = set()
    asked = set(words)
    for word in words:
        if word in covered:
            continue
        forms = word_forms(word)
        members = tuple(
            m for m in category_members(word) if m not in asked and m + "s" not in asked
        )
        forms = tuple(dict.fromkeys((*forms, *members)))
        covered.update(forms)
        terms.append(word)
        if len(forms) > 1:
            groups.append(forms)
        if members:
            categories.append(word)
    return tuple(terms), tuple(groups), tuple(categories)


def plan_search(keyword: str) -> SearchPlan | None:
    """Build the FTS5 expressions for ``keyword``; None when it holds no word at all."""
    tokens = tokenize(keyword)
    if not tokens:
        return None
    distinct = list(dict.fromkeys(tokens))[:MAX_QUERY_TERMS]
    content_words = [t for t in distinct if t not in STOPWORDS]
    terms, forms, categories = _with_forms(content_words or distinct)
    phrase_tokens = tokens[:MAX_QUERY_TERMS]
    phrase = quote(" ".join(phrase_tokens)) if len(phrase_tokens) > 1 else None
    grouped = {group[0]: group for group in forms}
    any_word = " OR ".join(_expression(grouped.get(t, (t,))) for t in terms)
    return SearchPlan(
        phrase=phrase, any_word=any_word, terms=terms, forms=forms, categories=categories
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
