"""Crystal operations on a store: crystallize, get, list, touch, update, retire, index.

Each mutation is one write transaction and one ``crystal_changed`` audit entry (the
explanation and reasons only as salted hashes). Only an explicit call crystallizes.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Iterable, Sequence
from typing import Any

from anneal_memory._clock import format_timestamp
from anneal_memory._fields import check_text
from anneal_memory.crystal import _rows
from anneal_memory.crystal import _validate as v
from anneal_memory.crystal._read import day_of, require
from anneal_memory.crystal._types import (
    ActivationMode,
    Crystal,
    Permanence,
    RetirementKind,
)
from anneal_memory.errors import (
    InvalidCrystalError,
    RevisionConflictError,
)
from anneal_memory.store import SqlConnection, Store, Tx

__all__ = [
    "crystallize",
    "retire_crystal",
    "touch_crystal",
    "update_crystal",
]


def _require_live(
    conn: SqlConnection,
    name: str,
    operation: str,
    today: _dt.date,
    expect_revision: int | None = None,
) -> Crystal:
    found = require(conn, name, operation, today)
    if found.retirement is not None:
        raise InvalidCrystalError(
            f"crystal {name!r} was retired ({found.retirement.kind.value} on "
            f"{found.retirement.on}); a retired crystal is kept as it is: crystallize the "
            "pattern under a new name instead"
        )
    if expect_revision is not None and expect_revision != found.revision:
        raise RevisionConflictError(
            f"crystal {name!r} is at revision {found.revision}, not {expect_revision}: it "
            "changed since you read it; read it again and retry",
            current=found.revision,
            operation=operation,
        )
    return found


def _check_episodes(conn: SqlConnection, ids: Sequence[str]) -> None:
    if not ids:
        return
    marks = ",".join("?" * len(ids))
    live = {
        str(r[0])
        for r in conn.execute(f"SELECT id FROM episodes WHERE id IN ({marks})", tuple(ids))  # noqa: S608
    }
    missing = [i for i in ids if i not in live]
    if missing:
        raise InvalidCrystalError(
            f"evidence episode(s) {', '.join(missing)} do not exist (never recorded, or "
            "deleted); cite live episode ids"
        )


def _audit(tx: Tx, actor: str, data: dict[str, Any]) -> None:
    tx.audit("crystal_changed", actor=actor, data=data)


def crystallize(
    store: Store,
    name: str,
    *,
    level: int,
    explanation: str,
    evidence: Iterable[str] = (),
    permanence: Permanence | str = Permanence.TIMELESS,
    activation_mode: ActivationMode | str = ActivationMode.JUST_IN_TIME,
    tags: Iterable[str] = (),
    source: str = "",
    actor: str = "operator",
) -> Crystal:
    """Crystallize a Proven pattern (upsert by name) and return it.

    A new name is created; a live crystal of that name takes the new level, explanation,
    permanence, activation mode, tags and source, adds the new evidence to its own, and is
    re-heated (crystallized and activated today). Evidence must cite live episodes.

    Raises:
        InvalidCrystalError: A field is invalid (level under 2, unknown episode, ...), or the
            name belongs to a retired crystal. Nothing was written.
    """
    name, level = v.check_name(name), v.check_level(level)
    explanation, ids = v.check_explanation(explanation), v.check_evidence(evidence)
    perm, mode = v.parse_permanence(permanence), v.parse_activation_mode(activation_mode)
    tag_list, source = v.check_tags(tags), v.check_source(source)
    day = day_of(store)
    now = format_timestamp(store.clock.now())
    with store.writing("crystallize") as tx:
        conn = tx.conn
        _check_episodes(conn, ids)
        old = _rows.fetch(conn, name, day)
        if old is not None:
            _require_live(conn, name, "crystallize", day)
            ids = tuple(dict.fromkeys((*old.evidence, *ids)))
            if len(ids) > v.MAX_EVIDENCE:
                raise InvalidCrystalError(f"{len(ids)} evidence ids; the limit is {v.MAX_EVIDENCE}")
        conn.execute(
            "INSERT INTO crystals (name, level, explanation, permanence, activation_mode, tags,"
            " crystallized_on, last_activated_on, source, notes, revision, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '[]', 1, ?) ON CONFLICT(name) DO UPDATE SET"
            " level = excluded.level, explanation = excluded.explanation,"
            " permanence = excluded.permanence, activation_mode = excluded.activation_mode,"
            " tags = excluded.tags, crystallized_on = excluded.crystallized_on,"
            " last_activated_on = excluded.last_activated_on, source = excluded.source,"
            " revision = crystals.revision + 1, updated_at = excluded.updated_at",
            (name, level, explanation, perm.value, mode.value, json.dumps(list(tag_list)),
             day.isoformat(), day.isoformat(), source, now),
        )  # fmt: skip
        _rows.replace_evidence(conn, name, ids)
        crystal = require(conn, name, "crystallize", day)
        _audit(
            tx,
            actor,
            {"op": "crystallize", "name": name, "level": level, "revision": crystal.revision,
             "evidence": list(ids), "content": explanation, "new": old is None},
        )  # fmt: skip
    return crystal


def touch_crystal(store: Store, name: str, *, actor: str = "operator") -> Crystal:
    """Re-heat a crystal: it was activated today.

    Raises:
        CrystalNotFoundError: No crystal has that name.
        InvalidCrystalError: It is retired.
    """
    name = v.check_name(name)
    day = day_of(store)
    with store.writing("crystal touch") as tx:
        conn = tx.conn
        _require_live(conn, name, "crystal touch", day)
        conn.execute(
            "UPDATE crystals SET last_activated_on = ?, revision = revision + 1, updated_at = ?"
            " WHERE name = ?",
            (day.isoformat(), format_timestamp(store.clock.now()), name),
        )
        crystal = require(conn, name, "crystal touch", day)
        _audit(tx, actor, {"op": "touch", "name": name, "revision": crystal.revision})
    return crystal


def _changes(
    *,
    level: int | None,
    explanation: str | None,
    permanence: Permanence | str | None,
    activation_mode: ActivationMode | str | None,
    tags: Iterable[str] | None,
    source: str | None,
) -> dict[str, object]:
    changes: dict[str, object] = {}
    if level is not None:
        changes["level"] = v.check_level(level)
    if explanation is not None:
        changes["explanation"] = v.check_explanation(explanation)
    if permanence is not None:
        changes["permanence"] = v.parse_permanence(permanence).value
    if activation_mode is not None:
        changes["activation_mode"] = v.parse_activation_mode(activation_mode).value
    if tags is not None:
        changes["tags"] = json.dumps(list(v.check_tags(tags)))
    if source is not None:
        changes["source"] = v.check_source(source)
    return changes


def update_crystal(
    store: Store,
    name: str,
    *,
    expect_revision: int | None = None,
    level: int | None = None,
    explanation: str | None = None,
    evidence: Iterable[str] | None = None,
    permanence: Permanence | str | None = None,
    activation_mode: ActivationMode | str | None = None,
    tags: Iterable[str] | None = None,
    source: str | None = None,
    add_note: str | None = None,
    actor: str = "operator",
) -> Crystal:
    """Change the fields passed (``evidence`` and ``tags`` replace); ``add_note`` appends.

    With ``expect_revision`` the change is made only if the crystal is still at that
    revision (compare-and-set). Activation dates are left alone (see :func:`touch_crystal`).

    Raises:
        CrystalNotFoundError: No crystal has that name.
        RevisionConflictError: ``expect_revision`` is not the current revision.
        InvalidCrystalError: A field is invalid, nothing was passed, or it is retired.
    """
    name = v.check_name(name)
    changes = _changes(
        level=level,
        explanation=explanation,
        permanence=permanence,
        activation_mode=activation_mode,
        tags=tags,
        source=source,
    )
    ids = None if evidence is None else v.check_evidence(evidence)
    note = None if add_note is None else v.check_note(add_note)
    if not changes and ids is None and note is None:
        raise InvalidCrystalError("nothing to update: pass at least one field to change")
    day = day_of(store)
    with store.writing("crystal update") as tx:
        conn = tx.conn
        old = _require_live(conn, name, "crystal update", day, expect_revision)
        if note is not None:
            changes["notes"] = json.dumps([*old.notes, f"[{day.isoformat()}] {note}"])
        if ids is not None:
            _check_episodes(conn, ids)
            _rows.replace_evidence(conn, name, ids)
        sets = "".join(f"{column} = ?, " for column in changes)
        conn.execute(
            f"UPDATE crystals SET {sets}revision = revision + 1, updated_at = ? WHERE name = ?",  # noqa: S608
            (*changes.values(), format_timestamp(store.clock.now()), name),
        )
        crystal = require(conn, name, "crystal update", day)
        data: dict[str, Any] = {
            "op": "update",
            "name": name,
            "revision": crystal.revision,
            "fields": sorted([*changes, *(["evidence"] if ids is not None else [])]),
        }
        if explanation is not None:
            data["content"] = crystal.explanation
        _audit(tx, actor, data)
    return crystal


def retire_crystal(
    store: Store,
    name: str,
    kind: RetirementKind | str,
    *,
    reason: str = "",
    expect_revision: int | None = None,
    actor: str = "operator",
) -> Crystal:
    """Retire a crystal: it leaves recall and the index but is kept and listed.

    Raises:
        CrystalNotFoundError: No crystal has that name.
        InvalidCrystalError: ``kind`` is not falsified, superseded, merged or obsolete, the
            reason is too long, or it is already retired.
        RevisionConflictError: ``expect_revision`` is not the current revision.
    """
    name, why = v.check_name(name), v.parse_retirement_kind(kind)
    reason = check_text(
        reason, "reason", limit=v.MAX_NOTE_CHARS, error=InvalidCrystalError, allow_empty=True
    )
    day = day_of(store)
    with store.writing("crystal retire") as tx:
        conn = tx.conn
        _require_live(conn, name, "crystal retire", day, expect_revision)
        conn.execute(
            "UPDATE crystals SET retired_kind = ?, retired_reason = ?, retired_on = ?,"
            " retired_at = ?, revision = revision + 1, updated_at = ? WHERE name = ?",
            (why.value, reason, day.isoformat(), format_timestamp(store.clock.now()),
             format_timestamp(store.clock.now()), name),
        )  # fmt: skip
        crystal = require(conn, name, "crystal retire", day)
        _audit(
            tx,
            actor,
            {"op": "retire", "name": name, "kind": why.value, "revision": crystal.revision,
             "text": reason},
        )  # fmt: skip
    return crystal
