"""Drift probes on a store: add, list, retire, status, and the check every save runs.

Each change is one write transaction with one audited ``probe_changed`` entry (a fact's text
only as its salted hash). ``check_probes`` runs inside a save's transaction: it never raises
(a probe that cannot be checked is ``unchecked``) and records each live probe's status.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

from anneal_memory._clock import format_timestamp
from anneal_memory.document._document import parse
from anneal_memory.errors import InvalidProbeError, ProbeNotFoundError
from anneal_memory.probes._judge import check_probe
from anneal_memory.probes._types import DriftReport, DriftStatus, Probe, ProbeKind
from anneal_memory.store import SqlConnection, Store, Tx, validate_scope

__all__ = [
    "MAX_FACT_CHARS",
    "add_probe",
    "check_probes",
    "list_probes",
    "probe_status",
    "retire_probe",
    "validated_patterns",
]

MAX_FACT_CHARS = 500
_MAX_NAME = 200
_ID = re.compile(r"probe-0*([0-9]{1,9})")
_COLUMNS = (
    "num, kind, target, min_level, section, scope, note, created_at, retired_at, "
    "last_status, last_line, last_wrap_id"
)
_logger = logging.getLogger("anneal_memory")


def _probe(row: Sequence[Any]) -> Probe:
    (num, kind, target, min_level, section, scope, note, created, retired, status, line,
     wrap) = row  # fmt: skip
    return Probe(
        id=f"probe-{int(num):03d}",
        kind=ProbeKind(str(kind)),
        target=str(target),
        min_level=None if min_level is None else int(min_level),
        section=None if section is None else str(section),
        scope=str(scope),
        note=str(note),
        created_at=str(created),
        retired_at=None if retired is None else str(retired),
        last_status=None if status is None else DriftStatus(str(status)),
        last_line=None if line is None else str(line),
        last_wrap_id=None if wrap is None else int(wrap),
    )


def _text(value: object, name: str, limit: int) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > limit:
        raise InvalidProbeError(f"{name} must be 1-{limit} characters of text, got {value!r:.60}")
    if any(ord(c) < 32 and c not in "\t" for c in value):
        raise InvalidProbeError(f"{name} must be one line of printable text")
    return " ".join(value.split())


def add_probe(
    store: Store,
    *,
    pattern: str | None = None,
    fact: str | None = None,
    min_level: int = 2,
    section: str | None = None,
    note: str = "",
    scope: str = "",
    actor: str = "operator",
) -> Probe:
    """Add a probe on a pattern (``pattern`` name, at ``min_level`` or above) or a fact.

    A fact is looked for in ``section`` (a heading, or part of one), else anywhere.

    Raises:
        InvalidProbeError: Neither or both of pattern and fact, a level under 2, or bad text.
    """
    if (pattern is None) == (fact is None):
        raise InvalidProbeError("give exactly one of pattern (a pattern name) or fact (a text)")
    if isinstance(min_level, bool) or not isinstance(min_level, int) or min_level < 2:
        raise InvalidProbeError(f"min_level must be an int of at least 2, got {min_level!r}")
    if pattern is not None and section is not None:
        raise InvalidProbeError("section applies to a fact probe only")
    kind = ProbeKind.PATTERN if pattern is not None else ProbeKind.FACT
    target = _text(pattern if pattern is not None else fact, kind.value,
                   _MAX_NAME if pattern is not None else MAX_FACT_CHARS)  # fmt: skip
    where = None if section is None else _text(section, "section", _MAX_NAME)
    kept_note = "" if not note else _text(note, "note", MAX_FACT_CHARS)
    validate_scope(scope, error=InvalidProbeError)
    with store.writing("probe add") as tx:
        num = tx.inserted_id(
            "INSERT INTO probes (kind, target, min_level, section, scope, note, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (kind.value, target, min_level if kind is ProbeKind.PATTERN else None, where,
             scope, kept_note, format_timestamp(store.clock.now())),
            "num",
        )  # fmt: skip
        probe = _fetch(tx.conn, num)
        data: dict[str, Any] = {"op": "add", "probe_id": probe.id, "kind": kind.value}
        if kind is ProbeKind.PATTERN:
            data |= {"name": target, "min_level": min_level}
        else:
            data["text"] = target
        tx.audit("probe_changed", actor=actor, data=data)
    return probe


def _fetch(conn: SqlConnection, num: int) -> Probe:
    row = conn.execute(f"SELECT {_COLUMNS} FROM probes WHERE num = ?", (num,)).fetchone()  # noqa: S608
    if row is None:
        raise ProbeNotFoundError(f"no probe probe-{num:03d}")
    return _probe(row)


def list_probes(store: Store, *, include_retired: bool = False) -> list[Probe]:
    """The live probes (and the retired ones with ``include_retired``), oldest first."""
    where = "" if include_retired else "WHERE retired_at IS NULL"
    with store.reading("probe list") as reader:
        rows = reader.conn.execute(
            f"SELECT {_COLUMNS} FROM probes {where} ORDER BY num"  # noqa: S608
        ).fetchall()
    return [_probe(r) for r in rows]


def retire_probe(store: Store, probe_id: str, *, actor: str = "operator") -> Probe:
    """Retire a live probe (kept, listed with ``include_retired``).

    Raises:
        InvalidProbeError: Not a probe id (``probe-001``).
        ProbeNotFoundError: No live probe has this id.
    """
    match = _ID.fullmatch(probe_id.strip()) if isinstance(probe_id, str) else None
    if match is None:
        raise InvalidProbeError(f"{probe_id!r} is not a probe id (for example probe-001)")
    num = int(match.group(1))
    with store.writing("probe retire") as tx:
        probe = _fetch(tx.conn, num)
        if probe.retired_at is not None:
            raise ProbeNotFoundError(f"probe {probe.id} is already retired")
        tx.conn.execute(
            "UPDATE probes SET retired_at = ? WHERE num = ?",
            (format_timestamp(store.clock.now()), num),
        )
        tx.audit("probe_changed", actor=actor, data={"op": "retire", "probe_id": probe.id})
        return _fetch(tx.conn, num)


def _live_crystals(conn: SqlConnection) -> frozenset[str]:
    rows = conn.execute("SELECT name FROM crystals WHERE retired_kind IS NULL").fetchall()
    return frozenset(str(r[0]).casefold() for r in rows)


def check_probes(tx: Tx, text: str | None, *, scope: str, wrap_id: int, now: str) -> DriftReport:
    """Check every live probe of ``scope`` against the saved ``text``; record each status.

    Runs inside the save's transaction. Never raises: a probe whose check fails is
    ``unchecked`` (logged), and a save is never refused for what a probe found.
    """
    conn = tx.conn
    try:
        rows = conn.execute(
            f"SELECT {_COLUMNS} FROM probes WHERE retired_at IS NULL AND scope = ?"  # noqa: S608
            " ORDER BY num",
            (scope,),
        ).fetchall()
        if not rows:
            return DriftReport()
        document = None if text is None else parse(text)
        crystals = _live_crystals(conn)
    except Exception as exc:  # a probe never blocks a save
        _logger.warning("anneal-memory: drift probes not checked: %s", exc)
        return DriftReport()
    checks = []
    for row in rows:
        probe = _probe(row)
        try:
            check = check_probe(probe, document, crystals)
        except Exception as exc:  # pragma: no cover - the judge is pure; belt and braces
            _logger.warning("anneal-memory: probe %s not checked: %s", probe.id, exc)
            check = check_probe(probe, None, crystals)
        checks.append(check)
        line = check.line if check.line is not None else probe.last_line
        conn.execute(
            "UPDATE probes SET last_status = ?, last_line = ?, last_wrap_id = ?,"
            " last_checked_at = ? WHERE num = ?",
            (check.status.value, line, wrap_id, now, int(probe.id.split("-")[1])),
        )
    return DriftReport(checks=tuple(checks))


def validated_patterns(store: Store, *, scope: str = "") -> tuple[int | None, list[str]]:
    """The newest completed wrap of ``scope`` and the patterns it validated (name order)."""
    with store.reading("probe status") as reader:
        conn = reader.conn
        row = conn.execute(
            "SELECT max(id) FROM wraps WHERE status = 'completed' AND scope = ?", (scope,)
        ).fetchone()
        wrap = None if row is None or row[0] is None else int(row[0])
        if wrap is None:
            return None, []
        names = conn.execute(
            "SELECT DISTINCT p.name FROM pattern_history h JOIN patterns p"
            " ON p.identity = h.identity AND p.scope = h.scope"
            " WHERE h.wrap_id = ? AND h.validated = 1 ORDER BY p.name",
            (wrap,),
        ).fetchall()
    return wrap, [str(n[0]) for n in names]


def probe_status(store: Store, *, scope: str = "") -> dict[str, Any]:
    """The operator's truth worklist: live probes and what the last wrap validated.

    The patterns the newest wrap validated are listed because a graduation is worth a human
    look too: the immune system checks citations, not truth.
    """
    probes = [p for p in list_probes(store) if p.scope == scope]
    wrap, validated = validated_patterns(store, scope=scope)
    counts = {s.value: 0 for s in DriftStatus}
    for p in probes:
        if p.last_status is not None:
            counts[p.last_status.value] += 1
    return {
        "probes": [p.to_dict() for p in probes],
        "counts": counts,
        "not_checked_yet": sum(p.last_status is None for p in probes),
        "last_wrap_id": wrap,
        "validated": validated,
    }
