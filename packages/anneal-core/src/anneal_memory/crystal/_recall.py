"""``crystal_recall``: the crystals relevant to a prompt or query.

Scoring: each query keyword has a weight (corpus idf once the store holds 50 episodes, a
length proxy before); a crystal scores the sum of the weights of the distinct keywords its
name, explanation and tags contain. The evidence edge adds the crystals whose evidence cites
an episode the query finds, at that episode's score. Prompt mode (the default, for
recall before a model call) is precision-biased: it needs 2 keywords, 2 distinct hits per
item, a score bar (2.5 length proxy, 1.6 idf), an idf anchor of 0.5, and episodes of 80+
characters. Query mode needs one hit and no bar.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence

from anneal_memory.crystal import _keywords as kw
from anneal_memory.crystal import _rows
from anneal_memory.crystal._read import day_of
from anneal_memory.crystal._types import Crystal, CrystalHit, CrystalRecall
from anneal_memory.errors import InvalidCrystalError
from anneal_memory.store import Reader, Store
from anneal_memory.types import Episode, EpisodeType

__all__ = ["DEFAULT_MAX_PATTERNS", "MODES", "Gates", "crystal_recall"]

DEFAULT_MAX_PATTERNS = 3
_MAX_PATTERNS_CAP = 20
_MAX_QUERY_CHARS = 4000
_EVIDENCE_SEEDS = 20
_BOOSTED = frozenset((EpisodeType.DECISION, EpisodeType.OUTCOME))
MODES = ("prompt", "query")


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Gates:
    """The thresholds of one recall mode."""

    min_keywords: int
    min_hits: int
    bar_length: float
    bar_idf: float
    anchor: float
    min_episode_chars: int
    boost: float


_PROMPT = Gates(
    min_keywords=2,
    min_hits=2,
    bar_length=2.5,
    bar_idf=1.6,
    anchor=0.5,
    min_episode_chars=80,
    boost=0.5,
)
_QUERY = Gates(
    min_keywords=1, min_hits=1, bar_length=0, bar_idf=0, anchor=0, min_episode_chars=0, boost=0
)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class _Scoring:
    keywords: tuple[str, ...]
    weights: Mapping[str, float]
    gates: Gates
    idf: bool

    def passes(self, hits: Sequence[str], score: float) -> bool:
        g = self.gates
        if len(hits) < g.min_hits:
            return False
        if score < (g.bar_idf if self.idf else g.bar_length):
            return False
        return not (self.idf and max(self.weights[h] for h in hits) < g.anchor)

    def match(self, text: str) -> tuple[tuple[str, ...], float]:
        stems = kw.stems_of(text)
        hits = tuple(k for k in self.keywords if k in stems)
        return hits, sum(self.weights[h] for h in hits)


def _weights(reader: Reader, keywords: Sequence[str]) -> tuple[dict[str, float], str]:
    corpus = reader.episode_total()
    if corpus < kw.MIN_IDF_CORPUS:
        return {k: kw.length_weight(k) for k in keywords}, "length"
    # Past this many matches a word weighs the floor anyway, so counting stops there: the
    # cost of a common word stays bounded however large the store grows.
    cap = math.ceil((corpus + 1) ** (1 - kw.IDF_FLOOR))
    out: dict[str, float] = {}
    for k in keywords:
        # k is [a-z0-9]+ (see extract_keywords): one literal full-text term.
        out[k] = kw.idf_weight(reader.word_match_count(k, cap), corpus)
    return out, "idf"


def _keyword_hits(crystals: Sequence[Crystal], sc: _Scoring) -> dict[str, CrystalHit]:
    out: dict[str, CrystalHit] = {}
    for crystal in crystals:
        hits, score = sc.match(" ".join((crystal.name, crystal.explanation, *crystal.tags)))
        if sc.passes(hits, score):
            out[crystal.name] = CrystalHit(
                crystal=crystal, score=score, via="keyword", matched=hits
            )
    return out


def _episode_score(episode: Episode, sc: _Scoring) -> tuple[float, tuple[str, ...]] | None:
    if len(episode.content) < sc.gates.min_episode_chars:
        return None
    hits, score = sc.match(episode.content)
    score += sc.gates.boost if episode.type in _BOOSTED else 0.0
    return (score, hits) if sc.passes(hits, score) else None


def _evidence_hits(
    store: Store, query: str, crystals: Sequence[Crystal], sc: _Scoring
) -> dict[str, CrystalHit]:
    # The query's own words go to the episode search (its stemmer is not ours).
    seeds = store.recall(keyword=query, limit=_EVIDENCE_SEEDS).episodes
    scored = {e.id: s for e in seeds if (s := _episode_score(e, sc))}
    out: dict[str, CrystalHit] = {}
    for crystal in crystals:
        cited = [i for i in crystal.evidence if i in scored]
        if not cited:
            continue
        best = max(cited, key=lambda i: scored[i][0])
        score, hits = scored[best]
        out[crystal.name] = CrystalHit(
            crystal=crystal, score=score, via="evidence", matched=hits, episodes=tuple(cited)
        )
    return out


def _merge(a: Mapping[str, CrystalHit], b: Mapping[str, CrystalHit]) -> list[CrystalHit]:
    merged = dict(a)
    for name, hit in b.items():
        if name in merged:
            first = merged[name]
            merged[name] = dataclasses.replace(
                first,
                score=max(first.score, hit.score),
                via="both",
                matched=tuple(dict.fromkeys((*first.matched, *hit.matched))),
                episodes=hit.episodes,
            )
        else:
            merged[name] = hit
    return sorted(merged.values(), key=lambda h: (-h.score, -h.crystal.level, h.crystal.name))


def _check(query: object, max_patterns: object, mode: object) -> None:
    if not isinstance(query, str):
        raise InvalidCrystalError(f"query must be text, got {type(query).__name__}")
    if mode not in MODES:
        raise InvalidCrystalError(f"mode {mode!r} is not valid; use one of: prompt, query")
    if (
        isinstance(max_patterns, bool)
        or not isinstance(max_patterns, int)
        or not 1 <= max_patterns <= _MAX_PATTERNS_CAP
    ):
        raise InvalidCrystalError(
            f"max_patterns must be an integer from 1 to {_MAX_PATTERNS_CAP}, got {max_patterns!r}"
        )


def crystal_recall(
    store: Store,
    query: str,
    *,
    max_patterns: int = DEFAULT_MAX_PATTERNS,
    associative: bool = True,
    mode: str = "prompt",
) -> CrystalRecall:
    """The live crystals relevant to ``query``, best first; read-only.

    Any text is a valid query (its words are matched literally; at most the first 4000
    characters are read). ``associative`` adds the evidence edge.

    Raises:
        InvalidCrystalError: ``max_patterns`` is not 1-20, or ``mode`` is not prompt/query.
    """
    _check(query, max_patterns, mode)
    gates = _PROMPT if mode == "prompt" else _QUERY
    text = query[:_MAX_QUERY_CHARS]
    keywords = kw.extract_keywords(text, mode=mode)
    if len(keywords) < gates.min_keywords:
        return CrystalRecall(
            hits=(),
            keywords=keywords,
            weighting="length",
            reason="query too thin: give it at least 2 distinctive keywords (4+ letters, "
            "not stopwords), or use query mode",
        )
    with store.reading("crystal recall") as reader:
        crystals = [c for c in _rows.fetch_all(reader.conn, day_of(store)) if c.live]
        if not crystals:
            return CrystalRecall(
                hits=(), keywords=keywords, weighting="length", reason="no crystals"
            )
        weights, weighting = _weights(reader, keywords)
    sc = _Scoring(keywords=keywords, weights=weights, gates=gates, idf=weighting == "idf")
    direct = _keyword_hits(crystals, sc)
    edge = _evidence_hits(store, text, crystals, sc) if associative else {}
    hits = tuple(_merge(direct, edge)[:max_patterns])
    reason = "" if hits else "no crystal matched enough distinctive keywords"
    return CrystalRecall(hits=hits, keywords=keywords, weighting=weighting, reason=reason)
