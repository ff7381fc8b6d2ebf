"""Find secrets (and, when asked, personal data) in text, and replace each with a marker.

A secret becomes ``[redacted:<kind>]``; the text around it stays. Where two rules match
overlapping text the more specific one (earlier in the rule order) wins, so a GitHub token
inside ``token=...`` is reported as ``github-token``. Redacting redacted text changes nothing.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass

from anneal_memory.redaction._personal import PERSONAL_RULES
from anneal_memory.redaction._rules import SECRET_RULES, Subject, pem_blocks

__all__ = [
    "PERSONAL_KINDS",
    "SECRET_KINDS",
    "Detection",
    "Redaction",
    "marker",
    "redact",
    "scan",
]

PRIVATE_KEY = "private-key"
SECRET_KINDS: tuple[str, ...] = tuple(dict.fromkeys((PRIVATE_KEY, *(r.kind for r in SECRET_RULES))))
"""Every kind of secret the rules know, in the order they are tried."""
PERSONAL_KINDS: tuple[str, ...] = tuple(rule.kind for rule in PERSONAL_RULES)
"""The personal-data kinds (``card-number``, ``email``, ``phone``), tried after secrets."""


@dataclass(frozen=True, slots=True)
class Detection:
    """One secret found: its kind and where it sits in the scanned text (``text[start:end]``)."""

    kind: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Redaction:
    """The text with every detection replaced by its marker, and what was replaced.

    Attributes:
        text: The redacted text (the input itself when nothing was found).
        detections: What was found, in text order, with positions in the input.
    """

    text: str
    detections: tuple[Detection, ...]

    @property
    def kinds(self) -> tuple[str, ...]:
        """The kinds found, each once, sorted."""
        return tuple(sorted({d.kind for d in self.detections}))


def marker(kind: str) -> str:
    """What replaces a secret of ``kind`` in the text: ``[redacted:<kind>]``."""
    return f"[redacted:{kind}]"


def _candidates(text: str, personal: bool) -> Iterator[Detection]:
    """Every rule's findings, most specific rule first."""
    subject = Subject.of(text)
    if "-----begin" in subject.folded:
        yield from (Detection(PRIVATE_KEY, s, e) for s, e in pem_blocks(text))
    for rule in (*SECRET_RULES, *PERSONAL_RULES) if personal else SECRET_RULES:
        if rule.applies(subject):
            yield from (Detection(rule.kind, s, e) for s, e in rule.spans(subject))


def scan(text: str, *, personal: bool = False) -> tuple[Detection, ...]:
    """The secrets in ``text``, in text order, none overlapping another.

    ``personal`` adds the personal-data rules (e-mail, phone, card numbers).
    """
    starts: list[int] = []
    kept: list[Detection] = []
    for found in _candidates(text, personal):
        at = bisect.bisect_right(starts, found.start)
        if at and kept[at - 1].end > found.start:
            continue
        if at < len(kept) and kept[at].start < found.end:
            continue
        starts.insert(at, found.start)
        kept.insert(at, found)
    return tuple(kept)


def redact(text: str, *, personal: bool = False) -> Redaction:
    """``text`` with each secret replaced by ``[redacted:<kind>]`` (see :func:`scan`)."""
    found = scan(text, personal=personal)
    if not found:
        return Redaction(text=text, detections=())
    parts: list[str] = []
    pos = 0
    for detection in found:
        parts += [text[pos : detection.start], marker(detection.kind)]
        pos = detection.end
    parts.append(text[pos:])
    return Redaction(text="".join(parts), detections=found)
