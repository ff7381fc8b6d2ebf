"""What an explanation holds: plain frozen records, each with a JSON-ready ``to_dict``.

The JSON keys are public API (``explain --json``, the MCP ``explain`` tool, the inspector):
add keys, never rename or drop them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

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
]


def _plain(value: Any) -> Any:
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


class _Record:
    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field."""
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditSlice(_Record):
    """The audit entries an explanation rests on.

    Attributes:
        entries: The newest matching entries, newest first (at most the explanation's limit).
        matched: How many entries of the whole trail matched.
        verdict: The chain's verification (``valid``, ``entries``, ``summary``), or None when
            it was not asked for.
    """

    entries: tuple[dict[str, Any], ...] = ()
    matched: int = 0
    verdict: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CitedEpisode(_Record):
    """One episode a pattern line cited (or that grounds its saved explanation).

    Attributes:
        id: The episode id.
        exists: False when it was deleted since.
        in_snapshot: True when it belonged to the wrap that judged the line.
        shared_words: Meaningful words it shares with the explanation.
        grounds: True when it shares enough of them (two) to ground the line.
        trust: Its recorded trust class (None when deleted).
        effective_trust: Its trust once ``derived_from`` caps it (None when deleted).
        superseded_by: The episode that replaced it, if any.
        validated: True when the immune system accepted it as the line's evidence that wrap,
            False when it did not; None when pattern history did not keep that (lines saved
            before it did).
    """

    id: str
    exists: bool
    in_snapshot: bool
    shared_words: tuple[str, ...]
    grounds: bool
    trust: str | None = None
    effective_trust: str | None = None
    superseded_by: str | None = None
    validated: bool | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class PatternStep(_Record):
    """What one wrap did to a pattern.

    Attributes:
        wrap_id: The wrap.
        day: The wrap's day (lines dated that day were judged).
        completed_at: When the wrap was saved.
        line_date: The date the line carried.
        level: The level the save wrote.
        claimed_level: The level the compressor claimed.
        outcome: ``validated``, ``demoted``, ``carried``, ``capped``, ``new``, ``kept`` or
            ``unjudged`` (a line not dated the wrap's day passes as written).
        rules: ``{"code", "rule"}`` for each immune rule that decided it.
        explanation: The explanation the save kept ("" unless validated).
        citations: Where ``cited`` comes from: ``continuity`` (the ids on the line the last
            save wrote), ``history`` (the ids pattern history kept for that save),
            ``recomputed`` (for lines saved before pattern history kept ids: episodes of that
            wrap's snapshot that share two meaningful words with the saved explanation) or
            None (nothing kept to cite).
        cited: The cited or grounding episodes.
        snapshot_truncated: True when the snapshot was larger than the explanation reads.
        corroborated: For a validated step, whether an agent or operator episode grounds it.
    """

    wrap_id: int
    day: str
    completed_at: str | None
    line_date: str | None
    level: int
    claimed_level: int
    outcome: str
    rules: tuple[dict[str, str], ...]
    explanation: str
    citations: str | None
    cited: tuple[CitedEpisode, ...] = ()
    snapshot_truncated: bool = False
    corroborated: bool | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class PatternExplanation(_Record):
    """How a pattern came to hold its level, wrap by wrap, and the audit entries that prove it.

    Attributes:
        name: The name asked for; ``identity`` is its case-folded key.
        identity: The key pattern history uses.
        scope: The scope whose continuity holds it.
        found: False when no save ever wrote it (everything else is then empty).
        level: Its level at the last save that wrote it.
        max_level: The highest level it ever reached.
        first_wrap_id: The wrap that first wrote it.
        last_wrap_id: The wrap that last wrote it.
        last_grounded: The wrap day it last had grounded evidence.
        line: Its line in the current continuity (None when the text no longer holds it).
        steps: What each wrap did, newest first (at most the limit asked).
        more_steps: True when older steps were left out.
        crystal: The crystal of the same name (``name``, ``level``, ``status``, ``evidence``,
            ``crystallized_on``), or None.
        audit: The entries of its wraps and its crystal, with the chain's verdict.
        worth: What the outcomes of its exposures say (``WorthRow`` counts: ``surfaced``,
            ``followed``, ``ignored``, ``not_applicable``, ``unlabelled`` and the successes
            and failures after each); all zero when it was never shown. Report-only.
        probes: The live drift probes on it (``Probe.to_dict``: its ``min_level`` and the
            ``last_status`` / ``last_line`` / ``last_wrap_id`` of its last check), oldest
            first, at most the limit asked.
        probes_total: How many live probes watch it in all.
    """

    name: str
    identity: str
    scope: str
    found: bool
    level: int | None = None
    max_level: int | None = None
    first_wrap_id: int | None = None
    last_wrap_id: int | None = None
    last_grounded: str | None = None
    line: str | None = None
    steps: tuple[PatternStep, ...] = ()
    more_steps: bool = False
    crystal: dict[str, Any] | None = None
    audit: AuditSlice = field(default_factory=AuditSlice)
    worth: dict[str, int] | None = None
    probes: tuple[dict[str, Any], ...] = ()
    probes_total: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class TrustReport(_Record):
    """An episode's trust: as recorded, as it counts, and what caps it.

    Attributes:
        recorded: The trust class it was recorded (or last set) with.
        effective: The class that counts (at most the most trusted of ``derived_from``).
        capped_by: The source episodes that lower it (empty when nothing caps it).
        sources: ``{"id", "effective_trust"}`` of each ``derived_from`` episode still stored.
    """

    recorded: str
    effective: str
    capped_by: tuple[str, ...] = ()
    sources: tuple[dict[str, str], ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class PatternUse(_Record):
    """A pattern line of the current continuity that cites the episode."""

    scope: str
    name: str
    level: int
    line: str


@dataclass(frozen=True, slots=True, kw_only=True)
class EpisodeExplanation(_Record):
    """Everything the store knows about one episode and how it counts.

    Attributes:
        id: The id asked for.
        found: True when the episode is stored.
        deleted: ``{"deleted_at", "reason"}`` when only its tombstone is left.
        episode: The episode (``Episode.to_dict``) when found.
        scope: Its scope ("" is the shared one).
        trust: Its trust report.
        superseded_by: The episode that replaces it now, if any.
        replaces: Links in which it replaced older episodes.
        replaced_by: Links in which newer episodes replaced it.
        state_key: Its state key, if any.
        slot: The key's episodes, newest first (the first is current), when keyed.
        slot_size: How many episodes the key holds in all.
        patterns: Lines of the current continuity of its scope that cite it.
        crystals: Crystals whose evidence cites it.
        associations: Its links to other episodes (``AssociationLink.to_dict``), strongest first.
        audit: Its audit entries, with the chain's verdict.
        worth: What the outcomes of its exposures say (the counts of a ``WorthRow``), all
            zero when it was never shown; None when it is not stored. Report-only.
    """

    id: str
    found: bool
    deleted: dict[str, str] | None = None
    episode: dict[str, Any] | None = None
    scope: str | None = None
    trust: TrustReport | None = None
    superseded_by: str | None = None
    replaces: tuple[dict[str, str], ...] = ()
    replaced_by: tuple[dict[str, str], ...] = ()
    state_key: str | None = None
    slot: tuple[str, ...] = ()
    slot_size: int = 0
    patterns: tuple[PatternUse, ...] = ()
    crystals: tuple[str, ...] = ()
    associations: tuple[dict[str, Any], ...] = ()
    audit: AuditSlice = field(default_factory=AuditSlice)
    worth: dict[str, int] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RecallHit(_Record):
    """One result of an explained recall, and what ranked it there.

    Attributes:
        rank: Its place in the page (1 is the best).
        id: The episode id.
        type: Its episode type.
        timestamp: When it was recorded.
        trust: Its recorded trust class.
        content: Its text (at most :data:`~anneal_memory.explain._recall.CONTENT_CHARS`).
        found_by: The stage that found it: ``phrase`` (the question's words in order),
            ``words``, ``prefix``, ``substring``, ``citation hop`` (holds no word; a best
            match's validated citation leads to it) or ``newest`` (no question).
        matched: ``{"word", "weight"}`` of each term it holds, heaviest first (its share of
            the score before the bonus for holding several).
        score: The score it was ranked by (higher ranks first).
        base_score: Its score before any lift (the bonus for several words and the
            question's intent included).
        lifts: What raised it: ``{"by": "neighbour", "from": ID}`` (recorded close beside a
            better match), ``{"by": "citation hop", "from": [IDS]}``, ``{"by": "intent",
            "factor": F}`` (the question asks for its type or time).
    """

    rank: int
    id: str
    type: str
    timestamp: str
    trust: str
    content: str
    found_by: str
    matched: tuple[dict[str, Any], ...] = ()
    score: float | None = None
    base_score: float | None = None
    lifts: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class HiddenHit(_Record):
    """An episode the same question ranks on the page, left out of this recall, and why.

    Attributes:
        id: The episode id.
        rank: Its place among the results had nothing been left out.
        reasons: ``{"why": "superseded", "by": ID}``, ``{"why": "state key", "key": KEY,
            "current": ID}`` (an older value of a single-valued fact) and ``{"why": "scope",
            "scope": S}`` (recorded in another scope than the one asked).
        content: Its text (bounded as a result's).
    """

    id: str
    rank: int
    reasons: tuple[dict[str, Any], ...]
    content: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RecallExplanation(_Record):
    """Why recall returned what it returned for one question, in its order.

    Attributes:
        question: The question asked.
        filters: The filters given (``type``, ``since``, ``until``, ``source``, ``scope``,
            ``include_superseded``).
        backend: ``sqlite`` or ``postgresql`` (their scores are on different scales).
        stage: The stage that answered (``words``, ``prefix``, ``substring``, ``newest``) or
            None when nothing matched.
        terms: The terms that stage searched for.
        intent: The question's intent (``types`` it favours, ``since`` / ``until``), or None.
        total_matching: How many episodes the stage matched.
        results: The page, in recall's order, each with its reasons.
        hidden: Episodes ranked within the page once nothing is left out, and why they were.
        searched: Each term searched as more than itself -> the other words it was searched
            as (its irregular forms; for a category word such as *pets*, its members).
    """

    question: str
    filters: dict[str, Any]
    backend: str
    stage: str | None
    terms: tuple[str, ...]
    intent: dict[str, Any] | None
    total_matching: int
    results: tuple[RecallHit, ...] = ()
    hidden: tuple[HiddenHit, ...] = ()
    searched: dict[str, tuple[str, ...]] = field(default_factory=dict)
