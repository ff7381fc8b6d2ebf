"""Checking one probe against a continuity document: lexical, pure, never raising.

A pattern probe finds the pattern line of its name (case-folded): none is ``lost`` (or
``crystallized`` when a live crystal of that name exists), a level under ``min_level`` is
``weakened``, a pattern whose words changed since the last check (its evidence explanation,
or its line without level, date, marks and tags) is ``changed``, else ``held``. A fact
probe looks in its section (any section whose heading contains the given text, case-folded;
the whole document without one): a line that contains the fact (case and spacing folded) is
``held``, a line sharing at least half of the fact's words is ``changed``, none is ``lost``;
a named section that is not there is ``unchecked``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from anneal_memory.document._document import ContinuityDocument
from anneal_memory.document._markers import parse_pattern_line, strip_marks
from anneal_memory.probes._types import DriftStatus, Probe, ProbeCheck, ProbeKind

__all__ = ["check_probe", "normal"]

_WORD = re.compile(r"[^\W_]{3,}", re.UNICODE)
_RUNG = re.compile(r"\|\s*\d+x\s*(\(\d{4}-\d{2}-\d{2}\))?")
_TAGS = re.compile(r"\[[a-z-]+(:[^\]]*)?\]")


def normal(text: str) -> str:
    """Case- and spacing-folded text."""
    return " ".join(text.casefold().split())


def _pattern_key(line: str, explanation: str) -> str:
    """What a pattern says, without its level, date, marks, tags and cited ids."""
    if explanation:
        return normal(explanation)
    return normal(_TAGS.sub("", _RUNG.sub("", strip_marks(line))))


def _check_pattern(probe: Probe, lines: Iterable[str], crystals: frozenset[str]) -> ProbeCheck:
    identity = probe.target.casefold()
    for line in lines:
        parsed = parse_pattern_line(line.strip())
        if parsed is None or parsed.identity != identity:
            continue
        key = _pattern_key(parsed.raw, parsed.explanation)
        if parsed.level < (probe.min_level or 2):
            status = DriftStatus.WEAKENED
        elif probe.last_line is not None and key != probe.last_line:
            status = DriftStatus.CHANGED
        else:
            status = DriftStatus.HELD
        return ProbeCheck(probe_id=probe.id, status=status, line=key)
    if identity in crystals:
        return ProbeCheck(probe_id=probe.id, status=DriftStatus.CRYSTALLIZED)
    return ProbeCheck(probe_id=probe.id, status=DriftStatus.LOST)


def _check_fact(probe: Probe, lines: Sequence[str]) -> ProbeCheck:
    fact = normal(probe.target)
    words = set(_WORD.findall(fact))
    best, best_share = None, 0.0
    for line in lines:
        text = normal(line)
        if fact in text:
            return ProbeCheck(probe_id=probe.id, status=DriftStatus.HELD, line=text)
        if words:
            share = len(words & set(_WORD.findall(text))) / len(words)
            if share > best_share:
                best, best_share = text, share
    if best is not None and best_share >= 0.5:
        return ProbeCheck(probe_id=probe.id, status=DriftStatus.CHANGED, line=best)
    return ProbeCheck(probe_id=probe.id, status=DriftStatus.LOST)


def check_probe(
    probe: Probe, document: ContinuityDocument | None, crystals: frozenset[str]
) -> ProbeCheck:
    """``probe``'s status in ``document`` (None: no continuity); ``crystals`` are case-folded."""
    if document is None:
        return ProbeCheck(probe_id=probe.id, status=DriftStatus.UNCHECKED)
    sections = document.sections
    if probe.kind is ProbeKind.FACT and probe.section:
        wanted = probe.section.casefold()
        sections = tuple(s for s in sections if wanted in s.title.casefold())
        if not sections:
            return ProbeCheck(probe_id=probe.id, status=DriftStatus.UNCHECKED)
    lines = [line for s in sections for line in s.lines]
    if probe.kind is ProbeKind.PATTERN:
        return _check_pattern(probe, lines, crystals)
    return _check_fact(probe, lines)
