"""The uncorroborated rule: tool and outside text alone cannot make a pattern Proven. Pure.

A pattern line dated today at 2x or above whose grounding citations (the cited episodes of
this wrap that share at least two meaningful words with its explanation) are all ``tool``
or ``external`` episodes (effective trust) is written back at 1x and marked
``(uncorroborated)``; its evidence stays on the line so an agent or operator episode can
confirm it in a later wrap. Citations of superseded episodes never ground a line.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from anneal_memory.document._markers import StatusMark, add_mark, set_level
from anneal_memory.immune._graduation import LineVerdict
from anneal_memory.immune._grounding import GROUNDING_MIN_SHARED, shared_words
from anneal_memory.immune._report import Finding, FindingCode, Severity
from anneal_memory.types import Trust

__all__ = ["UNCORROBORATED_LEVEL", "judge_corroboration", "superseded_citations"]

UNCORROBORATED_LEVEL = 1


def _grounding_ids(verdict: LineVerdict, snapshot: Mapping[str, str]) -> list[str]:
    line = verdict.line
    return [
        ident
        for ident in line.evidence_ids
        if ident in snapshot
        and len(shared_words(line.explanation, snapshot[ident])) >= GROUNDING_MIN_SHARED
    ]


def judge_corroboration(
    verdict: LineVerdict,
    *,
    today: str,
    snapshot: Mapping[str, str],
    trusts: Mapping[str, Trust],
) -> LineVerdict:
    """Return ``verdict`` unchanged, or rewritten at 1x ``(uncorroborated)`` (see above)."""
    line = verdict.line
    if line.date != today or not line.has_evidence or verdict.level < 2 or not verdict.grounded:
        return verdict
    grounding = _grounding_ids(verdict, snapshot)
    levels = {trusts.get(i, Trust.AGENT) for i in grounding}
    if not grounding or any(t.rank >= Trust.AGENT.rank for t in levels):
        return verdict
    shown = ", ".join(f"{i} ({trusts.get(i, Trust.AGENT).value})" for i in grounding)
    finding = Finding(
        code=FindingCode.UNCORROBORATED,
        severity=Severity.DEMOTION,
        message=f"{line.name} {verdict.level}x -> {UNCORROBORATED_LEVEL}x: it did not climb "
        f"because every citation grounding it is a tool or external episode ({shown}); "
        "cite an agent or operator episode that confirms it",
        pattern=line.name,
        episode_ids=tuple(grounding),
    )
    text = add_mark(set_level(verdict.text, UNCORROBORATED_LEVEL), StatusMark.UNCORROBORATED)
    kept = tuple(f for f in verdict.findings if f.code is not FindingCode.GRADUATED)
    return dataclasses.replace(
        verdict,
        text=text,
        level=UNCORROBORATED_LEVEL,
        validated=False,
        findings=(*kept, finding),
    )


def superseded_citations(
    verdict: LineVerdict, *, today: str, superseded: Mapping[str, str]
) -> Finding | None:
    """A warning when a today-dated line cites episodes that were replaced."""
    line = verdict.line
    cited = [i for i in line.evidence_ids if i in superseded]
    if line.date != today or not cited:
        return None
    shown = ", ".join(f"{i} (replaced by {superseded[i]})" for i in cited)
    return Finding(
        code=FindingCode.SUPERSEDED_CITATION,
        severity=Severity.WARNING,
        message=f"{line.name} cites superseded episode(s) {shown}; a replaced fact cannot "
        "ground a graduation, cite its replacement",
        pattern=line.name,
        episode_ids=tuple(cited),
    )
