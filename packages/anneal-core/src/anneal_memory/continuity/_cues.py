"""Durable facts surfaced by their cues in recall. Pure parsing plus one continuity read.

A durable fact may end with a cue tail, ``- Allergic to penicillin — cues: allergy, medicine``
(an en dash, ``--`` or ``|`` before ``cues:`` work too). A recall whose query holds every word of
one of a fact's cues, as whole tokens, surfaces that fact beside the episodes: at most
:data:`MAX_CUED_FACTS` facts, in the order the section lists them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from anneal_memory.errors import BackendNotSupportedError
from anneal_memory.store.recall import tokenize

if TYPE_CHECKING:
    from anneal_memory.document._schema import SectionSchema
    from anneal_memory.store import Store

__all__ = ["MAX_CUED_FACTS", "CuedFact", "cued_facts", "match_facts", "parse_cued_facts"]

MAX_CUED_FACTS = 2
_BULLET = re.compile(r"^\s*(?:[-*]|[0-9]+\.)\s+")
_CUES = re.compile(r"\s+(?:\u2014|\u2013|--|\|)\s*cues:\s*(?P<cues>[^\n]*)$", re.IGNORECASE)
_MAX_CUES = 32


@dataclass(frozen=True, slots=True, kw_only=True)
class CuedFact:
    """One durable fact and the cues that surface it.

    Attributes:
        fact: The fact text, without its bullet and cue tail.
        cues: Each cue as its lower-cased word tokens.
    """

    fact: str
    cues: tuple[tuple[str, ...], ...]


def parse_cued_facts(lines: Sequence[str]) -> list[CuedFact]:
    """The facts of a durable section's lines that carry a cue tail."""
    from anneal_memory.document._durable import parse_facts  # with a continuity only (#25)

    out: list[CuedFact] = []
    for fact in parse_facts(lines):
        head = fact.lines[0]
        match = _CUES.search(head)
        if match is None:
            continue
        cues = tuple(
            words
            for cue in match.group("cues").split(",")[:_MAX_CUES]
            if (words := tuple(tokenize(cue)))
        )
        text = _BULLET.sub("", head[: match.start()]).strip()
        if cues and text:
            out.append(CuedFact(fact=text, cues=cues))
    return out


def match_facts(facts: Sequence[CuedFact], query: str, limit: int = MAX_CUED_FACTS) -> list[str]:
    """The facts (at most ``limit``) one of whose cues the query holds as whole tokens."""
    tokens = set(tokenize(query))
    found = [f.fact for f in facts if any(set(cue) <= tokens for cue in f.cues)]
    return found[:limit]


def _durable_lines(text: str, schema: SectionSchema) -> list[str]:
    from anneal_memory.document import _document  # with a continuity only (#25)
    from anneal_memory.document._schema import SectionRole

    document = _document.parse(_document.canonical_text(text))
    found, _problems = _document.match_sections(document, schema)
    lines: list[str] = []
    for spec in schema.with_role(SectionRole.DURABLE):
        section = _document.section_for(document, found, spec.heading)
        if section is not None:
            lines.extend(section.lines)
    return lines


def cued_facts(
    store: Store, query: str | None, limit: int = MAX_CUED_FACTS, *, scope: str = ""
) -> list[str]:
    """The durable facts of ``scope``'s continuity that ``query`` cues (see the module)."""
    if not query or not query.strip():
        return []
    try:
        text = store.load_continuity(scope)
    except BackendNotSupportedError:  # no continuity on this backend yet: nothing to cue
        return []
    if not text:
        return []
    from anneal_memory.continuity._settings import current_schema

    return match_facts(parse_cued_facts(_durable_lines(text, current_schema(store))), query, limit)
