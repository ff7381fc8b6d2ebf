"""Which immune rule decided a saved pattern line, in words (``immune/_graduation.py``).

The save keeps each line's level, claimed level, validation and demotion marks; the rule
texts below restate the immune system's rules so a step reads as the judge decided it.
"""

from __future__ import annotations

from anneal_memory.immune._graduation import CARRYFORWARD_DAYS
from anneal_memory.immune._grounding import GROUNDING_MIN_SHARED, REPHRASE_MIN_SHARED
from anneal_memory.store.wraps import PatternStepRow

__all__ = ["RULES", "outcome_of", "rules_of"]

RULES: dict[str, str] = {
    "validated": (
        f"a line dated the wrap's day climbs one rung when an episode of that wrap it cites "
        f"shares at least {GROUNDING_MIN_SHARED} meaningful words with its explanation"
    ),
    "ungrounded": (
        f"no cited episode of the wrap shared {GROUNDING_MIN_SHARED} meaningful words with the "
        "explanation (or none of the cited ids was an episode of the wrap): one level down, "
        "evidence removed"
    ),
    "needs-evidence": (
        'a line at 2x or more dated the wrap\'s day needs [evidence: ids "explanation"]: '
        "one level down"
    ),
    "cross-session-overlap": (
        f"the explanation rephrased an earlier graduation of the pattern ({REPHRASE_MIN_SHARED} "
        "shared words, not identical): a new rung needs new understanding, one level down"
    ),
    "carried-forward": (
        f"grounded within the last {CARRYFORWARD_DAYS} days and not above its highest level: "
        "held at its level instead of dropping"
    ),
    "level-capped": (
        "a wrap climbs at most one rung, and only with grounded evidence; a new pattern "
        "enters at 1x"
    ),
    "uncorroborated": (
        "every citation grounding it was a tool or external episode: written back at 1x until "
        "an agent or operator episode confirms it"
    ),
    "new": "first written by this wrap",
    "kept": "written at the level it already held",
    "unjudged": "not dated the wrap's day: carried over as written, not judged again",
}

_DEMOTIONS = ("ungrounded", "needs-evidence", "cross-session-overlap", "uncorroborated")


def outcome_of(row: PatternStepRow, prior_level: int | None) -> str:
    """One word for what the wrap did to the line (see ``PatternStep.outcome``)."""
    checks = (
        (row.validated, "validated"),
        ("carried-forward" in row.marks, "carried"),
        (any(mark in row.marks for mark in _DEMOTIONS), "demoted"),
        ("level-capped" in row.marks, "capped"),
        (prior_level is None, "new"),
        (row.line_date != row.today, "unjudged"),
    )
    return next((word for hit, word in checks if hit), "kept")


def rules_of(
    row: PatternStepRow, outcome: str, prior_level: int | None
) -> tuple[dict[str, str], ...]:
    """``{"code", "rule"}`` for the outcome and every mark the save wrote on the line."""
    codes = ["validated"] if outcome == "validated" else []
    codes += [mark for mark in row.marks if mark in RULES]
    if not codes:
        codes = [outcome if outcome in RULES else "kept"]
    if prior_level is None and "new" not in codes and outcome != "new":
        codes.append("new")
    return tuple({"code": code, "rule": RULES[code]} for code in dict.fromkeys(codes))
