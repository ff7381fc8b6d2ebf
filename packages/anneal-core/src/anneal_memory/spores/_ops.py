"""Spore operations on a store: add, get, list, surface, touch, update, descend, ascend, delete.

Each mutation is one write transaction and one ``spore_changed`` audit entry (text only as
a salted hash). Spore ids come from an AUTOINCREMENT sequence: never reused.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from typing import Any

from anneal_memory._clock import format_timestamp
from anneal_memory._fields import today as _today
from anneal_memory.errors import InvalidSporeError, SporeNotFoundError
from anneal_memory.spores import _rows
from anneal_memory.spores import _validate as v
from anneal_memory.spores._types import Germination, Spore, SporeTier, SporeType
from anneal_memory.store import SqlConnection, Store, Tx
from anneal_memory.store.provenance import parse_trust
from anneal_memory.types import Trust

__all__ = [
    "add_spore",
    "ascend_spore",
    "delete_spore",
    "descend_spore",
    "get_spore",
    "list_spores",
    "surface_spores",
    "touch_spore",
    "update_spore",
]


def _day(store: Store) -> _dt.date:
    return _today(store.clock.now())


def _require(conn: SqlConnection, num: int, operation: str, today: _dt.date) -> Spore:
    found = _rows.fetch(conn, num, today)
    if found is None:
        raise SporeNotFoundError(
            f"no spore {v.format_id(num)}; `anneal-memory spore list --status all` shows them",
            operation=operation,
        )
    return found


def _require_open(conn: SqlConnection, num: int, operation: str, today: _dt.date) -> Spore:
    found = _require(conn, num, operation, today)
    if found.status != "open":
        kind = found.resolution.kind if found.resolution is not None else "?"
        raise InvalidSporeError(
            f"spore {found.id} is already resolved ({kind}); a resolved spore is kept as it "
            "is: add a new one instead"
        )
    return found


def _audit(tx: Tx, actor: str, op: str, spore: Spore, **extra: Any) -> None:
    data: dict[str, Any] = {"op": op, "spore_id": spore.id, "type": spore.type.value, **extra}
    tx.audit("spore_changed", actor=actor, data=data)


def add_spore(
    store: Store,
    *,
    type: SporeType | str,
    text: str,
    domain: str = "",
    tier: SporeTier | str = SporeTier.WARM,
    salience: int = 0,
    next: str | None = None,
    pointer: str = "",
    actor: str = "agent",
    trust: Trust | str = Trust.AGENT,
) -> Spore:
    """Plant a spore (seen today) and return it with its new id.

    ``trust`` is the planter's: ``operator`` (at most the store's ceiling) is shown plainly
    in the start block, anything lower as data.

    Raises:
        InvalidSporeError: A field is invalid; nothing was written.
        TrustError: ``trust`` is unknown or above the store's ceiling; nothing was written.
    """
    planter = parse_trust(trust, ceiling=store.trust_ceiling)
    kind = v.parse_enum(SporeType, type, "type")
    level = v.parse_enum(SporeTier, tier, "tier")
    body, where = v.check_text_field(text), v.check_domain(domain)
    rank, due, link = v.check_salience(salience), v.check_next(next), v.check_pointer(pointer)
    day = _day(store)
    with store.writing("spore add") as tx:
        conn = tx.conn
        num = tx.inserted_id(
            "INSERT INTO spores (type, text, domain, tier, salience, seen, next, created,"
            " created_at, status, resolution, pointer, origin_key, revision, trust)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', NULL, ?, ?, 1, ?)",
            (kind.value, body, where, level.value, rank, day.isoformat(), due, day.isoformat(),
             format_timestamp(store.clock.now()), link, os.urandom(16).hex(), planter.value),
            "num",
        )  # fmt: skip
        spore = _require(conn, num, "spore add", day)
        extra = {} if planter is Trust.AGENT else {"trust": planter.value}
        _audit(tx, actor, "add", spore, tier=spore.tier.value, text=spore.text, **extra)
    return spore


def get_spore(store: Store, spore_id: str) -> Spore:
    """The spore with this id, open or resolved.

    Raises:
        InvalidSporeError: The id is not ``spore-NNN``.
        SporeNotFoundError: No spore has that id.
    """
    num = v.parse_id(spore_id)
    with store.reading("spore get") as reader:
        return _require(reader.conn, num, "spore get", _day(store))


def list_spores(
    store: Store,
    *,
    type: SporeType | str | None = None,
    tier: SporeTier | str | None = None,
    germination: Germination | str | None = None,
    domain: str | None = None,
    status: str = "open",
) -> list[Spore]:
    """Spores ranked: tier (hot first), salience (high first), germination, then age.

    ``status`` is ``open`` (default), ``resolved`` or ``all``.

    Raises:
        InvalidSporeError: A filter value is not valid.
    """
    kind = None if type is None else v.parse_enum(SporeType, type, "type")
    level = None if tier is None else v.parse_enum(SporeTier, tier, "tier")
    state = None if germination is None else v.parse_enum(Germination, germination, "germination")
    if status not in {"open", "resolved", "all"}:
        raise InvalidSporeError(f"status {status!r} is not valid; use one of: open, resolved, all")
    with store.reading("spore list") as reader:
        found = _rows.fetch_where(reader.conn, None if status == "all" else status, _day(store))
    chosen = [
        s
        for s in found
        if (kind is None or s.type is kind)
        and (level is None or s.tier is level)
        and (state is None or s.germination is state)
        and (domain is None or s.domain == domain)
    ]
    return sorted(
        chosen, key=lambda s: v.rank_key(s.tier, s.salience, s.germination, v.parse_id(s.id))
    )


def surface_spores(store: Store, *, top_of_mind: bool = False) -> list[Spore]:
    """Open spores, ranked; with ``top_of_mind`` only those hot or growing."""
    found = list_spores(store)
    if not top_of_mind:
        return found
    return [s for s in found if s.tier is SporeTier.HOT or s.germination is Germination.GROWING]


def touch_spore(store: Store, spore_id: str, *, actor: str = "agent") -> Spore:
    """Mark a spore seen today; a ``next`` day that has come is cleared.

    Raises:
        SporeNotFoundError: No spore has that id.
        InvalidSporeError: The id is malformed, or the spore is resolved.
    """
    num, day = v.parse_id(spore_id), _day(store)
    with store.writing("spore touch") as tx:
        conn = tx.conn
        _require_open(conn, num, "spore touch", day)
        conn.execute(
            "UPDATE spores SET seen = ?, next = CASE WHEN next <= ? THEN NULL ELSE next END,"
            " revision = revision + 1 WHERE num = ?",
            (day.isoformat(), day.isoformat(), num),
        )
        spore = _require(conn, num, "spore touch", day)
        _audit(tx, actor, "touch", spore)
    return spore


def _update_fields(
    *,
    tier: SporeTier | str | None,
    next: str | None,
    text: str | None,
    salience: int | None,
    domain: str | None,
    pointer: str | None,
) -> dict[str, object]:
    changes: dict[str, object] = {}
    if tier is not None:
        changes["tier"] = v.parse_enum(SporeTier, tier, "tier").value
    if next is not None:
        changes["next"] = v.check_next(next)
    if text is not None:
        changes["text"] = v.check_text_field(text)
    if salience is not None:
        changes["salience"] = v.check_salience(salience)
    if domain is not None:
        changes["domain"] = v.check_domain(domain)
    if pointer is not None:
        changes["pointer"] = v.check_pointer(pointer)
    return changes


def update_spore(
    store: Store,
    spore_id: str,
    *,
    tier: SporeTier | str | None = None,
    next: str | None = None,
    text: str | None = None,
    salience: int | None = None,
    domain: str | None = None,
    pointer: str | None = None,
    add_note: str | None = None,
    actor: str = "agent",
    trust: Trust | str = Trust.AGENT,
) -> Spore:
    """Change the fields passed; ``add_note`` appends a dated note.

    "" clears ``next``, ``domain`` and ``pointer``. ``seen`` is left alone. ``trust`` is the
    editor's: new text or a new pointer from someone less trusted than the planter makes the
    spore theirs (an agent's edit of an operator spore is shown as data from then on).

    Raises:
        SporeNotFoundError: No spore has that id.
        InvalidSporeError: A field is invalid, nothing was passed, or the spore is resolved.
        TrustError: ``trust`` is unknown or above the store's ceiling.
    """
    num = v.parse_id(spore_id)
    editor = parse_trust(trust, ceiling=store.trust_ceiling)
    changes = _update_fields(
        tier=tier, next=next, text=text, salience=salience, domain=domain, pointer=pointer
    )
    note = None if add_note is None else v.check_note(add_note)
    if not changes and note is None:
        raise InvalidSporeError("nothing to update: pass at least one field to change")
    day = _day(store)
    with store.writing("spore update") as tx:
        conn = tx.conn
        held = _require_open(conn, num, "spore update", day)
        if ({"text", "pointer"} & set(changes)) and editor.rank < held.trust.rank:
            changes["trust"] = editor.value
        sets = "".join(f"{column} = ?, " for column in changes)
        conn.execute(
            f"UPDATE spores SET {sets}revision = revision + 1 WHERE num = ?",  # noqa: S608
            (*changes.values(), num),
        )
        if note is not None:
            conn.execute(
                "INSERT INTO spore_notes (spore, position, day, text) SELECT ?,"
                " coalesce(max(position), -1) + 1, ?, ? FROM spore_notes WHERE spore = ?",
                (num, day.isoformat(), note, num),
            )
        spore = _require(conn, num, "spore update", day)
        extra: dict[str, Any] = {"fields": sorted([*changes, *(["note"] if note else [])])}
        if text is not None:
            extra["text"] = spore.text
        _audit(tx, actor, "update", spore, **extra)
    return spore


def _resolve(
    store: Store, spore_id: str, direction: str, kind: object, *, ref: str, actor: str
) -> Spore:
    num, day = v.parse_id(spore_id), _day(store)
    operation = f"spore {direction}"
    with store.writing(operation) as tx:
        conn = tx.conn
        spore = _require_open(conn, num, operation, day)
        if direction == "descend":
            chosen = v.check_descend_kind(kind, spore.type)
        else:
            chosen = v.check_ascend_kind(kind, spore.type)
        resolution = {
            "direction": direction,
            "kind": chosen,
            "ref": ref,
            "on": day.isoformat(),
            "at": format_timestamp(store.clock.now()),
        }
        conn.execute(
            "UPDATE spores SET status = 'resolved', resolution = ?, revision = revision + 1"
            " WHERE num = ?",
            (json.dumps(resolution, sort_keys=True), num),
        )
        spore = _require(conn, num, operation, day)
        _audit(tx, actor, direction, spore, kind=chosen)
    return spore


def descend_spore(store: Store, spore_id: str, kind: str, *, actor: str = "agent") -> Spore:
    """Let a spore go; the kind must fit its type.

    Kinds: task done/dropped/composted; question answered/mooted/composted; thought
    explored/dropped/composted.

    Raises:
        SporeNotFoundError: No spore has that id.
        InvalidSporeError: The kind does not fit the type (the message lists the valid
            kinds), or the spore is resolved already.
    """
    return _resolve(store, spore_id, "descend", kind, ref="", actor=actor)


def ascend_spore(
    store: Store, spore_id: str, kind: str, ref: str, *, actor: str = "agent"
) -> Spore:
    """Record what a spore became, and where (``ref``); only the pointer is recorded.

    Kinds: task project/thread; question episode/pattern; thought essay/pattern/project.

    Raises:
        SporeNotFoundError: No spore has that id.
        InvalidSporeError: The kind does not fit the type, ``ref`` is empty or too long, or
            the spore is resolved already.
    """
    return _resolve(store, spore_id, "ascend", kind, ref=v.check_ref(ref), actor=actor)


def delete_spore(store: Store, spore_id: str, *, actor: str = "operator") -> Spore:
    """Delete a spore and its notes; return what was deleted. Its id is never reused.

    Raises:
        SporeNotFoundError: No spore has that id.
    """
    num, day = v.parse_id(spore_id), _day(store)
    with store.writing("spore delete") as tx:
        conn = tx.conn
        spore = _require(conn, num, "spore delete", day)
        conn.execute("DELETE FROM spores WHERE num = ?", (num,))
        _audit(tx, actor, "delete", spore)
    return spore
