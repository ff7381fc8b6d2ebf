"""Export and import of exposures, their outcomes, the pruned totals and probes (issue 28).

Export adds ``"exposures"`` (each with its merged ``outcome`` or null), ``"worth_totals"``
(the per-item counts the retention folded) and ``"probes"`` (drift probes, retired ones too).
Import adds what is missing: an exposure whose id is here already, a total for an item that
has one here, or a probe with the same kind, target, section and scope, is kept as it is
(skipped), so a re-run changes nothing; an imported probe gets the next free number.
Entries are checked before anything is written; a malformed one rolls the whole import back.
The worth and probes rooms own the meaning of these rows; this module only moves them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from anneal_memory.errors import ImportFormatError
from anneal_memory.store._contract import SqlConnection

__all__ = [
    "import_exposure",
    "import_probe",
    "import_worth",
    "import_worth_total",
    "iter_worth_chunks",
]

_ID = re.compile(r"x[0-9a-f]{12}")
_ITEM = re.compile(r"[epc]:[^\x00-\x1f]{1,200}")
_COUNT_NAME = re.compile(r"[a-z_]{1,40}")
_LABELS = frozenset(("followed", "ignored", "not_applicable"))
_RESULTS = frozenset((None, "success", "failure"))
_MAX_ITEMS = 64
_PROBE_COLUMNS = (
    "num, kind, target, min_level, section, scope, note, created_at, retired_at, "
    "last_status, last_line, last_wrap_id, last_checked_at"
)
_PROBE_STATUSES = frozenset(
    (None, "held", "changed", "weakened", "crystallized", "lost", "unchecked")
)
_MAX_TEXT = 2000


def _dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _exposures(conn: SqlConnection) -> Iterator[dict[str, Any]]:
    for row in conn.execute(
        "SELECT e.id, e.at, e.via, e.scope, e.session_id, e.items, o.result, o.labels,"
        " o.note, o.updated_at, o.revision FROM exposures e"
        " LEFT JOIN outcomes o ON o.exposure = e.id ORDER BY e.at, e.id"
    ).fetchall():
        ident, at, via, scope, session, items, result, labels, note, updated, revision = row
        outcome = None
        if revision is not None:
            outcome = {
                "result": result,
                "labels": json.loads(str(labels)),
                "note": note,
                "updated_at": updated,
                "revision": int(revision),
            }
        yield {
            "id": ident, "at": at, "via": via, "scope": scope, "session_id": session,
            "items": json.loads(str(items)), "outcome": outcome,
        }  # fmt: skip


def iter_worth_chunks(conn: SqlConnection) -> Iterator[str]:
    """Yield ``, "exposures": [...], "worth_totals": [...]`` (in the caller's read transaction)."""
    yield ', "exposures": ['
    for index, item in enumerate(_exposures(conn)):
        yield ("\n" if index == 0 else ",\n") + _dump(item)
    yield '\n], "worth_totals": ['
    rows = conn.execute("SELECT item, counts FROM worth_totals ORDER BY item").fetchall()
    for index, (item, counts) in enumerate(rows):
        yield ("\n" if index == 0 else ",\n") + _dump({"item": item, "counts": json.loads(counts)})
    yield '\n], "probes": ['
    rows = conn.execute(f"SELECT {_PROBE_COLUMNS} FROM probes ORDER BY num").fetchall()  # noqa: S608
    for index, row in enumerate(rows):
        item = dict(zip(_PROBE_COLUMNS.split(", "), row, strict=True))
        item["id"] = f"probe-{int(item.pop('num')):03d}"
        yield ("\n" if index == 0 else ",\n") + _dump(item)
    yield "\n]"


def _text(item: Mapping[str, Any], key: str, where: str, *, limit: int = 200) -> str:
    value = item.get(key)
    if not isinstance(value, str) or len(value) > limit:
        raise ImportFormatError(f"{where} has an invalid {key!r}: {value!r:.80}")
    return value


def _check_outcome(raw: object, items: list[str], where: str) -> dict[str, Any] | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise ImportFormatError(f"{where} has an invalid 'outcome': expected an object or null")
    labels = raw.get("labels")
    if (
        raw.get("result") not in _RESULTS
        or not isinstance(labels, Mapping)
        or any(k not in items or v not in _LABELS for k, v in labels.items())
    ):
        raise ImportFormatError(
            f"{where} has an invalid 'outcome': result success|failure|null, labels of "
            "shown items followed|ignored|not_applicable"
        )
    revision = raw.get("revision")
    if isinstance(revision, bool) or not isinstance(revision, int) or revision < 1:
        raise ImportFormatError(f"{where} has an invalid outcome 'revision': {revision!r}")
    return {
        "result": raw.get("result"),
        "labels": _dump(dict(sorted(labels.items()))),
        "note": _text(raw, "note", where, limit=_MAX_TEXT),
        "updated_at": _text(raw, "updated_at", where, limit=40),
        "revision": revision,
    }


def import_exposure(conn: SqlConnection, item: Mapping[str, Any], where: str) -> bool:
    """Insert one exported exposure (and its outcome); False when its id is here already.

    Raises:
        ImportFormatError: The entry is malformed.
    """
    ident = _text(item, "id", where, limit=13)
    if not _ID.fullmatch(ident):
        raise ImportFormatError(f"{where} has an invalid exposure 'id': {ident!r}")
    items = item.get("items")
    if (
        not isinstance(items, list)
        or not 0 < len(items) <= _MAX_ITEMS
        or not all(isinstance(i, str) and _ITEM.fullmatch(i) for i in items)
    ):
        raise ImportFormatError(f"{where} has invalid 'items': 1-{_MAX_ITEMS} KIND:REF keys")
    session = item.get("session_id")
    if session is not None and (not isinstance(session, str) or len(session) > 200):
        raise ImportFormatError(f"{where} has an invalid 'session_id'")
    outcome = _check_outcome(item.get("outcome"), items, where)
    values = (
        ident, _text(item, "at", where, limit=40), _text(item, "via", where, limit=64),
        _text(item, "scope", where), session, json.dumps(items, ensure_ascii=False),
    )  # fmt: skip
    if conn.execute("SELECT 1 FROM exposures WHERE id = ?", (ident,)).fetchone():
        return False
    conn.execute(
        "INSERT INTO exposures (id, at, via, scope, session_id, items) VALUES (?, ?, ?, ?, ?, ?)",
        values,
    )
    if outcome is not None:
        conn.execute(
            "INSERT INTO outcomes (exposure, result, labels, note, updated_at, revision)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (ident, outcome["result"], outcome["labels"], outcome["note"],
             outcome["updated_at"], outcome["revision"]),
        )  # fmt: skip
    return True


def import_worth_total(conn: SqlConnection, item: Mapping[str, Any], where: str) -> bool:
    """Insert one exported per-item total; False when the item has one here already.

    Raises:
        ImportFormatError: The entry is malformed.
    """
    key = _text(item, "item", where)
    counts = item.get("counts")
    if (
        not _ITEM.fullmatch(key)
        or not isinstance(counts, Mapping)
        or len(counts) > 32
        or not all(
            isinstance(k, str) and _COUNT_NAME.fullmatch(k)
            and isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**53
            for k, v in counts.items()
        )
    ):  # fmt: skip
        raise ImportFormatError(f"{where} is not an item key with counts of non-negative ints")
    if conn.execute("SELECT 1 FROM worth_totals WHERE item = ?", (key,)).fetchone():
        return False
    conn.execute(
        "INSERT INTO worth_totals (item, counts) VALUES (?, ?)",
        (key, json.dumps(dict(counts), separators=(",", ":"))),
    )
    return True


def _optional_text(item: Mapping[str, Any], key: str, where: str, limit: int) -> str | None:
    return None if item.get(key) is None else _text(item, key, where, limit=limit)


def import_probe(conn: SqlConnection, item: Mapping[str, Any], where: str) -> bool:
    """Insert one exported probe (the next free number); False when the same probe is here.

    Raises:
        ImportFormatError: The entry is malformed.
    """
    kind, level = item.get("kind"), item.get("min_level")
    if kind not in ("pattern", "fact") or item.get("last_status") not in _PROBE_STATUSES:
        raise ImportFormatError(f"{where} has an invalid 'kind' or 'last_status'")
    is_level = isinstance(level, int) and not isinstance(level, bool) and level >= 2
    if not (is_level if kind == "pattern" else level is None):
        raise ImportFormatError(f"{where} has an invalid 'min_level': {level!r}")
    wrap = item.get("last_wrap_id")
    if wrap is not None and (isinstance(wrap, bool) or not isinstance(wrap, int)):
        raise ImportFormatError(f"{where} has an invalid 'last_wrap_id'")
    target, scope = _text(item, "target", where, limit=500), _text(item, "scope", where)
    section = _optional_text(item, "section", where, 200)
    values = (
        kind, target, level, section, scope, _text(item, "note", where, limit=500),
        _text(item, "created_at", where, limit=40), _optional_text(item, "retired_at", where, 40),
        item.get("last_status"), _optional_text(item, "last_line", where, _MAX_TEXT), wrap,
        _optional_text(item, "last_checked_at", where, 40),
    )  # fmt: skip
    if conn.execute(
        "SELECT 1 FROM probes WHERE kind = ? AND target = ? AND scope = ?"
        " AND coalesce(section, '') = ?",
        (kind, target, scope, section or ""),
    ).fetchone():
        return False
    conn.execute(
        "INSERT INTO probes (kind, target, min_level, section, scope, note, created_at,"
        " retired_at, last_status, last_line, last_wrap_id, last_checked_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        values,
    )
    return True


def _entries(document: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    value = document.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
        raise ImportFormatError(f"export is malformed: {key!r} must be a list of objects")
    return value


def import_worth(conn: SqlConnection, document: Mapping[str, Any]) -> tuple[int, int, int]:
    """Insert the export's missing exposures, totals and probes; how many of each were added.

    Raises:
        ImportFormatError: An entry is malformed (the caller rolls the import back).
    """
    exposures = sum(
        import_exposure(conn, e, f"exposures[{i}]")
        for i, e in enumerate(_entries(document, "exposures"))
    )
    totals = sum(
        import_worth_total(conn, t, f"worth_totals[{i}]")
        for i, t in enumerate(_entries(document, "worth_totals"))
    )
    probes = sum(
        import_probe(conn, p, f"probes[{i}]") for i, p in enumerate(_entries(document, "probes"))
    )
    return exposures, totals, probes
