"""Export and import of the crystal and spore tables, as parts of the store's export.

Export adds two keys to the document: ``"crystals"`` (every crystal, retirement and notes
included, with its evidence ids) and ``"spores"`` (every spore, open and resolved, with its
dated notes and the trust of whoever planted it). Import adds what is missing: a crystal
whose name exists here is kept as it is (skipped); a spore whose ``origin_key`` exists here
is skipped, and a spore keeps its number when that number is free here. The tables' CHECK
constraints refuse bad enum values and levels; the whole import is then rolled back.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from anneal_memory.errors import ImportFormatError
from anneal_memory.store._contract import Dialect, SqlConnection
from anneal_memory.store.provenance._checks import cap_trust
from anneal_memory.types import Trust

__all__ = [
    "MemoryImported",
    "import_crystal",
    "import_memory",
    "import_spore",
    "iter_memory_chunks",
    "spore_trust",
]

_CRYSTAL_COLUMNS = (
    "name, level, explanation, permanence, activation_mode, tags, crystallized_on, "
    "last_activated_on, source, notes, revision, updated_at, retired_kind, retired_reason, "
    "retired_on, retired_at"
)
_SPORE_COLUMNS = (
    "num, type, text, domain, tier, salience, seen, next, created, created_at, status, "
    "resolution, pointer, origin_key, revision, trust"
)
_SPORE_ID = re.compile(r"spore-([0-9]{1,9})")
_CRYSTAL_CHECKS: Mapping[str, frozenset[object] | None] = {
    "permanence": frozenset(("timeless", "phase-specific")),
    "activation_mode": frozenset(("just-in-time", "catastrophic")),
    "retired_kind": frozenset((None, "falsified", "superseded", "merged", "obsolete")),
    "level": None,
}
_SPORE_CHECKS: Mapping[str, frozenset[object] | None] = {
    "type": frozenset(("task", "question", "thought")),
    "tier": frozenset(("hot", "warm", "cold", "parked")),
    "status": frozenset(("open", "resolved")),
    "salience": frozenset((0, 1, 2, 3)),
}
"""The tables' CHECK constraints, checked before the insert (the same on every backend)."""


def _dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _crystals(conn: SqlConnection, only: str | None = None) -> list[dict[str, Any]]:
    where, args = ("WHERE crystal = ?", (only,)) if only is not None else ("", ())
    evidence: dict[str, list[str]] = {}
    for name, ident in conn.execute(
        f"SELECT crystal, episode_id FROM crystal_evidence {where} ORDER BY crystal, position",  # noqa: S608
        args,
    ):
        evidence.setdefault(str(name), []).append(str(ident))
    out = []
    where = where.replace("crystal", "name")
    for row in conn.execute(
        f"SELECT {_CRYSTAL_COLUMNS} FROM crystals {where} ORDER BY name",  # noqa: S608
        args,
    ):
        item = dict(zip(_CRYSTAL_COLUMNS.split(", "), row, strict=True))
        item["tags"], item["notes"] = json.loads(item["tags"]), json.loads(item["notes"])
        item["evidence"] = evidence.get(str(item["name"]), [])
        out.append(item)
    return out


def _spores(conn: SqlConnection) -> list[dict[str, Any]]:
    notes: dict[int, list[dict[str, str]]] = {}
    for num, day, text in conn.execute(
        "SELECT spore, day, text FROM spore_notes ORDER BY spore, position"
    ):
        notes.setdefault(int(num), []).append({"on": str(day), "text": str(text)})
    out = []
    for row in conn.execute(f"SELECT {_SPORE_COLUMNS} FROM spores ORDER BY num"):  # noqa: S608
        item = dict(zip(_SPORE_COLUMNS.split(", "), row, strict=True))
        num = int(item.pop("num"))
        item["id"] = f"spore-{num:03d}"
        item["resolution"] = None if item["resolution"] is None else json.loads(item["resolution"])
        item["notes"] = notes.get(num, [])
        out.append(item)
    return out


def iter_memory_chunks(conn: SqlConnection) -> Iterator[str]:
    """Yield ``, "crystals": [...], "spores": [...]`` (inside the caller's read transaction)."""
    for key, items in (("crystals", _crystals(conn)), ("spores", _spores(conn))):
        yield f', "{key}": ['
        for index, item in enumerate(items):
            yield ("\n" if index == 0 else ",\n") + _dump(item)
        yield "\n]"


def _list(document: Mapping[str, Any], key: str) -> list[Any]:
    value = document.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
        raise ImportFormatError(f"export is malformed: {key!r} must be a list of objects")
    return value


def _field(item: Mapping[str, Any], key: str, kinds: type | tuple[type, ...], where: str) -> Any:
    value = item.get(key)
    if not isinstance(value, kinds) or isinstance(value, bool):
        raise ImportFormatError(f"{where} has an invalid {key!r}: {value!r}")
    return value


_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_RESOLUTION_KEYS = frozenset(("direction", "kind", "ref", "on", "at"))


def _day(item: Mapping[str, Any], key: str, where: str, *, optional: bool = False) -> None:
    value = item.get(key)
    if value is None and optional:
        return
    if isinstance(value, str) and _DAY.fullmatch(value):
        try:
            _dt.date.fromisoformat(value)
        except ValueError:
            pass
        else:
            return
    raise ImportFormatError(f"{where} has an invalid {key!r} (a YYYY-MM-DD day): {value!r}")


def _check_values(
    item: Mapping[str, Any], checks: Mapping[str, frozenset[object] | None], where: str
) -> None:
    """Refuse a value the table's CHECK constraint refuses (``None`` check: a level of 2+)."""
    for key, allowed in checks.items():
        value = item.get(key)
        if allowed is None:
            valid = isinstance(value, int) and not isinstance(value, bool) and value >= 2
        else:
            valid = not isinstance(value, bool) and value in allowed
        if not valid:
            raise ImportFormatError(f"{where} is invalid: {key} {value!r} is not allowed")


def _resolution(item: Mapping[str, Any], where: str) -> str | None:
    value = item.get("resolution")
    if value is None:
        return None
    if (
        not isinstance(value, Mapping)
        or set(value) != _RESOLUTION_KEYS
        or not all(isinstance(v, str) for v in value.values())
    ):
        raise ImportFormatError(
            f"{where} has an invalid 'resolution': expected {{direction, kind, ref, on, at}}"
        )
    return _dump(dict(value))


_SAME_CRYSTAL = ("level", "explanation", "permanence", "activation_mode", "tags", "retired_kind")


def _crystal_here(conn: SqlConnection, item: Mapping[str, Any], name: str) -> bool | str:
    """False when the same crystal is here; a reason when one of that name differs."""
    found = _crystals(conn, name)[0]
    same = all(found[k] == item.get(k) for k in _SAME_CRYSTAL)
    if same and found["evidence"] == [str(i) for i in item.get("evidence") or []]:
        return False
    return (
        "not carried: a crystal of the same name is already here with different content "
        "(this store's is kept; retire or rename one and import again)"
    )


def import_crystal(conn: SqlConnection, item: Mapping[str, Any], where: str) -> bool | str:
    """Insert one exported crystal (``where`` names it in errors).

    Returns True when written, False when the same crystal is here, and the reason it was
    left out when a crystal of that name is here with different content.

    Raises:
        ImportFormatError: The entry is malformed or breaks a table constraint.
    """
    name = _field(item, "name", str, where)
    if conn.execute("SELECT 1 FROM crystals WHERE name = ?", (name,)).fetchone():
        return _crystal_here(conn, item, name)
    values = [item.get(c) for c in _CRYSTAL_COLUMNS.split(", ")]
    values[5] = _dump(list(_field(item, "tags", list, where)))
    values[9] = _dump(list(_field(item, "notes", list, where)))
    for key in ("explanation", "updated_at"):
        _field(item, key, str, where)
    _day(item, "crystallized_on", where)
    _day(item, "last_activated_on", where)
    _field(item, "level", int, where)
    evidence = _field(item, "evidence", list, where)
    _check_values(item, _CRYSTAL_CHECKS, where)
    marks = ", ".join("?" * len(values))
    try:
        conn.execute(f"INSERT INTO crystals ({_CRYSTAL_COLUMNS}) VALUES ({marks})", values)  # noqa: S608
    except sqlite3.IntegrityError as exc:
        raise ImportFormatError(f"{where} is invalid: {exc}") from None
    conn.executemany(
        "INSERT INTO crystal_evidence(crystal, position, episode_id) VALUES (?, ?, ?)"
        " ON CONFLICT DO NOTHING",
        [(name, pos, str(ident)) for pos, ident in enumerate(evidence)],
    )
    return True


def spore_trust(item: Mapping[str, Any], where: str, ceiling: Trust) -> tuple[dict[str, Any], bool]:
    """The exported spore with its planter's trust capped at ``ceiling``; whether it was.

    A spore the export names no trust for (an older export) counts as the agent's.

    Raises:
        ImportFormatError: The trust is not a trust class.
    """
    try:
        claimed = Trust.parse(item.get("trust") or Trust.AGENT.value)
    except ValueError as exc:
        raise ImportFormatError(f"{where} has an invalid 'trust': {exc}") from None
    kept = cap_trust(claimed, ceiling)
    return {**item, "trust": kept.value}, kept is not claimed


def import_spore(
    conn: SqlConnection, dialect: Dialect, item: Mapping[str, Any], where: str
) -> bool:
    """Insert one exported spore; False when its ``origin_key`` is here already.

    Its trust is already capped by :func:`spore_trust`.

    Raises:
        ImportFormatError: The entry is malformed or breaks a table constraint.
    """
    key = _field(item, "origin_key", str, where)
    if conn.execute("SELECT 1 FROM spores WHERE origin_key = ?", (key,)).fetchone():
        return False
    found = _SPORE_ID.fullmatch(str(item.get("id", "")))
    if found is None:
        raise ImportFormatError(f"{where} has an invalid id {item.get('id')!r}")
    num: int | None = int(found.group(1))
    if conn.execute("SELECT 1 FROM spores WHERE num = ?", (num,)).fetchone():
        num = None  # taken here: the spore gets the next number
    for field in ("type", "text", "domain", "tier", "created_at", "status", "pointer"):
        _field(item, field, str, where)
    _field(item, "salience", int, where)
    _day(item, "created", where)
    _day(item, "seen", where, optional=True)
    _day(item, "next", where, optional=True)
    values = [num, *(item.get(c) for c in _SPORE_COLUMNS.split(", ")[1:])]
    values[11] = _resolution(item, where)
    notes = _field(item, "notes", list, where)
    if not all(isinstance(n, Mapping) for n in notes):
        raise ImportFormatError(f"{where} has an invalid 'notes': expected {{on, text}} objects")
    _check_values(item, _SPORE_CHECKS, where)
    columns = _SPORE_COLUMNS if num is not None else _SPORE_COLUMNS.removeprefix("num, ")
    values = values if num is not None else values[1:]
    marks = ", ".join("?" * len(values))
    insert = f"INSERT INTO spores ({columns}) VALUES ({marks})"  # noqa: S608
    try:
        spore = dialect.inserted_id(insert, values, "num")
    except sqlite3.IntegrityError as exc:
        raise ImportFormatError(f"{where} is invalid: {exc}") from None
    if num is not None:
        dialect.keep_identity_ahead("spores", "num")
    conn.executemany(
        "INSERT INTO spore_notes (spore, position, day, text) VALUES (?, ?, ?, ?)",
        [(spore, pos, str(n.get("on")), str(n.get("text"))) for pos, n in enumerate(notes)],
    )
    return True


@dataclass(frozen=True, slots=True, kw_only=True)
class MemoryImported:
    """How many crystals and spores an import added, and how many spores had trust capped."""

    crystals: int
    spores: int
    spores_capped: int


def import_memory(
    conn: SqlConnection, document: Mapping[str, Any], dialect: Dialect, ceiling: Trust
) -> MemoryImported:
    """Insert the export's crystals and spores that are missing here.

    A spore's trust is written at most ``ceiling``.

    Raises:
        ImportFormatError: An entry is malformed or breaks a table constraint (the caller
            rolls the whole import back).
    """
    crystals, spores = _list(document, "crystals"), _list(document, "spores")
    added_spores = capped = 0
    try:
        added_crystals = sum(
            import_crystal(conn, c, f"crystal #{i}") is True for i, c in enumerate(crystals)
        )
        for i, raw in enumerate(spores):
            item, lowered = spore_trust(raw, f"spore #{i}", ceiling)
            if import_spore(conn, dialect, item, f"spore #{i}"):
                added_spores += 1
                capped += lowered
    except sqlite3.IntegrityError as exc:
        raise ImportFormatError(f"a crystal or spore in the export is invalid: {exc}") from None
    return MemoryImported(crystals=added_crystals, spores=added_spores, spores_capped=capped)
