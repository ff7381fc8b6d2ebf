"""What a wrap proposes to the crystal tier; it never crystallizes by itself.

Two lists, appended to the wrap package for the model and the operator:

- crystallization candidates: Proven (2x+) pattern lines of the continuity last exercised
  more than 30 days ago (cold) that are not crystals yet;
- rewarm candidates: live crystals that are not hot but whose subject reappeared in this
  wrap's episodes (an episode shares enough distinctive words with the crystal) or whose
  name is a pattern line exercised in the last 7 days.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from anneal_memory.crystal import _keywords as kw
from anneal_memory.crystal._read import list_crystals
from anneal_memory.crystal._rows import HOT_DAYS, WARM_DAYS
from anneal_memory.crystal._types import ActivationTier, Crystal
from anneal_memory.store import Store
from anneal_memory.types import Episode

__all__ = [
    "CrystallizationCandidate",
    "PatternSighting",
    "Proposals",
    "RewarmCandidate",
    "proposals_from",
    "propose",
    "render_proposals",
]

_MAX_LISTED = 10
_MIN_HITS = 2
_BAR = 2.5


class PatternSighting(Protocol):
    """A pattern line of the continuity (``continuity._markers.PatternLine`` fits)."""

    @property
    def name(self) -> str: ...

    @property
    def level(self) -> int: ...

    @property
    def date(self) -> str | None: ...

    @property
    def explanation(self) -> str: ...

    @property
    def evidence_ids(self) -> tuple[str, ...]: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class CrystallizationCandidate:
    """A cold Proven pattern an operator may crystallize."""

    name: str
    level: int
    last_date: str
    days_cold: int
    explanation: str
    evidence: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class RewarmCandidate:
    """A crystal whose subject came back; an operator may touch it."""

    name: str
    level: int
    activation: ActivationTier
    episodes: tuple[str, ...]
    exercised: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class Proposals:
    """Both lists, best first."""

    crystallize: tuple[CrystallizationCandidate, ...]
    rewarm: tuple[RewarmCandidate, ...]


def _age(date: str | None, today: _dt.date) -> int | None:
    try:
        return None if date is None else (today - _dt.date.fromisoformat(date)).days
    except ValueError:
        return None


def _cold(
    patterns: Sequence[PatternSighting], known: set[str], today: _dt.date
) -> list[CrystallizationCandidate]:
    out: dict[str, CrystallizationCandidate] = {}
    for p in patterns:
        age = _age(p.date, today)
        if p.level >= 2 and age is not None and age > WARM_DAYS and p.name not in known:
            out.setdefault(
                p.name,
                CrystallizationCandidate(
                    name=p.name, level=p.level, last_date=str(p.date), days_cold=age,
                    explanation=p.explanation, evidence=p.evidence_ids,
                ),
            )  # fmt: skip
    return sorted(out.values(), key=lambda c: (-c.level, -c.days_cold, c.name))


def _echoes(crystal: Crystal, episodes: Sequence[Episode]) -> tuple[str, ...]:
    words = kw.extract_keywords(" ".join((crystal.name, crystal.explanation, *crystal.tags)))
    found = []
    for episode in episodes:
        stems = kw.stems_of(episode.content)
        hits = [w for w in words if w in stems]
        if len(hits) >= _MIN_HITS and sum(kw.length_weight(h) for h in hits) >= _BAR:
            found.append(episode.id)
    return tuple(found)


def _rewarm(
    crystals: Sequence[Crystal],
    patterns: Sequence[PatternSighting],
    episodes: Sequence[Episode],
    today: _dt.date,
) -> list[RewarmCandidate]:
    recent = {p.name for p in patterns if (a := _age(p.date, today)) is not None and a < HOT_DAYS}
    out = []
    for c in crystals:
        if c.activation is ActivationTier.HOT:
            continue
        echoes = _echoes(c, episodes)
        if echoes or c.name in recent:
            out.append(
                RewarmCandidate(
                    name=c.name,
                    level=c.level,
                    activation=c.activation,
                    episodes=echoes,
                    exercised=c.name in recent,
                )
            )
    return sorted(out, key=lambda r: (-len(r.episodes), -r.level, r.name))


def propose(
    store: Store,
    patterns: Sequence[PatternSighting],
    episodes: Sequence[Episode],
    today: _dt.date,
) -> Proposals:
    """Both candidate lists for one wrap (read-only)."""
    return proposals_from(list_crystals(store, status="all"), patterns, episodes, today)


def proposals_from(
    everything: Sequence[Crystal],
    patterns: Sequence[PatternSighting],
    episodes: Sequence[Episode],
    today: _dt.date,
) -> Proposals:
    """Both candidate lists from every crystal, live or retired (pure)."""
    live = [c for c in everything if c.live]
    return Proposals(
        crystallize=tuple(_cold(patterns, {c.name for c in everything}, today)),
        rewarm=tuple(_rewarm(live, patterns, episodes, today)),
    )


def _one_line(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "\u2026"


def render_proposals(proposals: Proposals) -> str:
    """The package section; "" when there is nothing to propose."""
    if not proposals.crystallize and not proposals.rewarm:
        return ""
    lines = ["", "## Crystal tier proposals (for the operator; nothing crystallizes by itself)", ""]
    if proposals.crystallize:
        lines.append("Cold Proven patterns that could be crystallized (`anneal-memory crystal "
                     "crystallize --name NAME --level N --explanation TEXT`):")  # fmt: skip
        lines += [
            f"- {c.name} ({c.level}x, last {c.last_date}, {c.days_cold} d cold): "
            f"{_one_line(c.explanation) or '(no explanation)'}"
            for c in proposals.crystallize[:_MAX_LISTED]
        ]
    if proposals.rewarm:
        lines.append(
            "Crystals whose subject came back (re-heat: `anneal-memory crystal touch NAME`):"
        )
        for r in proposals.rewarm[:_MAX_LISTED]:
            why = [f"episodes {', '.join(r.episodes)}"] if r.episodes else []
            why += ["pattern line exercised this week"] if r.exercised else []
            lines.append(f"- {r.name} ({r.level}x, {r.activation.value}): {'; '.join(why)}")
    return "\n".join(lines) + "\n"
