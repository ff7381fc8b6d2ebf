"""Carriers: where trust, links, state keys, sources, crystals and spores are written.

Records of these kinds are held in the import's staging file while the source is read and
handed to their carrier here after the episodes are written, inside the import's write
transaction (so a carrier can look episodes up and add rows that reference them). A carrier
returns True when it wrote the record, False when the record was already here, and the
reason (text) when it left the record out. ``fresh`` tells whether this import wrote an
episode: only a fresh episode takes the source's provenance; an episode that was already
here keeps its own (a re-run changes nothing).

Links, crystals and spores are written by the same functions as ``Store.import_json``
(``_transfer_links.insert_link``, ``_transfer_memory.import_crystal`` / ``import_spore``),
so both imports accept and write the same things.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Mapping
from typing import Any

from anneal_memory.errors import ImportFormatError, InvalidEpisodeError
from anneal_memory.store._contract import Dialect
from anneal_memory.store.provenance._checks import (
    MAX_DERIVED_FROM,
    episode_scope,
    normalise_state_key,
)
from anneal_memory.store.provenance._supersession import refresh_slot
from anneal_memory.store.transfer._links import KEY_NOT_CARRIED, insert_link, keep_key_if_trusted
from anneal_memory.store.transfer._memory import import_crystal, import_spore
from anneal_memory.store.transfer._records import (
    CrystalRecord,
    DerivedRecord,
    Kind,
    SporeRecord,
    StateKeyRecord,
    SupersessionRecord,
    TrustRecord,
    WorthRecord,
)
from anneal_memory.store.transfer._worth import import_exposure, import_probe, import_worth_total

__all__ = ["CARRIERS", "RECORD_TYPES", "Fresh"]

Fresh = Callable[[str], bool]

_ABSENT = "not carried: its episode is not in this store (it was not carried or is deleted)"
_KEPT = "not carried: the episode was already here with its own {what}, which it keeps"


def _episode(conn: sqlite3.Connection, ident: str) -> tuple[str, str | None, str | None] | None:
    row = conn.execute(
        "SELECT trust, state_key, derived_from FROM episodes WHERE id = ?", (ident,)
    ).fetchone()
    return None if row is None else (str(row[0]), row[1], row[2])


def carry_trust(
    conn: sqlite3.Connection, dialect: Dialect, record: TrustRecord, fresh: Fresh
) -> bool | str:
    """Give ``record.episode_id`` its trust class (already capped at the store's ceiling)."""
    here = _episode(conn, record.episode_id)
    if here is None:
        return _ABSENT
    if not fresh(record.episode_id):
        return False if here[0] == record.trust else _KEPT.format(what="trust class")
    if here[0] != record.trust:
        conn.execute(
            "UPDATE episodes SET trust = ? WHERE id = ?", (record.trust, record.episode_id)
        )
    return True


def carry_supersession(
    conn: sqlite3.Connection, dialect: Dialect, record: SupersessionRecord, fresh: Fresh
) -> bool | str:
    """Link ``old_id`` -> ``new_id`` as the source recorded it (``insert_link``'s checks)."""
    del fresh
    via = "wrap" if record.source == "wrap" else "explicit"
    raw = {"old_id": record.old_id, "new_id": record.new_id, "via": via}
    raw["created_at"] = record.recorded_at
    try:
        return insert_link(conn, raw)
    except ImportFormatError as exc:
        raise ImportFormatError(f"{record.place}: {exc}") from None


def carry_state_key(
    conn: sqlite3.Connection, dialect: Dialect, record: StateKeyRecord, fresh: Fresh
) -> bool | str:
    """Put ``episode_id`` in the slot ``key``; the slot's newest episode becomes current."""
    try:
        key = normalise_state_key(record.key)
    except InvalidEpisodeError as exc:
        raise ImportFormatError(f"{record.place}: {exc}") from None
    assert key is not None  # a record always names a key
    here = _episode(conn, record.episode_id)
    if here is None:
        return _ABSENT
    if here[1] == key:
        return False
    if here[1] is not None or not fresh(record.episode_id):
        return _KEPT.format(what="state key")
    conn.execute("UPDATE episodes SET state_key = ? WHERE id = ?", (key, record.episode_id))
    if not keep_key_if_trusted(conn, key, record.episode_id):
        return KEY_NOT_CARRIED
    refresh_slot(conn, key, episode_scope(conn, record.episode_id))
    return True


def carry_derived(
    conn: sqlite3.Connection, dialect: Dialect, record: DerivedRecord, fresh: Fresh
) -> bool | str:
    """Record that ``episode_id`` was derived from ``source_id`` (caps its effective trust)."""
    here = _episode(conn, record.episode_id)
    if here is None:
        return _ABSENT
    sources: list[str] = json.loads(here[2]) if here[2] else []
    if record.source_id in sources:
        return False
    if not fresh(record.episode_id):
        return _KEPT.format(what="derived_from")
    if len(sources) >= MAX_DERIVED_FROM:
        return f"not carried: an episode keeps at most {MAX_DERIVED_FROM} derived_from ids"
    conn.execute(
        "UPDATE episodes SET derived_from = ? WHERE id = ?",
        (json.dumps([*sources, record.source_id]), record.episode_id),
    )
    return True


def carry_crystal(
    conn: sqlite3.Connection, dialect: Dialect, record: CrystalRecord, fresh: Fresh
) -> bool | str:
    """Add a crystallized or retired pattern; a same-named, different one here is kept."""
    del fresh
    return import_crystal(conn, record.data, record.place)


def carry_spore(
    conn: sqlite3.Connection, dialect: Dialect, record: SporeRecord, fresh: Fresh
) -> bool | str:
    """Add an open or resolved spore (skipped when its ``origin_key`` is here)."""
    del fresh
    return import_spore(conn, dialect, record.data, record.place)


def carry_exposure(
    conn: sqlite3.Connection, dialect: Dialect, record: WorthRecord, fresh: Fresh
) -> bool | str:
    """Add an exposure and its outcome (skipped when its id is here)."""
    del dialect, fresh
    return import_exposure(conn, record.data, record.place)


def carry_worth_total(
    conn: sqlite3.Connection, dialect: Dialect, record: WorthRecord, fresh: Fresh
) -> bool | str:
    """Add a per-item total of pruned exposures (skipped when the item has one here)."""
    del dialect, fresh
    return import_worth_total(conn, record.data, record.place)


def carry_probe(
    conn: sqlite3.Connection, dialect: Dialect, record: WorthRecord, fresh: Fresh
) -> bool | str:
    """Add a drift probe (skipped when the same probe is here)."""
    del dialect, fresh
    return import_probe(conn, record.data, record.place)


Carrier = Callable[[sqlite3.Connection, Dialect, Any, Fresh], "bool | str"]

CARRIERS: Mapping[Kind, Carrier] = {
    Kind.TRUST: carry_trust,
    Kind.SUPERSESSIONS: carry_supersession,
    Kind.STATE_KEYS: carry_state_key,
    Kind.DERIVED_FROM: carry_derived,
    Kind.CRYSTALS: carry_crystal,
    Kind.SPORES: carry_spore,
    Kind.EXPOSURES: carry_exposure,
    Kind.WORTH_TOTALS: carry_worth_total,
    Kind.PROBES: carry_probe,
}

RECORD_TYPES: Mapping[Kind, type[Any]] = {
    Kind.TRUST: TrustRecord,
    Kind.SUPERSESSIONS: SupersessionRecord,
    Kind.STATE_KEYS: StateKeyRecord,
    Kind.DERIVED_FROM: DerivedRecord,
    Kind.CRYSTALS: CrystalRecord,
    Kind.SPORES: SporeRecord,
    Kind.EXPOSURES: WorthRecord,
    Kind.WORTH_TOTALS: WorthRecord,
    Kind.PROBES: WorthRecord,
}
