"""The uncorroborated rule: tool and outside text alone cannot make a pattern Proven. Pure.

A pattern line dated today at 2x or above is written back at 1x and marked
``(uncorroborated)`` when its grounding citations (the cited episodes of this wrap that
share at least two meaningful words with its explanation) lean on ``tool`` or ``external``
episodes (effective trust) and no agent or operator citation confirms the same claim:

- every grounding citation is a tool or external episode; or
- some are, and no agent or operator citation is *about the same thing*: the **claim words**
  are the explanation's meaningful words found in the low-trust grounding evidence, and a
  confirming citation must hold at least a third of them and at least three (all of them
  when the claim has fewer). Two incidental words (``admin`` and ``api`` in an unrelated
  note) do not confirm "the admin API accepts unauthenticated requests".

Its evidence stays on the line so an agent or operator episode can confirm it in a later
wrap. Citations of superseded episodes never ground a line. A line grounded only by agent or
operator episodes is judged by the grounding rule alone, as before.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping

from anneal_memory.document._markers import StatusMark, add_mark, set_level
from anneal_memory.immune._graduation import LineVerdict
from anneal_memory.immune._grounding import GROUNDING_MIN_SHARED, grounding_words, shared_words
from anneal_memory.immune._report import Finding, FindingCode, Severity
from anneal_memory.types import Trust

__all__ = [
    "CLAIM_MIN_SHARED",
    "CLAIM_SHARE",
    "UNCORROBORATED_LEVEL",
    "claim_words_needed",
    "judge_corroboration",
    "superseded_citations",
]

UNCORROBORATED_LEVEL = 1
CLAIM_MIN_SHARED = 3
CLAIM_SHARE = 3
"""A confirming citation holds at least 1/``CLAIM_SHARE`` of the claim words."""


def claim_words_needed(claim: int) -> int:
    """How many of ``claim`` claim words a confirming citation must hold."""
    return min(claim, max(CLAIM_MIN_SHARED, math.ceil(claim / CLAIM_SHARE)))


def _grounding_ids(verdict: LineVerdict, snapshot: Mapping[str, str]) -> list[str]:
    line = verdict.line
    return [
        ident
        for ident in line.evidence_ids
        if ident in snapshot
        and len(shared_words(line.explanation, snapshot[ident])) >= GROUNDING_MIN_SHARED
    ]


def _trusted(ident: str, trusts: Mapping[str, Trust]) -> bool:
    return trusts.get(ident, Trust.AGENT).rank >= Trust.AGENT.rank


def _why_not(
    verdict: LineVerdict,
    grounding: list[str],
    snapshot: Mapping[str, str],
    trusts: Mapping[str, Trust],
) -> str | None:
    """Why the low-trust evidence of the line is not confirmed; None when it is (or has none)."""
    low = [i for i in grounding if not _trusted(i, trusts)]
    shown = ", ".join(f"{i} ({trusts.get(i, Trust.AGENT).value})" for i in low)
    confirming = [i for i in grounding if _trusted(i, trusts)]
    if not low:
        return None
    if not confirming:
        return f"every citation grounding it is a tool or external episode ({shown})"
    explained = grounding_words(verdict.line.explanation)
    claim = explained & frozenset().union(*(grounding_words(snapshot[i]) for i in low))
    needed = claim_words_needed(len(claim))
    held = {i: claim & grounding_words(snapshot[i]) for i in confirming}
    if any(len(words) >= needed for words in held.values()):
        return None
    best = max(confirming, key=lambda i: len(held[i]))
    return (
        f"its tool or external evidence ({shown}) is not confirmed by an episode about the "
        f"same thing: {best} shares only {len(held[best])} of the {len(claim)} words the "
        f"outside evidence claims ({', '.join(sorted(held[best]))}), and a confirming "
        f"citation needs {needed} of them ({', '.join(sorted(claim)[:8])})"
    )


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
    why = _why_not(verdict, grounding, snapshot, trusts) if grounding else None
    if why is None:
        return verdict
    finding = Finding(
        code=FindingCode.UNCORROBORATED,
        severity=Severity.DEMOTION,
        message=f"{line.name} {verdict.level}x -> {UNCORROBORATED_LEVEL}x: it did not climb "
        f"because {why}; cite an agent or operator episode that confirms it",
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
