"""Kinds the store cannot hold yet: where each one will be written once it can.

Records of these kinds are held in the import's staging file while the source is read and
handed to their carrier here after the episodes are written, inside the import's write
transaction (so a carrier can look episodes up and add rows that reference them). A carrier
returns True when it wrote the record, False when the record was already here, and None when
the store has no place for it (then the import reports it as not carried, with the reason
below). Every carrier returns None today; each is the seam where its feature plugs in.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from typing import Any

from anneal_memory.store._import_records import (
    CrystalRecord,
    DerivedRecord,
    Kind,
    SporeRecord,
    StateKeyRecord,
    SupersessionRecord,
    TrustRecord,
)

__all__ = ["CARRIERS", "NOT_YET", "RECORD_TYPES"]


def carry_trust(conn: sqlite3.Connection, record: TrustRecord) -> bool | None:
    """Give ``record.episode_id`` its trust class (needs trust classes in the store)."""
    del conn, record
    return None


def carry_supersession(conn: sqlite3.Connection, record: SupersessionRecord) -> bool | None:
    """Link ``old_id`` -> ``new_id`` (needs supersession links in the store)."""
    del conn, record
    return None


def carry_state_key(conn: sqlite3.Connection, record: StateKeyRecord) -> bool | None:
    """Put ``episode_id`` in the slot ``key`` (needs state keys in the store)."""
    del conn, record
    return None


def carry_derived(conn: sqlite3.Connection, record: DerivedRecord) -> bool | None:
    """Record that ``episode_id`` was derived from ``source_id`` (needs trust classes)."""
    del conn, record
    return None


def carry_crystal(conn: sqlite3.Connection, record: CrystalRecord) -> bool | None:
    """Add a crystallized or retired pattern (needs the crystal tier in the store)."""
    del conn, record
    return None


def carry_spore(conn: sqlite3.Connection, record: SporeRecord) -> bool | None:
    """Add an open or resolved spore (needs spores in the store)."""
    del conn, record
    return None


Carrier = Callable[[sqlite3.Connection, Any], "bool | None"]

CARRIERS: Mapping[Kind, Carrier] = {
    Kind.TRUST: carry_trust,
    Kind.SUPERSESSIONS: carry_supersession,
    Kind.STATE_KEYS: carry_state_key,
    Kind.DERIVED_FROM: carry_derived,
    Kind.CRYSTALS: carry_crystal,
    Kind.SPORES: carry_spore,
}

RECORD_TYPES: Mapping[Kind, type[Any]] = {
    Kind.TRUST: TrustRecord,
    Kind.SUPERSESSIONS: SupersessionRecord,
    Kind.STATE_KEYS: StateKeyRecord,
    Kind.DERIVED_FROM: DerivedRecord,
    Kind.CRYSTALS: CrystalRecord,
    Kind.SPORES: SporeRecord,
}

NOT_YET: Mapping[Kind, str] = {
    Kind.TRUST: "not carried yet (needs trust classes in this store)",
    Kind.SUPERSESSIONS: "not carried yet (needs supersession links in this store)",
    Kind.STATE_KEYS: "not carried yet (needs state keys in this store)",
    Kind.DERIVED_FROM: "not carried yet (needs trust classes in this store)",
    Kind.CRYSTALS: "not carried yet (needs the crystal tier in this store)",
    Kind.SPORES: "not carried yet (needs spores in this store)",
}
