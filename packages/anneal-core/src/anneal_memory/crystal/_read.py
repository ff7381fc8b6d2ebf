"""Reading the crystal tier: get, list, the index, and which crystals cite an episode."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable

from anneal_memory._fields import today as _today
from anneal_memory.crystal import _rows
from anneal_memory.crystal import _validate as v
from anneal_memory.crystal._types import (
    ActivationMode,
    ActivationTier,
    Crystal,
    IndexLine,
    Permanence,
)
from anneal_memory.errors import CrystalNotFoundError, InvalidCrystalError
from anneal_memory.store import SqlConnection, Store
from anneal_memory.store.provenance import citing_crystals

__all__ = [
    "crystal_index",
    "crystals_citing",
    "day_of",
    "first_clause",
    "get_crystal",
    "list_crystals",
    "require",
]

_CLAUSE_CHARS = 88


def day_of(store: Store) -> _dt.date:
    """Today, by the store's clock (UTC)."""
    return _today(store.clock.now())


def require(conn: SqlConnection, name: str, operation: str, today: _dt.date) -> Crystal:
    """The crystal called ``name``.

    Raises:
        CrystalNotFoundError: No crystal has that name.
    """
    found = _rows.fetch(conn, name, today)
    if found is None:
        raise CrystalNotFoundError(
            f"no crystal named {name!r}; `anneal-memory crystal list --status all` shows every "
            "name",
            operation=operation,
        )
    return found


def get_crystal(store: Store, name: str) -> Crystal:
    """The crystal called ``name``, live or retired.

    Raises:
        CrystalNotFoundError: No crystal has that name.
    """
    name = v.check_name(name)
    with store.reading("crystal get") as reader:
        return require(reader.conn, name, "crystal get", day_of(store))


def list_crystals(
    store: Store,
    *,
    permanence: Permanence | str | None = None,
    activation_mode: ActivationMode | str | None = None,
    activation: ActivationTier | str | None = None,
    tag: str | None = None,
    status: str = "live",
) -> list[Crystal]:
    """Crystals sorted by name; ``status`` is ``live`` (default), ``retired`` or ``all``.

    Raises:
        InvalidCrystalError: A filter value is not valid.
    """
    perm = None if permanence is None else v.parse_permanence(permanence)
    mode = None if activation_mode is None else v.parse_activation_mode(activation_mode)
    tier = None if activation is None else v.check_enum(ActivationTier, activation, "activation")
    if status not in {"live", "retired", "all"}:
        raise InvalidCrystalError(f"status {status!r} is not valid; use one of: live, retired, all")
    with store.reading("crystal list") as reader:
        found = _rows.fetch_all(reader.conn, day_of(store))
    return [
        c
        for c in found
        if (status == "all" or (status == "live") == c.live)
        and (perm is None or c.permanence is perm)
        and (mode is None or c.activation_mode is mode)
        and (tier is None or c.activation is tier)
        and (tag is None or tag in c.tags)
    ]


def first_clause(explanation: str) -> str:
    """The explanation's first line, cut at a word boundary to at most 88 characters."""
    line = " ".join(explanation.strip().splitlines()[0].split()) if explanation.strip() else ""
    if len(line) <= _CLAUSE_CHARS:
        return line
    cut = line[: _CLAUSE_CHARS - 1].rsplit(" ", 1)[0]
    return cut + "\u2026"


def crystal_index(store: Store) -> list[IndexLine]:
    """One line per live crystal, ``name: first clause``, sorted by name."""
    return [
        IndexLine(name=c.name, clause=first_clause(c.explanation)) for c in list_crystals(store)
    ]


def crystals_citing(store: Store, episode_ids: Iterable[str]) -> tuple[str, ...]:
    """Names of the crystals (live or retired) whose evidence cites any of these episodes.

    Ask before deleting or pruning: those crystals lose evidence (it is then listed as
    deleted on the crystal, never silently dropped).
    """
    with store.reading("crystals citing") as reader:
        return citing_crystals(reader.conn, [str(i) for i in episode_ids])
