"""Provenance in export and import: trust, state keys, sources and supersession links.

Runs in the caller's transaction; never commits.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from anneal_memory.errors import ImportFormatError, InvalidEpisodeError, TrustError
from anneal_memory.store._contract import SqlConnection
from anneal_memory.store._held import HELD_TRUST, held_kinds
from anneal_memory.store.provenance._checks import (
    cap_trust,
    effective_trusts,
    episode_scope,
    normalise_ids,
    normalise_state_key,
)
from anneal_memory.store.provenance._supersession import (
    check_slot,
    refresh_slot,
    refresh_superseded,
)
from anneal_memory.types import Trust

__all__ = [
    "KEY_NOT_CARRIED",
    "LINK_ABSENT",
    "ImportedProvenance",
    "TombstoneProvenance",
    "import_links",
    "import_provenance",
    "insert_link",
    "iter_link_chunks",
    "keep_key_if_trusted",
    "parse_provenance",
    "tombstone_provenance",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class TombstoneProvenance:
    """What a tombstone keeps of its episode: trust (None: unknown) and ``derived_from``."""

    trust: str | None
    derived_from: str | None
    capped: bool = False


def tombstone_provenance(raw: Mapping[str, Any], where: str, ceiling: Trust) -> TombstoneProvenance:
    """An exported tombstone's ``trust`` (capped at ``ceiling``) and ``derived_from``, checked.

    Raises:
        ImportFormatError: One of them is malformed.
    """
    try:
        claimed = None if raw.get("trust") is None else Trust.parse(raw["trust"])
        sources = normalise_ids(raw.get("derived_from") or None, "derived_from")
    except (ValueError, InvalidEpisodeError) as exc:
        raise ImportFormatError(f"{where} has invalid provenance: {exc}") from None
    trust = None if claimed is None else cap_trust(claimed, ceiling)
    return TombstoneProvenance(
        trust=None if trust is None else trust.value,
        derived_from=json.dumps(list(sources)) if sources else None,
        capped=trust is not claimed,
    )


def iter_link_chunks(conn: SqlConnection) -> Iterator[str]:
    """Yield the ``"supersessions": [...]`` member of the export document."""
    yield ', "supersessions": ['
    rows = conn.execute(
        "SELECT old_id, new_id, via, created_at FROM supersessions ORDER BY created_at, old_id"
    )
    for index, (old, new, via, created) in enumerate(rows):
        item = {"old_id": old, "new_id": new, "via": via, "created_at": created}
        yield ("\n" if index == 0 else ",\n") + json.dumps(item, sort_keys=True)
    yield "\n]"


def parse_provenance(
    ident: str, raw: Mapping[str, Any]
) -> tuple[Trust, str | None, tuple[str, ...]]:
    """An exported episode's trust, state key and sources, checked.

    Raises:
        ImportFormatError: A provenance field is malformed.
    """
    try:
        trust = Trust.parse(raw.get("trust", "agent"))
        key = normalise_state_key(raw.get("state_key"))
        sources = normalise_ids(raw.get("derived_from") or None, "derived_from")
    except (ValueError, InvalidEpisodeError) as exc:
        raise ImportFormatError(f"episode {ident} has invalid provenance: {exc}") from None
    return trust, key, sources


KEY_NOT_CARRIED = (
    "state key not carried: a less trusted episode never replaces a more trusted one in a "
    "slot (the episode is kept as history, without the key)"
)
LINK_LESS_TRUSTED = "not carried: a less trusted episode never replaces a more trusted one"
LINK_ACROSS_SCOPES = "not carried: its two episodes belong to different scopes"
LINK_ABSENT = "not carried: one of its two episodes is not in this store"


@dataclass(frozen=True, slots=True, kw_only=True)
class ImportedProvenance:
    """What ``import_provenance`` wrote for one episode.

    ``slot`` is the ``(key, scope)`` it took (None: none); ``capped``, whether its trust was
    lowered to the ceiling; ``key_refused``, whether its state key was left out; ``held``,
    whether its text, shaped like an instruction, was written as data (``store._held``).
    """

    slot: tuple[str, str] | None
    capped: bool
    key_refused: bool
    held: bool = False


def keep_key_if_trusted(conn: SqlConnection, key: str, ident: str) -> bool:
    """Leave ``ident`` in the slot ``key`` if the slot's trust rule allows, else take it out.

    Returns whether it stays (an import never lets a less trusted value replace a more
    trusted one: ``check_slot``).
    """
    try:
        check_slot(conn, key, ident)
    except TrustError:
        conn.execute("UPDATE episodes SET state_key = NULL WHERE id = ?", (ident,))
        return False
    return True


def import_provenance(
    conn: SqlConnection, ident: str, raw: Mapping[str, Any], *, ceiling: Trust, content: str
) -> ImportedProvenance:
    """Store an imported episode's trust (at most ``ceiling``), state key and sources.

    ``agent`` trust for a ``content`` shaped like an instruction is written as
    ``HELD_TRUST`` (data until an operator raises it), as ``Store.record`` does.

    Raises:
        ImportFormatError: A provenance field is malformed.
    """
    claimed, key, sources = parse_provenance(ident, raw)
    trust = cap_trust(claimed, ceiling)
    held = bool(held_kinds(content, trust))
    if held:
        trust = HELD_TRUST
    if trust is not Trust.AGENT or key is not None or sources:
        conn.execute(
            "UPDATE episodes SET trust = ?, state_key = ?, derived_from = ? WHERE id = ?",
            (trust.value, key, json.dumps(list(sources)) if sources else None, ident),
        )
    kept = key is not None and keep_key_if_trusted(conn, key, ident)
    return ImportedProvenance(
        slot=(key, episode_scope(conn, ident)) if kept and key is not None else None,
        capped=not held and trust is not claimed,
        key_refused=key is not None and not kept,
        held=held,
    )


def _link_ids(raw: object) -> tuple[str, str]:
    malformed = "a supersession entry is malformed: expected {old_id, new_id, via}"
    if not isinstance(raw, Mapping) or raw.get("via") not in {"explicit", "wrap"}:
        raise ImportFormatError(malformed)
    try:
        ids = normalise_ids([raw.get("old_id"), raw.get("new_id")], "supersession", limit=2)
    except InvalidEpisodeError as exc:
        raise ImportFormatError(f"{malformed}: {exc}") from None
    if len(ids) != 2:
        raise ImportFormatError(f"{malformed}: an episode cannot supersede itself")
    return ids[0], ids[1]


def _refusal(conn: SqlConnection, old: str, new: str) -> str | None:
    """Why a link between two episodes may not be imported here (None: it may)."""
    rows = dict(conn.execute("SELECT id, scope FROM episodes WHERE id IN (?, ?)", (old, new)))
    if len(rows) != 2:
        return LINK_ABSENT
    if rows[old] != rows[new]:
        return LINK_ACROSS_SCOPES
    trusts = effective_trusts(conn, (old, new))
    return LINK_LESS_TRUSTED if trusts[new].rank < trusts[old].rank else None


def insert_link(conn: SqlConnection, raw: object) -> bool | str:
    """Insert one exported link as the source recorded it (no floor, date or cycle check).

    Both episodes must be here, in one scope, and the new one at least as trusted as the old
    one (an import never lets a less trusted episode hide a more trusted one). Returns True
    when written, False when already here, the reason when not carried. The old episode's
    ``superseded_by`` is refreshed.

    Raises:
        ImportFormatError: Not an ``{old_id, new_id, via}`` entry.
    """
    old, new = _link_ids(raw)
    assert isinstance(raw, Mapping)  # checked by _link_ids
    refused = _refusal(conn, old, new)
    if refused is not None:
        return refused
    cursor = conn.execute(
        "INSERT INTO supersessions(old_id, new_id, via, created_at) VALUES (?, ?, ?, ?)"
        " ON CONFLICT DO NOTHING",
        (old, new, raw["via"], str(raw.get("created_at", ""))),
    )
    refresh_superseded(conn, old)
    return cursor.rowcount == 1


def import_links(
    conn: SqlConnection, links: object, slots: Sequence[tuple[str, str]]
) -> tuple[int, list[str]]:
    """Insert the export's links (see ``insert_link``); refresh the ``(key, scope)`` slots.

    Returns how many links were added and the reason of each one left out because of a
    rule here (links to episodes this store does not hold are only skipped).

    Raises:
        ImportFormatError: ``supersessions`` is not a list of ``{old_id, new_id, via}``.
    """
    if not isinstance(links, list):
        raise ImportFormatError("export is malformed: 'supersessions' must be a list")
    done = [insert_link(conn, raw) for raw in links]
    for key, scope in sorted(set(slots)):
        refresh_slot(conn, key, scope)
    refused = [r for r in done if isinstance(r, str) and r != LINK_ABSENT]
    return sum(r is True for r in done), refused
