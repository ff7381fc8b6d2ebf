"""Durable facts: carried forward verbatim, removed only by ``[drop-durable: <line>]``. Pure.

A fact is one bullet (``- ``, ``* `` or ``1. ``) in the durable section plus any indented
continuation lines under it. A fact of the previous continuity that the new text leaves out
is put back unchanged; to remove one, the new text names it in a drop marker.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from anneal_memory.document._datalabel import strip_data_labels
from anneal_memory.document._markers import DROP_DURABLE

__all__ = ["DurableMerge", "Fact", "merge_durable", "parse_facts", "strip_drop_markers"]

_BULLET = re.compile(r"^(?:[-*]|[0-9]+\.)\s+(?P<fact>\S.*)$")
_ONLY_MARKERS = re.compile(r"^\s*(?:[-*]\s+)?(?:\[drop-durable:[^\]]*\]\s*)+$")


@dataclass(frozen=True, slots=True, kw_only=True)
class Fact:
    """One durable fact: its lines and the key it is compared by."""

    lines: tuple[str, ...]

    @property
    def key(self) -> str:
        """The first line without its bullet and data labels, whitespace-normalised."""
        first = strip_data_labels(self.lines[0])
        match = _BULLET.match(first)
        head = match.group("fact") if match else first
        return " ".join(head.split())


@dataclass(frozen=True, slots=True, kw_only=True)
class DurableMerge:
    """The durable section after carry-forward."""

    lines: tuple[str, ...]
    reinserted: tuple[str, ...]
    dropped: tuple[str, ...]


def parse_facts(lines: Sequence[str]) -> list[Fact]:
    """Group the durable section's lines into facts."""
    facts: list[list[str]] = []
    for line in lines:
        if _BULLET.match(line):
            facts.append([line])
        elif facts and line[:1].isspace() and line.strip():
            facts[-1].append(line)
    return [Fact(lines=tuple(f)) for f in facts]


def _normal(text: str) -> str:
    text = strip_data_labels(text)
    match = _BULLET.match(text.strip())
    return " ".join((match.group("fact") if match else text).split())


def merge_durable(
    prior_lines: Sequence[str], new_lines: Sequence[str], drop_targets: Sequence[str]
) -> DurableMerge:
    """Put back prior facts the new section lacks, unless a drop marker names them."""
    drops = {_normal(t) for t in drop_targets}
    kept_new = [line for line in new_lines if not _ONLY_MARKERS.match(line) and line.strip() != ""]
    present = {fact.key for fact in parse_facts(kept_new)}
    out = [line for fact in parse_facts(kept_new) for line in fact.lines if fact.key not in drops]
    loose = [line for line in kept_new if not any(line in f.lines for f in parse_facts(kept_new))]
    reinserted: list[str] = []
    dropped: list[str] = []
    for fact in parse_facts(prior_lines):
        if fact.key in drops:
            dropped.append(fact.key)
        elif fact.key not in present:
            reinserted.append(fact.key)
            out.extend(fact.lines)
    body = [*loose, *out]
    return DurableMerge(
        lines=(*body, "") if body else ("",),
        reinserted=tuple(reinserted),
        dropped=tuple(dropped),
    )


def strip_drop_markers(lines: Sequence[str]) -> list[str]:
    """Remove lines that hold nothing but drop markers."""
    return [line for line in lines if not _ONLY_MARKERS.match(line)]


def has_drop_marker(text: str) -> bool:
    """True when ``text`` carries a ``[drop-durable: ...]`` marker."""
    return DROP_DURABLE.search(text) is not None
