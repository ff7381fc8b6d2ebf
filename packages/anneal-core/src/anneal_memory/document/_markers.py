"""Pattern lines, citations and markers inside the continuity text. Pure: no I/O.

A pattern line (only in graduating sections)::

    - name | Nx (YYYY-MM-DD) [evidence: id1, id2 "explanation"]

The line needs an explicit signal before the name: a ``- `` or ``* `` bullet, indentation, or
a FlowScript marker (``!``, ``!!``, ``!!!``, ``?``, ``✓``). The level is 1-9 ASCII digits
without a leading zero followed by ``x`` (:data:`MAX_LEVEL_DIGITS` digits at most; a longer
level is refused at save, see ``_claims``).
"""

from __future__ import annotations

import enum
import functools
import re
from dataclasses import dataclass

__all__ = [
    "DROP_DURABLE",
    "MAX_LEVEL_DIGITS",
    "PatternLine",
    "StatusMark",
    "add_mark",
    "drop_durable_targets",
    "parse_pattern_line",
    "pattern_head_end",
    "set_level",
    "strip_evidence",
    "strip_marks",
]


class StatusMark(str, enum.Enum):
    """Marks the save writes onto a pattern line to say what the immune system did."""

    UNGROUNDED = "ungrounded"
    NEEDS_EVIDENCE = "needs-evidence"
    CROSS_SESSION_OVERLAP = "cross-session-overlap"
    CARRIED_FORWARD = "carried-forward"
    LEVEL_CAPPED = "level-capped"
    UNCORROBORATED = "uncorroborated"

    @property
    def text(self) -> str:
        """The mark as written on the line, e.g. ``(ungrounded)``."""
        return f"({self.value})"


MAX_LEVEL_DIGITS = 9

_PATTERN = re.compile(
    r"^(?P<prefix>\s*(?:[-*]\s+|!{1,3}\s*|\?\s*|\u2713\s*)|\s+)"
    r"(?P<name>[A-Za-z][A-Za-z0-9_.-]*)\s*\|\s*"
    rf"(?P<level>[1-9][0-9]{{0,{MAX_LEVEL_DIGITS - 1}}})x(?![0-9A-Za-z])"
    r"(?:\s*\((?P<date>[0-9]{4}-[0-9]{2}-[0-9]{2})\))?"
)
_EVIDENCE = re.compile(r"\[evidence:(?P<ids>[^\]\"]*)(?:\"(?P<expl>[^\"]*)\"\s*)?\]")
_CONTRADICTS = re.compile(r"\[contradicts:(?P<names>[^\]]*)\]")
_PROVENANCE = re.compile(r"\[provenance:(?P<ids>[^\]]*)\]")
_MARKS = re.compile(r"\((?:" + "|".join(m.value for m in StatusMark) + r")\)")
_ID_SPLIT = re.compile(r"[\s,]+")
DROP_DURABLE = re.compile(r"\[drop-durable:\s*(?P<line>[^\]]*?)\s*\]")
_MARK_TEXTS = tuple((mark, mark.text) for mark in StatusMark)
# Lines recur within a wrap (prepare parses the old file, the save re-reads unchanged lines);
# parsed lines are immutable, so short ones are memoised.
_CACHE_LINE_CHARS = 2000


@dataclass(frozen=True, slots=True, kw_only=True)
class PatternLine:
    """One parsed pattern line.

    Attributes:
        raw: The line as written.
        name: The pattern's name.
        level: The level claimed (``2`` for ``2x``).
        date: The ``(YYYY-MM-DD)`` date, if any.
        has_evidence: True when an ``[evidence: ...]`` tag is present.
        evidence_ids: The cited ids, lowercased, in order, without repeats.
        explanation: The quoted explanation inside the evidence tag ("" if none).
        contradicts: Names listed in ``[contradicts: ...]``.
        no_contradicts: True when ``[no-contradicts]`` is present.
        provenance_ids: Ids listed in ``[provenance: ...]``.
        marks: Status marks already on the line.
    """

    raw: str
    name: str
    level: int
    date: str | None
    has_evidence: bool
    evidence_ids: tuple[str, ...]
    explanation: str
    contradicts: tuple[str, ...]
    no_contradicts: bool
    provenance_ids: tuple[str, ...]
    marks: tuple[StatusMark, ...]

    @property
    def identity(self) -> str:
        """The key pattern history uses for this line: the name, case-folded."""
        return self.name.casefold()


def _split_ids(text: str) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for token in _ID_SPLIT.split(text.strip()):
        if token:
            seen.setdefault(token.lower(), None)
    return tuple(seen)


def _parse(line: str) -> PatternLine | None:
    match = _PATTERN.match(line)
    if match is None:
        return None
    evidence = _EVIDENCE.search(line, match.end())
    contradicts = _CONTRADICTS.search(line) if "[contradicts:" in line else None
    provenance = _PROVENANCE.search(line) if "[provenance:" in line else None
    return PatternLine(
        raw=line,
        name=match.group("name"),
        level=int(match.group("level")),
        date=match.group("date"),
        has_evidence=evidence is not None,
        evidence_ids=() if evidence is None else _split_ids(evidence.group("ids")),
        explanation="" if evidence is None else (evidence.group("expl") or "").strip(),
        contradicts=()
        if contradicts is None
        else tuple(n.strip() for n in contradicts.group("names").split(",") if n.strip()),
        no_contradicts="[no-contradicts]" in line,
        provenance_ids=() if provenance is None else _split_ids(provenance.group("ids")),
        marks=tuple(mark for mark, text in _MARK_TEXTS if text in line),
    )


_cached_parse = functools.lru_cache(maxsize=2048)(_parse)


def parse_pattern_line(line: str) -> PatternLine | None:
    """Parse ``line`` as a pattern line; None when it is not one."""
    if len(line) <= _CACHE_LINE_CHARS:
        return _cached_parse(line)
    return _parse(line)


def pattern_head_end(line: str) -> int | None:
    """Where a pattern line's ``name | Nx (date)`` head ends; None when it is no pattern line."""
    match = _PATTERN.match(line)
    return None if match is None else match.end()


def set_level(line: str, level: int) -> str:
    """Return ``line`` with its ``Nx`` level replaced by ``level``."""
    match = _PATTERN.match(line)
    if match is None:
        return line
    start, end = match.span("level")
    return f"{line[:start]}{level}{line[end:]}"


def _cut(line: str, match: re.Match[str]) -> str:
    # Patterns carry no leading ``\s*``: searched on hostile text that would backtrack
    # quadratically over long runs of spaces, so the space before the tag is trimmed here.
    left, right = line[: match.start()].rstrip(), line[match.end() :]
    return f"{left} {right.lstrip()}" if right.strip() else left


def strip_evidence(line: str) -> str:
    """Return ``line`` without its ``[evidence: ...]`` tag."""
    match = _EVIDENCE.search(line)
    return line if match is None else _cut(line, match)


def strip_marks(line: str) -> str:
    """Return ``line`` without any status marks the save wrote earlier."""
    match = _MARKS.search(line)
    while match is not None:
        line = _cut(line, match)
        match = _MARKS.search(line)
    return line.rstrip()


def add_mark(line: str, mark: StatusMark) -> str:
    """Append ``mark`` to ``line`` (once)."""
    if mark.text in line:
        return line
    return f"{line.rstrip()} {mark.text}"


def drop_durable_targets(text: str) -> tuple[str, ...]:
    """The fact lines named by ``[drop-durable: <line>]`` markers, whitespace-normalised."""
    return tuple(" ".join(m.group("line").split()) for m in DROP_DURABLE.finditer(text))
