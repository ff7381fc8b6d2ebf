"""Level claims in the graduating section: every ``Nx`` is judged or refused. Pure: no I/O.

The next session's model reads the saved continuity as the truth, so a line that *looks*
like it ranks a pattern must either go through the immune system or not be saved. A line
of the graduating section is read in one of four ways:

- ``CANONICAL``: it already parses as a pattern line; it is judged as it is.
- ``REWRITTEN``: it carries a level claim in a decorated but unambiguous shape (a ``+``,
  ``•`` or numbered list marker, ``>`` quotes, a bold, italic or code-span name, an
  uppercase ``X`` or a multiplication sign, leading zeros, non-ASCII digits, hidden format
  characters, a fullwidth or box-drawing bar); it is rewritten as ``- name | Nx ...`` and
  judged.
- ``REFUSED``: it carries a level claim the parser cannot pin to a name (no bar between
  name and level, the claim after other text, a level of zero, more than
  :data:`MAX_LEVEL_DIGITS` digits), or two ``| Nx`` claims (a second pattern hidden in the
  rest of a line); the save is refused naming the line.
- ``NONE``: no level claim at all; the line is kept as it is.

A level claim is a run of digits (any Unicode decimal digit) followed by ``x``, ``X``, a
multiplication sign or a lookalike, not glued to other letters or digits (``0x1f`` and
``v2x`` are not claims), seen after format characters and combining marks are removed and
the text is NFKC-normalised.
"""

from __future__ import annotations

import enum
import functools
import re
import unicodedata
from dataclasses import dataclass

from anneal_memory.document._markers import MAX_LEVEL_DIGITS, parse_pattern_line

__all__ = [
    "CANONICAL_FORM",
    "ClaimKind",
    "ClaimReading",
    "has_level_claim",
    "normalise_claim_text",
    "read_claim",
]

CANONICAL_FORM = '- name | Nx (YYYY-MM-DD) [evidence: id1, id2 "explanation"]'

_X = "xX\u00d7\u0445\u0425\u2715\u2716\u2a2f"
_BAR = "|\u2502\u00a6\u2223\u01c0\u23d0"
_CLAIM = re.compile(rf"(?<![0-9A-Za-z])[0-9]+ ?[{_X}](?![0-9A-Za-z])")
_LOOSE = re.compile(
    r"^\s*(?:>\s*)*"
    r"(?:[-*+\u2022\u2023\u25e6\u25aa\u25cf\u00b7\u2013\u2014\u2212]\s*|\(?[0-9]{1,3}[.)]\s+"
    r"|!{1,3}\s*|\?\s*|\u2713\s*)?"
    r"(?P<open>\*\*|__|\*|_|`+|\"|')?"
    r"(?P<name>[A-Za-z][A-Za-z0-9_.-]*?)"
    r"(?(open)(?P=open))"
    rf"\s*[{_BAR}]\s*"
    rf"(?P<level>[0-9]+) ?[{_X}](?![0-9A-Za-z])"
)
_BAR_LEVEL = re.compile(rf"[{_BAR}]\s*[0-9]+ ?[{_X}](?![0-9A-Za-z])")
_DROPPED_CATEGORIES = frozenset({"Cf", "Mn", "Me"})


class ClaimKind(str, enum.Enum):
    """How a graduating-section line's level claim was read."""

    NONE = "none"
    CANONICAL = "canonical"
    REWRITTEN = "rewritten"
    REFUSED = "refused"


@dataclass(frozen=True, slots=True, kw_only=True)
class ClaimReading:
    """The reading of one line.

    Attributes:
        kind: See :class:`ClaimKind`.
        text: The line to judge and save (the canonical rewrite for ``REWRITTEN``, else the
            line as given).
        reason: For ``REFUSED``, why the claim cannot be read.
    """

    kind: ClaimKind
    text: str
    reason: str = ""


def _ascii_digit(char: str) -> str:
    value = unicodedata.decimal(char, None)
    return str(value) if value is not None else char


def normalise_claim_text(line: str) -> str:
    """The line as level claims are looked for in it.

    Format characters (zero-width spaces and joiners, bidi controls) and combining marks
    are removed, the text is NFKC-normalised (fullwidth digits and bars become ASCII), every
    Unicode decimal digit becomes its ASCII digit and tabs become spaces.
    """
    if line.isascii():
        return line.replace("\t", " ")
    kept = "".join(c for c in line if unicodedata.category(c) not in _DROPPED_CATEGORIES)
    folded = unicodedata.normalize("NFKC", kept)
    return "".join(_ascii_digit(c) if not c.isascii() else c for c in folded).replace("\t", " ")


def has_level_claim(line: str) -> bool:
    """True when ``line`` carries a level claim (``3x``, ``03X``, ``3 X``, ...) anywhere."""
    return _CLAIM.search(normalise_claim_text(line)) is not None


def _problem(text: str, match: re.Match[str] | None) -> str:
    if _second_claim(text):
        return "two level claims on one line; give each pattern its own line"
    if match is None:
        return "a level claim that does not follow a pattern name and a '|'"
    digits = match.group("level").lstrip("0")
    if not digits:
        return "levels start at 1x"
    if len(digits) > MAX_LEVEL_DIGITS:
        return f"a level of more than {MAX_LEVEL_DIGITS} digits"
    return ""


def _second_claim(text: str) -> bool:
    matches = _BAR_LEVEL.finditer(text)
    return next(matches, None) is not None and next(matches, None) is not None


def read_claim(line: str) -> ClaimReading:
    """Read one graduating-section line (see the module docstring)."""
    if len(line) <= _CACHE_LINE_CHARS:
        return _cached_read(line)
    return _read(line)


def _read(line: str) -> ClaimReading:
    text = normalise_claim_text(line)
    if not _second_claim(text) and parse_pattern_line(line) is not None:
        return ClaimReading(kind=ClaimKind.CANONICAL, text=line)
    if _CLAIM.search(text) is None:
        return ClaimReading(kind=ClaimKind.NONE, text=line)
    match = _LOOSE.match(text)
    problem = _problem(text, match)
    if problem or match is None:
        return ClaimReading(kind=ClaimKind.REFUSED, text=line, reason=problem)
    rest = text[match.end() :]
    if rest and not rest[0].isspace():
        rest = " " + rest
    canonical = f"- {match.group('name')} | {match.group('level').lstrip('0')}x{rest.rstrip()}"
    if parse_pattern_line(canonical) is None:  # pragma: no cover - the shapes above always parse
        return ClaimReading(kind=ClaimKind.REFUSED, text=line, reason="an unreadable level claim")
    return ClaimReading(kind=ClaimKind.REWRITTEN, text=canonical)


# A save reads the same lines again on its retry; readings are immutable, so short lines are
# memoised.
_CACHE_LINE_CHARS = 2000
_cached_read = functools.lru_cache(maxsize=2048)(_read)
