"""An imported continuity's pattern levels, capped as a save would cap them.

A continuity that arrives by import never went through this store's immune system, and a
hand-edited ``9x`` in a 1.0.2 file would otherwise be served until the next wrap. Its
graduating sections are read by the save's level judge (``immune._levels``): decorated
claims are rewritten, claims no pattern owns refuse the import, and each pattern line is cut
to the level its history here allows (the levels the import carried, else 1x).
"""

from __future__ import annotations

from typing import Protocol

from anneal_memory.document._schema import SectionSchema
from anneal_memory.errors import ImportFormatError
from anneal_memory.immune._levels import cap_unsaved_levels
from anneal_memory.store._contract import SqlConnection
from anneal_memory.store.wraps._patterns import load_prior

__all__ = ["capped_levels"]


class _Count(Protocol):
    capped: int

    def note(self, reason: str) -> None: ...


def capped_levels(
    conn: SqlConnection, count: _Count, text: str, schema: SectionSchema, place: str
) -> str:
    """``text`` with its pattern levels capped (``count`` notes how many lines were cut).

    Raises:
        ImportFormatError: A level claim names no pattern; nothing is imported.
    """
    from anneal_memory.document import _document
    from anneal_memory.document._markers import parse_pattern_line

    lines = _document.parse(text)
    identities = {
        parsed.identity
        for section in lines.sections
        for line in section.lines
        if (parsed := parse_pattern_line(line)) is not None
    }
    judged = cap_unsaved_levels(text, schema, load_prior(conn, identities, None))
    if judged.refused:
        raise ImportFormatError(
            f"{place} claims a pattern level the immune system cannot judge: "
            f"{'; '.join(judged.refused[:5])}; write each pattern line as `- name | Nx ...` "
            "(or take the level out) and import again"
        )
    if judged.capped:
        count.capped += len(judged.capped)
        count.note(
            f"{len(judged.capped)} pattern level(s) capped at their saved level, as a save "
            "caps them (a pattern new here enters at 1x)"
        )
    return judged.text
