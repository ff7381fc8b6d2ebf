"""Level claims of the graduating sections, read as a save reads them. Pure: no I/O.

``read_section_claims`` sorts a section's lines by ``document._claims``: decorated claims are
rewritten as ``- name | Nx``, claims no name owns are refused. The save uses it line by line
(``continuity._judge.check_level_claims``); ``cap_unsaved_levels`` uses it for a continuity
that never went through a save (an import) and then judges each pattern line as a save judges
a line with no evidence of its wrap: its level is cut to the pattern's saved level, a pattern
never saved enters at 1x, and each cut line is marked ``(level-capped)``. Nothing an import
brings can rank a pattern higher than its history here allows.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from anneal_memory.document import _document
from anneal_memory.document._claims import ClaimKind, read_claim
from anneal_memory.document._markers import parse_pattern_line
from anneal_memory.document._schema import SectionRole, SectionSchema
from anneal_memory.immune._graduation import GraduationContext, PriorPattern, judge_line
from anneal_memory.immune._report import Finding, FindingCode

__all__ = ["CappedText", "SectionClaims", "cap_unsaved_levels", "read_section_claims"]


@dataclass(frozen=True, slots=True, kw_only=True)
class SectionClaims:
    """One section's lines with their level claims read.

    Attributes:
        lines: The lines, decorated claims rewritten as ``- name | Nx ...``.
        rewritten: ``(raw, rewritten)`` for each rewritten line.
        refused: ``(line number from 1, raw, reason)`` for each claim no name owns.
    """

    lines: tuple[str, ...]
    rewritten: tuple[tuple[str, str], ...] = ()
    refused: tuple[tuple[int, str, str], ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class CappedText:
    """A continuity text after its level claims were judged.

    Attributes:
        text: The text to keep (the input itself when no line changed).
        capped: One ``level-capped`` finding per line whose level was cut.
        refused: ``"line N of '## Title' ('raw'): reason"`` for claims no name owns.
    """

    text: str
    capped: tuple[Finding, ...] = ()
    refused: tuple[str, ...] = ()


def read_section_claims(lines: Sequence[str]) -> SectionClaims:
    """Read every line's level claim (see the module docstring)."""
    out = list(lines)
    rewritten: list[tuple[str, str]] = []
    refused: list[tuple[int, str, str]] = []
    for j, raw in enumerate(lines):
        reading = read_claim(raw)
        if reading.kind is ClaimKind.REFUSED:
            refused.append((j + 1, raw, reading.reason))
        elif reading.kind is ClaimKind.REWRITTEN:
            out[j] = reading.text
            rewritten.append((raw, reading.text))
    return SectionClaims(lines=tuple(out), rewritten=tuple(rewritten), refused=tuple(refused))


def _judged(lines: tuple[str, ...], ctx: GraduationContext) -> tuple[list[str], list[Finding]]:
    out, capped = list(lines), list[Finding]()
    for j, raw in enumerate(lines):
        line = parse_pattern_line(raw)
        if line is None:
            continue
        verdict = judge_line(line, ctx)
        if verdict.level != line.level:
            out[j] = verdict.text
            capped.extend(f for f in verdict.findings if f.code is FindingCode.LEVEL_CAPPED)
    return out, capped


def cap_unsaved_levels(
    text: str, schema: SectionSchema, prior: Mapping[str, PriorPattern]
) -> CappedText:
    """Judge the level claims of a continuity that did not come through a save.

    ``prior`` is the saved history of the patterns (by identity) in the store taking it.
    """
    document = _document.parse(text)
    found, _problems = _document.match_sections(document, schema)
    ctx = GraduationContext(today="", snapshot={}, prior=prior)
    sections = list(document.sections)
    capped: list[Finding] = []
    refused: list[str] = []
    for spec in schema.with_role(SectionRole.GRADUATING):
        index = found.get(spec.heading)
        if index is None:
            continue
        section = sections[index]
        claims = read_section_claims(section.lines)
        refused += [
            f"line {n} of '## {section.title}' ({raw!r}): {why}" for n, raw, why in claims.refused
        ]
        lines, cut = _judged(claims.lines, ctx)
        capped += cut
        sections[index] = dataclasses.replace(section, lines=tuple(lines))
    if refused or sections == list(document.sections):
        return CappedText(text=text, capped=tuple(capped), refused=tuple(refused))
    kept = dataclasses.replace(document, sections=tuple(sections))
    return CappedText(text=_document.render(kept), capped=tuple(capped))
