"""Parse the continuity markdown into sections and render it back. Pure: no I/O.

A document is the text before the first ``## `` heading (the preamble, usually the
``# <Agent> — Memory (v1)`` title) followed by sections, each one ``## `` heading line and
the lines under it. Only level-two headings split sections; ``###`` lines stay in the body.
``render(parse(text)) == canonical_text(text)``, so nothing is lost in a round trip.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

from anneal_memory.document._schema import SectionSchema, SectionSpec

__all__ = [
    "ContinuityDocument",
    "Section",
    "StructureProblem",
    "canonical_text",
    "match_sections",
    "parse",
    "render",
    "section_for",
]

_HEADING = re.compile(r"^## (?P<title>.*)$")
_LINE_BREAKS = re.compile(r"\r\n|\r")
# Separators Python's splitlines() would also break on are spaces inside a line, never
# structure: a line break hidden in one cannot open a ``## `` section.
_ODD_SPACES = re.compile(
    r"[\u00a0\u2000-\u200a\u202f\u205f\u3000\u2028\u2029\x85\x0b\x0c\x1c\x1d\x1e]"
)
# One wrap parses the same continuity text several times (prepare, then the save's
# durable carry-forward and shrink gate); documents are immutable, so texts up to this
# size are memoised.
_CACHE_TEXT_CHARS = 100_000


@dataclass(frozen=True, slots=True, kw_only=True)
class Section:
    """One ``## `` section: its heading text and the lines under it (without newlines)."""

    title: str
    lines: tuple[str, ...]

    @property
    def body(self) -> str:
        """The section's text under the heading."""
        return "\n".join(self.lines)

    @property
    def chars(self) -> int:
        """Size of the section, heading line included."""
        return len(self.title) + 4 + sum(len(line) + 1 for line in self.lines)


@dataclass(frozen=True, slots=True, kw_only=True)
class ContinuityDocument:
    """A parsed continuity file."""

    preamble: tuple[str, ...]
    sections: tuple[Section, ...]
    trailing_newline: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class StructureProblem:
    """Why a document does not fit its schema."""

    code: str
    message: str


def canonical_text(text: str) -> str:
    r"""Normalise CR and CRLF to a newline, and exotic spaces to plain spaces (NFC composed).

    U+2028, U+2029, NEL, VT, FF and the information separators U+001C-U+001E become
    spaces: only ``\n`` (after CR/CRLF folding) ends a line.
    """
    if text.isascii():
        # ASCII is already NFC; only CR and the unprintable separators can need work.
        if "\r" in text:
            text = _LINE_BREAKS.sub("\n", text)
        if not text.isprintable():
            text = _ODD_SPACES.sub(" ", text)
        return text
    text = unicodedata.normalize("NFC", text)
    text = _LINE_BREAKS.sub("\n", text)
    return _ODD_SPACES.sub(" ", text)


def parse(text: str) -> ContinuityDocument:
    """Split canonicalised ``text`` into preamble and ``## `` sections."""
    if len(text) <= _CACHE_TEXT_CHARS:
        return _cached_parse(text)
    return _parse(text)


def _parse(text: str) -> ContinuityDocument:
    text = canonical_text(text)
    trailing = text.endswith("\n")
    lines = text[:-1].split("\n") if trailing else text.split("\n")
    if text == "":
        lines = []
    preamble: list[str] = []
    sections: list[Section] = []
    title: str | None = None
    body: list[str] = []
    for line in lines:
        match = _HEADING.match(line) if line.startswith("## ") else None
        if match is None:
            (preamble if title is None else body).append(line)
            continue
        if title is not None:
            sections.append(Section(title=title, lines=tuple(body)))
        title, body = match.group("title"), []
    if title is not None:
        sections.append(Section(title=title, lines=tuple(body)))
    return ContinuityDocument(
        preamble=tuple(preamble), sections=tuple(sections), trailing_newline=trailing
    )


_cached_parse = functools.lru_cache(maxsize=16)(_parse)


def render(document: ContinuityDocument) -> str:
    """Render ``document`` back to markdown text."""
    lines = list(document.preamble)
    for section in document.sections:
        lines.append(f"## {section.title}")
        lines.extend(section.lines)
    text = "\n".join(lines)
    return text + "\n" if document.trailing_newline and lines else text


@functools.lru_cache(maxsize=256)
def _phrase_pattern(heading: str) -> re.Pattern[str]:
    words = r"\s+".join(re.escape(w) for w in heading.split())
    return re.compile(rf"(?<![A-Za-z0-9]){words}(?![A-Za-z0-9])", re.IGNORECASE)


def match_sections(
    document: ContinuityDocument, schema: SectionSchema
) -> tuple[dict[str, int], list[StructureProblem]]:
    """Map each schema heading to the index of the section that carries it.

    A ``## `` heading satisfies a schema heading when it contains it as a whole-word phrase,
    case-insensitively (``## State of mind`` counts as State, ``## Interstate`` does not).

    Returns:
        The mapping (schema heading -> section index) and the problems found: a required
        section missing, one heading matching two schema sections, or two headings
        matching one.
    """
    titles = tuple(section.title for section in document.sections)
    found, problems = _match_titles(titles, schema)
    return dict(found), list(problems)


@functools.lru_cache(maxsize=256)
def _match_titles(
    titles: tuple[str, ...], schema: SectionSchema
) -> tuple[tuple[tuple[str, int], ...], tuple[StructureProblem, ...]]:
    # The outcome depends only on the headings, which stay the same through one save's
    # rewrites of the section bodies; the caller gets fresh copies.
    patterns = [(spec, _phrase_pattern(spec.heading)) for spec in schema.sections]
    found: dict[str, int] = {}
    problems: list[StructureProblem] = []
    for index, title in enumerate(titles):
        hits = [spec for spec, pattern in patterns if pattern.search(title)]
        if len(hits) > 1:
            names = " and ".join(f"'{spec.heading}'" for spec in hits)
            problems.append(
                StructureProblem(
                    code="ambiguous-heading",
                    message=f"the heading '## {title}' matches {names}; "
                    "give each section its own heading",
                )
            )
            continue
        for spec in hits:
            if spec.heading in found:
                problems.append(_duplicate(spec, title))
            found[spec.heading] = index
    missing = [spec.heading for spec in schema.required if spec.heading not in found]
    if missing:
        wanted = ", ".join(f"## {spec.heading}" for spec in schema.required)
        problems.append(
            StructureProblem(
                code="missing-section",
                message=f"the continuity lacks {', '.join('## ' + m for m in missing)}; "
                f"it must contain all of: {wanted}",
            )
        )
    return tuple(found.items()), tuple(problems)


def _duplicate(spec: SectionSpec, title: str) -> StructureProblem:
    return StructureProblem(
        code="duplicate-section",
        message=f"the heading '## {title}' repeats the '{spec.heading}' section; merge them",
    )


def section_for(
    document: ContinuityDocument, found: dict[str, int], heading: str
) -> Section | None:
    """The section mapped to ``heading``, or None."""
    index = found.get(heading)
    return None if index is None else document.sections[index]
