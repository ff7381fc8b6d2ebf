"""The pure steps of the validated save: each takes the draft and refuses or rewrites it.

Every step either returns normally (possibly adding findings or rewriting the document) or
raises :class:`Refusal` with the finding that explains why the save cannot go ahead.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from anneal_memory.document import _document
from anneal_memory.document._claims import CANONICAL_FORM, has_level_claim
from anneal_memory.document._datalabel import label_chars
from anneal_memory.document._document import ContinuityDocument, Section
from anneal_memory.document._durable import merge_durable, strip_drop_markers
from anneal_memory.document._markers import PatternLine, drop_durable_targets, parse_pattern_line
from anneal_memory.document._schema import SectionRole, SectionSchema
from anneal_memory.immune._checks import (
    check_citation_reuse,
    check_contradictions,
    check_omitted_proven,
    check_zero_resolved,
)
from anneal_memory.immune._graduation import (
    GraduationContext,
    LineVerdict,
    PriorPattern,
    judge_line,
)
from anneal_memory.immune._levels import read_section_claims
from anneal_memory.immune._report import Finding, FindingCode, Severity
from anneal_memory.immune._reproduction import label_reproductions, sources_from

if TYPE_CHECKING:
    from anneal_memory.immune._outside import OutsideWords
    from anneal_memory.types import Trust

__all__ = [
    "SHRINK_FLOOR_CHARS",
    "Draft",
    "Refusal",
    "apply_graduation",
    "carry_durable",
    "check_document",
    "check_hard_max",
    "check_level_claims",
    "check_shrink",
    "check_structure",
    "check_text",
    "label_data_lines",
    "note_copies",
    "note_outside_words",
    "pattern_lines",
]

SHRINK_FLOOR_CHARS = 500
_LAYER_SHARE = {"narrative-timeless": 0.5, "graduating": 0.5, "whole": 0.25}


class Refusal(Exception):  # noqa: N818 - internal control flow, never escapes the save
    """A step refused the save."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.message)
        self.finding = finding


@dataclass(slots=True)
class Draft:
    """The text on its way through the save, and what was found so far."""

    text: str
    schema: SectionSchema
    today: str
    max_chars: int
    prior_text: str | None = None
    document: ContinuityDocument = field(
        default_factory=lambda: ContinuityDocument(preamble=(), sections=())
    )
    found: dict[str, int] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    verdicts: list[LineVerdict] = field(default_factory=list)
    prior: dict[str, PriorPattern] = field(default_factory=dict)


def _refuse(code: FindingCode, message: str) -> Refusal:
    return Refusal(Finding(code=code, severity=Severity.REFUSAL, message=message))


def check_text(draft: Draft) -> None:
    """Refuse what is not non-empty, encodable text; canonicalise line breaks and spaces."""
    if not isinstance(draft.text, str):
        raise _refuse(
            FindingCode.INVALID_TEXT,
            f"the continuity must be text, got {type(draft.text).__name__}",
        )
    try:
        draft.text.encode("utf-8")
    except UnicodeEncodeError:
        raise _refuse(
            FindingCode.INVALID_TEXT, "the continuity contains characters UTF-8 cannot encode"
        ) from None
    draft.text = _document.canonical_text(draft.text)
    if not draft.text.strip():
        raise _refuse(FindingCode.INVALID_TEXT, "the continuity is empty")


def check_structure(draft: Draft) -> None:
    """Parse the text and refuse it unless every required section is there exactly once."""
    draft.document = _document.parse(draft.text)
    draft.found, problems = _document.match_sections(draft.document, draft.schema)
    if problems:
        first = problems[0]
        detail = "; ".join(p.message for p in problems)
        raise _refuse(FindingCode(first.code), f"Refusing to save: {detail}")


def _replace_section(draft: Draft, index: int, lines: tuple[str, ...]) -> None:
    sections = list(draft.document.sections)
    sections[index] = Section(title=sections[index].title, lines=lines)
    draft.document = dataclasses.replace(draft.document, sections=tuple(sections))


def _prior_durable(draft: Draft) -> tuple[str, ...]:
    if draft.prior_text is None:
        return ()
    prior = _document.parse(draft.prior_text)
    found, _problems = _document.match_sections(prior, draft.schema)
    out: list[str] = []
    for spec in draft.schema.with_role(SectionRole.DURABLE):
        section = _document.section_for(prior, found, spec.heading)
        if section is not None:
            out.extend(section.lines)
    return tuple(out)


def _insert_section(draft: Draft, heading: str) -> int:
    order = [s.heading for s in draft.schema.sections]
    before = [h for h in order[: order.index(heading)] if h in draft.found]
    index = draft.found[before[-1]] + 1 if before else len(draft.document.sections)
    sections = list(draft.document.sections)
    sections.insert(index, Section(title=heading, lines=("",)))
    draft.document = dataclasses.replace(draft.document, sections=tuple(sections))
    draft.found = {h: (i + 1 if i >= index else i) for h, i in draft.found.items()}
    draft.found[heading] = index
    return index


def carry_durable(draft: Draft) -> None:
    """Put back durable facts the text left out, unless a drop marker names them."""
    specs = draft.schema.with_role(SectionRole.DURABLE)
    if not specs:
        return
    heading = specs[0].heading
    drops = drop_durable_targets(draft.text)
    prior = _prior_durable(draft)
    index = draft.found.get(heading)
    if index is None and not any(line.strip() for line in prior):
        return
    if index is None:
        index = _insert_section(draft, heading)
    merged = merge_durable(prior, draft.document.sections[index].lines, drops)
    _replace_section(draft, index, merged.lines)
    for i, section in enumerate(draft.document.sections):
        if i != index:
            _replace_section(draft, i, tuple(strip_drop_markers(section.lines)))
    for key in merged.reinserted:
        draft.findings.append(
            Finding(
                code=FindingCode.DURABLE_REINSERTED,
                severity=Severity.WARNING,
                message=f"durable fact put back (left out without a drop marker): {key}",
            )
        )
    for key in merged.dropped:
        draft.findings.append(
            Finding(
                code=FindingCode.DURABLE_DROPPED,
                severity=Severity.INFO,
                message=f"durable fact removed by [drop-durable: ...]: {key}",
            )
        )


def _role_chars(
    document: ContinuityDocument, schema: SectionSchema, roles: set[SectionRole]
) -> int:
    found, _problems = _document.match_sections(document, schema)
    wanted = {found[s.heading] for s in schema.sections if s.role in roles and s.heading in found}
    return sum(s.chars for i, s in enumerate(document.sections) if i in wanted)


def _whole_chars(document: ContinuityDocument, schema: SectionSchema) -> int:
    text = _document.render(document)
    return len(text) - _role_chars(document, schema, {SectionRole.GRADUATING})


def _layer_chars(document: ContinuityDocument, schema: SectionSchema, layer: str) -> int:
    if layer == "whole":
        return _whole_chars(document, schema)
    return _role_chars(document, schema, {SectionRole(layer)})


def check_shrink(draft: Draft, *, allow_shrink: bool) -> None:
    """Refuse a save that guts an identity-layer schema's protected sections."""
    if allow_shrink is True or draft.prior_text is None:
        return
    if not draft.schema.with_role(SectionRole.NARRATIVE_TIMELESS):
        return
    prior = _document.parse(draft.prior_text)
    broken: list[str] = []
    for layer in _LAYER_SHARE:
        before = _layer_chars(prior, draft.schema, layer)
        after = _layer_chars(draft.document, draft.schema, layer)
        share = _LAYER_SHARE[layer]
        if before >= SHRINK_FLOOR_CHARS and after < before * share:
            lost = round(100 * (before - after) / before)
            broken.append(
                f"{layer}: {before} -> {after} chars ({lost}% smaller; must retain >={share:.0%})"
            )
    if broken:
        raise _refuse(
            FindingCode.SHRINK_REFUSED,
            "Refusing to save: the new continuity collapses protected layers ("
            + "; ".join(broken)
            + "). Keep what is still true, or pass allow_shrink=True (--allow-shrink) if the "
            "cut is deliberate",
        )


_SHOWN_REFUSALS = 5
_SHOWN_LINE_CHARS = 80


def _shown(line: str) -> str:
    text = "".join(c if c.isprintable() else "?" for c in line.strip())
    return text if len(text) <= _SHOWN_LINE_CHARS else text[: _SHOWN_LINE_CHARS - 3] + "..."


def check_level_claims(draft: Draft) -> None:
    """Rewrite decorated pattern lines as ``- name | Nx``; refuse level claims no name owns.

    See ``document/_claims.py`` for which shapes are rewritten and which are refused.
    """
    refused: list[str] = []
    for spec in draft.schema.with_role(SectionRole.GRADUATING):
        index = draft.found.get(spec.heading)
        if index is None:
            continue
        section = draft.document.sections[index]
        if has_level_claim(section.title):
            refused.append(f"the heading '## {_shown(section.title)}': a level claim in a heading")
        claims = read_section_claims(section.lines)
        refused += [
            f"line {n} of '## {section.title}' ({_shown(raw)!r}): {why}"
            for n, raw, why in claims.refused
        ]
        draft.findings += [
            Finding(
                code=FindingCode.LEVEL_REWRITTEN,
                severity=Severity.WARNING,
                message=f"rewrote {_shown(raw)!r} as {_shown(text)!r} and "
                "judged it as a pattern line",
            )
            for raw, text in claims.rewritten
        ]
        if claims.lines != section.lines:
            _replace_section(draft, index, claims.lines)
    if refused:
        more = len(refused) - _SHOWN_REFUSALS
        listed = "; ".join(refused[:_SHOWN_REFUSALS]) + (f"; and {more} more" if more > 0 else "")
        raise _refuse(
            FindingCode.UNREADABLE_LEVEL,
            f"Refusing to save: {len(refused)} line(s) of the graduating section claim a level "
            f"the immune system cannot judge: {listed}. Write each pattern line as "
            f"`{CANONICAL_FORM}` (the level 1-9 ASCII digits, no leading zero), or take the "
            "level out of the line",
        )


def pattern_lines(draft: Draft) -> list[tuple[int, int, PatternLine]]:
    """(section index, line index, parsed line) for every graduating-section pattern line."""
    out: list[tuple[int, int, PatternLine]] = []
    for spec in draft.schema.with_role(SectionRole.GRADUATING):
        index = draft.found.get(spec.heading)
        if index is None:
            continue
        for j, raw in enumerate(draft.document.sections[index].lines):
            parsed = parse_pattern_line(raw)
            if parsed is not None:
                out.append((index, j, parsed))
    return out


def apply_graduation(draft: Draft, ctx: GraduationContext) -> None:
    """Judge every pattern line and rewrite it as the verdict says."""
    rewritten: dict[int, list[str]] = {}
    for index, j, line in pattern_lines(draft):
        verdict = judge_line(line, ctx)
        draft.verdicts.append(verdict)
        draft.findings.extend(verdict.findings)
        lines = rewritten.setdefault(index, list(draft.document.sections[index].lines))
        lines[j] = verdict.text
    for index, lines in rewritten.items():
        _replace_section(draft, index, tuple(lines))


def check_document(draft: Draft, prior: Mapping[str, PriorPattern], exists: frozenset[str]) -> None:
    """Checks across all lines: reuse, zero resolved, omissions, contradiction stances."""
    lines = [v.line for v in draft.verdicts]
    draft.findings.extend(check_citation_reuse(lines, draft.today))
    draft.findings.extend(check_zero_resolved(lines, draft.today, exists))
    draft.findings.extend(check_omitted_proven(lines, prior))
    draft.findings.extend(check_contradictions(draft.verdicts, prior, draft.today))


def check_hard_max(draft: Draft) -> None:
    """Refuse a text above the hard maximum; warn above target.

    The durable section and the save's own data labels are not counted.
    """
    text = _document.render(draft.document)
    durable = _role_chars(draft.document, draft.schema, {SectionRole.DURABLE})
    durable_at = {draft.found.get(s.heading) for s in draft.schema.with_role(SectionRole.DURABLE)}
    labels = label_chars("\n".join(draft.document.preamble)) + sum(
        label_chars(s.title) + label_chars(s.body)
        for i, s in enumerate(draft.document.sections)
        if i not in durable_at
    )
    size = len(text) - durable - labels
    bound = draft.schema.hard_max_chars(draft.max_chars)
    budget = draft.schema.durable_budget_chars(draft.max_chars)
    if durable > budget:
        draft.findings.append(
            Finding(
                code=FindingCode.DURABLE_OVER_BUDGET,
                severity=Severity.WARNING,
                message=f"the durable facts take {durable} chars, above their budget of {budget}",
            )
        )
    if size > bound:
        biggest = sorted(draft.document.sections, key=lambda s: s.chars, reverse=True)[:3]
        cut = ", ".join(f"'{s.title}' ({s.chars} chars)" for s in biggest)
        raise _refuse(
            FindingCode.OVER_HARD_MAX,
            f"Refusing to save: the continuity is {size} chars (the durable section excluded), "
            f"above the hard maximum of {bound} (target {draft.max_chars}; over by "
            f"{size - bound}). Compress the largest sections: {cut}",
        )
    if size > draft.max_chars:
        draft.findings.append(
            Finding(
                code=FindingCode.OVER_TARGET,
                severity=Severity.WARNING,
                message=f"the continuity is {size} chars, above its target of {draft.max_chars}",
            )
        )


def label_data_lines(
    draft: Draft, snapshot: Mapping[str, str], trusts: Mapping[str, Trust]
) -> None:
    """Label every line that reproduces a tool or outside episode (``immune._reproduction``)."""
    sources = sources_from(snapshot, trusts, draft.prior_text)
    draft.document, found = label_reproductions(draft.document, sources, frozenset(snapshot))
    draft.findings.extend(found)


def _copy_finding(ident: str, source: str | None, line: str) -> Finding:
    if source is None:
        message = (
            f"episode {ident} repeats a line of the continuity every session loads "
            f"({_shown(line)!r}): it is the memory quoted back, not new evidence"
        )
    else:
        message = (
            f"episode {ident} repeats episode {source}, which recall showed this session: it "
            "is that episode's evidence again, not new evidence"
        )
    return Finding(
        code=FindingCode.RECALLED_COPY,
        severity=Severity.INFO,
        message=message,
        episode_ids=(ident,) if source is None else (ident, source),
    )


def note_copies(
    draft: Draft, copies: Mapping[str, str], restated: Mapping[str, str] | None = None
) -> None:
    """A ``recalled-copy`` finding for each cited episode that is no new evidence.

    ``copies``: episode id -> the episode recall showed that it repeats; ``restated``:
    episode id -> the line of the continuity in place that it repeats (``_restated``).
    """
    restated = restated or {}
    cited: dict[str, None] = {}
    for _i, _j, line in pattern_lines(draft):
        cited.update((i, None) for i in line.evidence_ids if i in copies or i in restated)
    draft.findings += [_copy_finding(i, copies.get(i), restated.get(i, "")) for i in cited]


def note_outside_words(
    draft: Draft, derived: Mapping[str, OutsideWords], trusts: Mapping[str, Trust]
) -> None:
    """An ``outside-words`` finding for each cited agent episode judged at an outside trust."""
    cited: dict[str, None] = {}
    for _i, _j, line in pattern_lines(draft):
        cited.update((i, None) for i in line.evidence_ids if i in derived)
    for ident in cited:
        source, words = derived[ident]
        trust = trusts[source].value
        draft.findings.append(
            Finding(
                code=FindingCode.OUTSIDE_WORDS,
                severity=Severity.INFO,
                message=f"episode {ident} carries words {trust} episode {source} brought into "
                f"the memory this wrap ({', '.join(words[:6])}): its evidence counts at "
                f"{trust} trust",
                episode_ids=(ident, source),
            )
        )
