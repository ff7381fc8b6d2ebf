"""Continuity lines that reproduce a tool or outside episode: found, labelled as data. Pure.

The continuity is the model's own text, so a model that believes a fetched page can copy its
instruction into any section. The save compares every line of every section with the wrap's
``tool`` and ``external`` episodes (effective trust) and with the lines an earlier save
labelled (their text, kept under the label, so a label survives the model dropping it):

* the words of a line (letters and digits, case folded) form overlapping runs of
  :data:`SHINGLE_WORDS` words (shingles);
* the line **reproduces** a source when at least :data:`MIN_CONTAINMENT` of its shingles,
  and at least :data:`MIN_SHARED` of them, occur in that source, or when
  :data:`LONG_QUOTE` of them do (a quote of six words or more inside a longer line of the
  model's own);
* a line shorter than :data:`SHINGLE_WORDS` + 1 words is never judged (too short to tell a
  copy from a coincidence).

A pattern line whose cited episodes of the wrap are all ``tool``/``external`` ones is
labelled too: the immune system grounds its explanation in their words.

A reproducing line (or a heading the model copied) gets the label of the source sharing the
most shingles (``document._datalabel``) and a ``reproduced-data`` finding. Nothing is
demoted or removed: the label says what the line is wherever the continuity is loaded.
``bench/poison.py`` measures the rule on honest wraps (docs/trust.md).
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from anneal_memory.document._datalabel import (
    DataLabel,
    data_labels,
    label_line,
    strip_data_labels,
)
from anneal_memory.document._document import ContinuityDocument, Section
from anneal_memory.document._markers import parse_pattern_line
from anneal_memory.immune._report import Finding, FindingCode, Severity
from anneal_memory.types import Trust

__all__ = [
    "LONG_QUOTE",
    "MIN_CONTAINMENT",
    "MIN_SHARED",
    "SHINGLE_WORDS",
    "DataSource",
    "label_reproductions",
    "shingles",
    "sources_from",
]

SHINGLE_WORDS = 4
MIN_CONTAINMENT = 0.5
MIN_SHARED = 2
LONG_QUOTE = 3
_WORD = re.compile(r"[^\W_]+")
_SHOWN_CHARS = 60
_LOW = (Trust.TOOL, Trust.EXTERNAL)

Shingle = tuple[str, ...]


def shingles(text: str) -> frozenset[Shingle]:
    """The runs of :data:`SHINGLE_WORDS` consecutive words of ``text`` (case folded)."""
    words = _WORD.findall(text.casefold())
    n = SHINGLE_WORDS
    return frozenset(tuple(words[i : i + n]) for i in range(len(words) - n + 1))


@dataclass(frozen=True, slots=True)
class DataSource:
    """Text the continuity must not reproduce unlabelled, and the label it gets."""

    label: DataLabel
    shingles: frozenset[Shingle]
    from_episode: bool = True


def _prior_lines(prior_text: str | None) -> Iterable[str]:
    return (prior_text or "").split("\n")


def sources_from(
    snapshot: Mapping[str, str], trusts: Mapping[str, Trust], prior_text: str | None
) -> list[DataSource]:
    """The wrap's tool and outside episodes, then the lines the last save labelled."""
    out = [
        DataSource(DataLabel(trusts[i].value, i), shingles(text))
        for i, text in snapshot.items()
        if trusts.get(i) in _LOW
    ]
    for line in _prior_lines(prior_text):
        labels = data_labels(line)
        if labels:
            out.append(DataSource(labels[0], shingles(strip_data_labels(line)), False))
    return out


class _Index:
    """Which sources hold each shingle, to count shared shingles per line quickly."""

    def __init__(self, sources: list[DataSource]) -> None:
        self.sources = sources
        self.by_id = {s.label.episode_id: s for s in sources if s.from_episode}
        self.holders: dict[Shingle, list[int]] = {}
        for n, source in enumerate(sources):
            for shingle in source.shingles:
                self.holders.setdefault(shingle, []).append(n)

    def grounded_only_in_data(self, text: str, snapshot: frozenset[str]) -> DataSource | None:
        """A pattern line whose cited episodes of this wrap are all tool or outside ones."""
        if not self.by_id:  # no such episode in this wrap: no line can be grounded only in them
            return None
        parsed = parse_pattern_line(text)
        if parsed is None:
            return None
        cited = [i for i in parsed.evidence_ids if i in snapshot]
        if not cited or any(i not in self.by_id for i in cited):
            return None
        return self.by_id[cited[0]]

    def reproduced(self, text: str) -> DataSource | None:
        if not self.holders:  # nothing to reproduce (the common wrap: the agent's own notes)
            return None
        mine = shingles(text)
        if not mine:
            return None
        shared: Counter[int] = Counter()
        for shingle in mine:
            shared.update(self.holders.get(shingle, ()))
        if not shared:
            return None
        best, count = min(shared.items(), key=lambda kv: (-kv[1], kv[0]))
        if count >= LONG_QUOTE or (count >= MIN_SHARED and count >= MIN_CONTAINMENT * len(mine)):
            return self.sources[best]
        return None


def _shown(text: str) -> str:
    text = "".join(c if c.isprintable() else "?" for c in text.strip())
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 3] + "..."


def _judge_lines(
    index: _Index,
    title: str,
    lines: tuple[str, ...],
    findings: list[Finding],
    snapshot: frozenset[str],
) -> tuple[str, ...]:
    out: list[str] = []
    for number, line in enumerate(lines, 1):
        bare = strip_data_labels(line)
        source = index.reproduced(bare) if bare.strip() and not bare.startswith("#") else None
        source = source or index.grounded_only_in_data(bare, snapshot)
        if source is None:
            out.append(bare)
            continue
        out.append(label_line(bare, source.label))
        parsed = parse_pattern_line(bare)
        label = source.label
        findings.append(
            Finding(
                code=FindingCode.REPRODUCED_DATA,
                severity=Severity.WARNING,
                message=f"line {number} of {title} reproduces the text of {label.trust} "
                f"episode {label.episode_id}: labelled as data, not instructions",
                pattern=None if parsed is None else parsed.name,
                episode_ids=(label.episode_id,),
            )
        )
    return tuple(out)


def _judge_title(index: _Index, title: str, findings: list[Finding]) -> str:
    """A heading the model copied from a tool or outside episode is labelled too."""
    bare = strip_data_labels(title)
    source = index.reproduced(bare)
    if source is None:
        return bare
    label = source.label
    findings.append(
        Finding(
            code=FindingCode.REPRODUCED_DATA,
            severity=Severity.WARNING,
            message=f"the heading '## {_shown(bare)}' reproduces the text of {label.trust} "
            f"episode {label.episode_id}: labelled as data, not instructions",
            episode_ids=(label.episode_id,),
        )
    )
    return label_line(bare, label)


def label_reproductions(
    document: ContinuityDocument, sources: list[DataSource], snapshot: frozenset[str]
) -> tuple[ContinuityDocument, list[Finding]]:
    """``document`` with each reproducing line labelled (other labels removed); the findings.

    ``snapshot`` holds the ids of the wrap's episodes: a pattern line whose cited episodes
    among them are all tool or outside ones is labelled too (its explanation is their words).
    """
    index = _Index(sources)
    findings: list[Finding] = []
    preamble = _judge_lines(index, "the preamble", document.preamble, findings, snapshot)
    sections = tuple(
        Section(
            title=_judge_title(index, s.title, findings),
            lines=_judge_lines(index, f"'## {_shown(s.title)}'", s.lines, findings, snapshot),
        )
        for s in document.sections
    )
    return dataclasses.replace(document, preamble=preamble, sections=sections), findings
