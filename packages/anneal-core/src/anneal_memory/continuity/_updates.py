"""The wrap's part in updated facts and provenance, as steps of the validated save.

- ``[supersedes: OLD by NEW]`` anywhere in the text links OLD to its replacement NEW. NEW
  must be an episode of this wrap and OLD one of the wrap's scope; the link obeys every rule
  of ``store.provenance`` (supersession).
  Accepted links are written in the save's transaction; rejected ones are reported as
  findings (never silently dropped). The markers are removed from the saved text.
- Superseded episodes (already, or by this text's markers) leave the citable snapshot.
- The uncorroborated rule (``immune._corroboration``) rewrites lines grounded only in tool
  or external episodes.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from anneal_memory.continuity import _judge
from anneal_memory.document._document import Section
from anneal_memory.errors import SupersessionError
from anneal_memory.immune._corroboration import judge_corroboration, superseded_citations
from anneal_memory.immune._report import Finding, FindingCode, Severity
from anneal_memory.store.provenance import VIA_WRAP, add_link, check_link

if TYPE_CHECKING:
    from anneal_memory.store import SqlConnection, Tx
    from anneal_memory.types import Trust

__all__ = [
    "SUPERSEDES_MARKER",
    "WrapLinks",
    "apply_corroboration",
    "begin_links",
    "judge_links",
    "parse_links",
    "stage_links",
    "strip_markers",
    "write_links",
]

SUPERSEDES_MARKER = re.compile(r"\[supersedes:(?P<body>[^\]\n]{0,200})\]")
_PAIR = re.compile(r"\s*(?P<old>[0-9A-Fa-f]{8})\s+by\s+(?P<new>[0-9A-Fa-f]{8})\s*")
_ONLY_MARKERS = re.compile(r"^\s*(?:[-*]\s+)?(?:\[supersedes:[^\]\n]*\]\s*)+$")


@dataclass(slots=True)
class WrapLinks:
    """The ``[supersedes:]`` markers of one save: accepted pairs and rejected ones with why."""

    accepted: list[tuple[str, str]] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)

    def findings(self) -> list[Finding]:
        """One finding per accepted link (info) and per rejected marker (warning)."""
        out = [
            Finding(
                code=FindingCode.SUPERSESSION_RECORDED,
                severity=Severity.INFO,
                message=f"recorded: {old} is superseded by {new}",
                episode_ids=(old, new),
            )
            for old, new in self.accepted
        ]
        out += [
            Finding(
                code=FindingCode.SUPERSESSION_REJECTED,
                severity=Severity.WARNING,
                message=f"[supersedes: {marker}] rejected: {why}",
            )
            for marker, why in self.rejected
        ]
        return out


def parse_links(text: str) -> tuple[list[tuple[str, str]], list[str]]:
    """The ``(old, new)`` pairs of the text's markers, and the bodies of malformed ones."""
    pairs: list[tuple[str, str]] = []
    malformed: list[str] = []
    for match in SUPERSEDES_MARKER.finditer(text):
        body = match.group("body")
        pair = _PAIR.fullmatch(body)
        if pair is None:
            malformed.append(" ".join(body.split()))
        elif (key := (pair["old"].lower(), pair["new"].lower())) not in pairs:
            pairs.append(key)
    return pairs, malformed


def strip_markers(draft: _judge.Draft) -> None:
    """Remove every ``[supersedes:]`` marker from the document (and lines left empty)."""
    sections = []
    for section in draft.document.sections:
        lines = [
            SUPERSEDES_MARKER.sub("", line).rstrip() if "[supersedes:" in line else line
            for line in section.lines
            if not _ONLY_MARKERS.match(line)
        ]
        sections.append(Section(title=section.title, lines=tuple(lines)))
    draft.document = dataclasses.replace(draft.document, sections=tuple(sections))


def _in_scope(conn: SqlConnection, ident: str, scope: str) -> bool:
    row = conn.execute("SELECT scope FROM episodes WHERE id = ?", (ident,)).fetchone()
    return row is None or str(row[0]) == scope  # a missing id is check_link's to report


def judge_links(
    conn: SqlConnection, text: str, snapshot: Mapping[str, str], scope: str = ""
) -> WrapLinks:
    """Sort the text's markers into accepted and rejected (reads only)."""
    pairs, malformed = parse_links(text)
    links = WrapLinks()
    for body in malformed:
        links.rejected.append((body, "write it as [supersedes: OLD by NEW] with two 8-hex ids"))
    for old, new in pairs:
        marker = f"{old} by {new}"
        if new not in snapshot:
            links.rejected.append((marker, f"{new} is not an episode of this wrap"))
            continue
        if not _in_scope(conn, old, scope):
            links.rejected.append((marker, f"{old} belongs to another scope than this wrap"))
            continue
        try:
            check_link(conn, old, new)
        except SupersessionError as exc:
            links.rejected.append((marker, str(exc)))
            continue
        links.accepted.append((old, new))
    return links


def write_links(conn: SqlConnection, links: WrapLinks, *, now: str) -> None:
    """Store the accepted links inside the save's transaction.

    A link that became invalid since it was judged (another process wrote meanwhile) moves
    to the rejected list instead of failing the save.
    """
    kept: list[tuple[str, str]] = []
    for old, new in links.accepted:
        try:
            add_link(conn, old, new, via=VIA_WRAP, now=now)
        except SupersessionError as exc:
            links.rejected.append((f"{old} by {new}", str(exc)))
            continue
        kept.append((old, new))
    links.accepted = kept


def apply_corroboration(
    draft: _judge.Draft,
    trusts: Mapping[str, Trust],
    snapshot: Mapping[str, str],
    superseded: Mapping[str, str],
) -> None:
    """Rewrite uncorroborated lines and warn about citations of superseded episodes.

    ``trusts`` are the effective trusts of the ``snapshot`` episodes (pure: no store read).
    """
    rewritten: dict[int, list[str]] = {}
    for k, (index, j, _line) in enumerate(_judge.pattern_lines(draft)):
        verdict = draft.verdicts[k]
        warning = superseded_citations(verdict, today=draft.today, superseded=superseded)
        if warning is not None:
            draft.findings.append(warning)
        judged = judge_corroboration(verdict, today=draft.today, snapshot=snapshot, trusts=trusts)
        if judged is verdict:
            continue
        draft.verdicts[k] = judged
        dropped = {id(f) for f in verdict.findings if f.code is FindingCode.GRADUATED}
        draft.findings[:] = [f for f in draft.findings if id(f) not in dropped]
        draft.findings.append(judged.findings[-1])
        lines = rewritten.setdefault(index, list(draft.document.sections[index].lines))
        lines[j] = judged.text
    for index, lines in rewritten.items():
        sections = list(draft.document.sections)
        sections[index] = Section(title=sections[index].title, lines=tuple(lines))
        draft.document = dataclasses.replace(draft.document, sections=tuple(sections))


def begin_links(
    conn: SqlConnection,
    draft: _judge.Draft,
    snapshot: Mapping[str, str],
    superseded_before: Mapping[str, str],
    scope: str = "",
) -> tuple[WrapLinks, dict[str, str], dict[str, str]]:
    """Judge the markers, strip them, and split the snapshot: (links, citable, superseded).

    ``superseded_before``: id -> replacement of the snapshot episodes already superseded
    (read with the snapshot).
    """
    links = judge_links(conn, draft.text, snapshot, scope)
    superseded = dict(superseded_before)
    superseded.update(dict(links.accepted))
    strip_markers(draft)
    citable = {i: t for i, t in snapshot.items() if i not in superseded}
    return links, citable, superseded


def stage_links(tx: Tx, links: WrapLinks, *, actor: str) -> None:
    """One ``supersede`` audit entry per link written, staged in the save's transaction."""
    for old, new in links.accepted:
        tx.audit("supersede", actor=actor, data={"old_id": old, "new_id": new, "via": VIA_WRAP})
