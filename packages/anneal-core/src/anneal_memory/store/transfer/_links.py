"""Provenance in export and import: trust, state keys, sources and supersession links.

Runs in the caller's transaction; never commits.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from anneal_memory.errors import ImportFormatError, InvalidEpisodeError
from anneal_memory.store._contract import SqlConnection
from anneal_memory.store.provenance._checks import cap_trust, normalise_ids, normalise_state_key
from anneal_memory.store.provenance._supersession import refresh_slot, refresh_superseded
from anneal_memory.types import Trust

__all__ = [
    "TombstoneProvenance",
    "import_links",
    "import_provenance",
    "insert_link",
    "iter_link_chunks",
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


def import_provenance(
    conn: SqlConnection, ident: str, raw: Mapping[str, Any], *, ceiling: Trust
) -> tuple[str | None, bool]:
    """Store an imported episode's trust (at most ``ceiling``), state key and sources.

    Returns its state key and whether its trust was capped.

    Raises:
        ImportFormatError: A provenance field is malformed.
    """
    claimed, key, sources = parse_provenance(ident, raw)
    trust = cap_trust(claimed, ceiling)
    if trust is not Trust.AGENT or key is not None or sources:
        conn.execute(
            "UPDATE episodes SET trust = ?, state_key = ?, derived_from = ? WHERE id = ?",
            (trust.value, key, json.dumps(list(sources)) if sources else None, ident),
        )
    return key, trust is not claimed


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


def insert_link(conn: SqlConnection, raw: object) -> bool | None:
    """Insert one exported link as the source recorded it (no floor or trust check).

    Returns True when written, False when already here, None when either episode is not in
    this store. The old episode's ``superseded_by`` is refreshed.

    Raises:
        ImportFormatError: Not an ``{old_id, new_id, via}`` entry.
    """
    old, new = _link_ids(raw)
    assert isinstance(raw, Mapping)  # checked by _link_ids
    present = conn.execute(
        "SELECT count(*) FROM episodes WHERE id IN (?, ?)", (old, new)
    ).fetchone()[0]
    if present != 2:
        return None
    cursor = conn.execute(
        "INSERT INTO supersessions(old_id, new_id, via, created_at) VALUES (?, ?, ?, ?)"
        " ON CONFLICT DO NOTHING",
        (old, new, raw["via"], str(raw.get("created_at", ""))),
    )
    refresh_superseded(conn, old)
    return cursor.rowcount == 1


def import_links(conn: SqlConnection, links: object, keys: Sequence[str]) -> int:
    """Insert the export's links between episodes present here; refresh slots. Return count.

    Raises:
        ImportFormatError: ``supersessions`` is not a list of ``{old_id, new_id, via}``.
    """
    if not isinstance(links, list):
        raise ImportFormatError("export is malformed: 'supersessions' must be a list")
    added = sum(insert_link(conn, raw) is True for raw in links)
    for key in sorted(set(keys)):
        refresh_slot(conn, key)
    return added
