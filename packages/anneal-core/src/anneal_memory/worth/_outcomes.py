"""Outcomes: what the agent did with an exposure's items, and how the work went; merged.

An outcome names one exposure, labels some of its items (followed / ignored /
not_applicable) and may say the result (success / failure). Later outcomes of the same
exposure merge into one row: a new label replaces that item's label, a known result replaces
the result (``unknown`` keeps what was known), a non-empty note replaces the note. Each
merge is one audited ``outcome_recorded`` entry: the exposure id, the result, how many items
got each label, the revision, and the note only as its salted hash.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from anneal_memory._clock import format_timestamp
from anneal_memory.errors import ExposureNotFoundError, InvalidOutcomeError
from anneal_memory.store import SqlConnection, Store
from anneal_memory.worth._exposures import RETENTION_DAYS, check_exposure_id, fetch_exposure
from anneal_memory.worth._types import Label, OutcomeRecord, Result, parse_item

__all__ = [
    "MAX_NOTE_CHARS",
    "get_outcome",
    "outcome_from_row",
    "parse_label",
    "parse_result",
    "record_outcome",
]

MAX_NOTE_CHARS = 2000


def parse_label(value: object) -> Label:
    """``value`` as a :class:`Label` (``n/a`` and ``not-applicable`` are accepted too).

    Raises:
        InvalidOutcomeError: Not a known label.
    """
    if isinstance(value, Label):
        return value
    text = str(value).strip().lower().replace("-", "_") if isinstance(value, str) else ""
    text = {"n/a": "not_applicable", "na": "not_applicable"}.get(text, text)
    try:
        return Label(text)
    except ValueError:
        raise InvalidOutcomeError(
            f"label {value!r} is not one of followed, ignored, not_applicable"
        ) from None


def parse_result(value: object) -> Result:
    """``value`` (None meaning unknown) as a :class:`Result`.

    Raises:
        InvalidOutcomeError: Not success, failure or unknown.
    """
    if value is None:
        return Result.UNKNOWN
    if isinstance(value, Result):
        return value
    try:
        return Result(str(value).strip().lower())
    except ValueError:
        raise InvalidOutcomeError(
            f"result {value!r} is not one of success, failure, unknown"
        ) from None


def _labels(
    items: Mapping[str, object] | None, shown: Sequence[str], ident: str
) -> dict[str, Label]:
    if items is None:
        return {}
    if not isinstance(items, Mapping):
        raise InvalidOutcomeError("items must map KIND:REF to a label")
    out: dict[str, Label] = {}
    for raw, label in items.items():
        key = parse_item(raw)
        if key not in shown:
            raise InvalidOutcomeError(
                f"exposure {ident} did not show {raw!r}; it showed: "
                + (", ".join(_readable(i) for i in shown[:12]) or "nothing")
                + (" ..." if len(shown) > 12 else "")
            )
        out[key] = parse_label(label)
    return out


def _readable(item: str) -> str:
    kind = {"e": "episode", "p": "pattern", "c": "crystal"}[item[0]]
    return f"{kind}:{item[2:]}"


def outcome_from_row(exposure: str, row: Sequence[object]) -> OutcomeRecord:
    """Build an :class:`OutcomeRecord` from ``result, labels, note, revision``."""
    result, labels, note, revision = row
    return OutcomeRecord(
        exposure_id=exposure,
        result=Result.UNKNOWN if result is None else Result(str(result)),
        labels={str(k): Label(v) for k, v in json.loads(str(labels)).items()},
        note=str(note),
        revision=int(str(revision)),
    )


def _fetch(conn: SqlConnection, ident: str) -> OutcomeRecord | None:
    row = conn.execute(
        "SELECT result, labels, note, revision FROM outcomes WHERE exposure = ?", (ident,)
    ).fetchone()
    return None if row is None else outcome_from_row(ident, row)


def _missing(ident: str) -> ExposureNotFoundError:
    return ExposureNotFoundError(
        f"no exposure {ident} in this store (never recorded here, or older than the retention "
        f"of {RETENTION_DAYS} days); nothing was written"
    )


def record_outcome(
    store: Store,
    exposure_id: str,
    *,
    result: Result | str | None = None,
    items: Mapping[str, Label | str] | None = None,
    note: str = "",
    actor: str = "agent",
) -> OutcomeRecord:
    """Merge an outcome into exposure ``exposure_id``'s; the merged outcome.

    Args:
        store: The store the exposure was recorded in.
        exposure_id: The exposure (as a recall or context block reported it).
        result: ``success``, ``failure``, or None / ``unknown`` (keeps a known result).
        items: ``KIND:REF`` (``episode:1a2b3c4d``, ``pattern:NAME``, ``crystal:NAME``) ->
            ``followed`` / ``ignored`` / ``not_applicable``; each must be one the exposure
            showed.
        note: Free text kept with the outcome (at most ``MAX_NOTE_CHARS``).
        actor: Who reports it (audit).

    Raises:
        InvalidOutcomeError: A bad id, label, result or item, or an item not shown.
        ExposureNotFoundError: No such exposure; nothing was written.
    """
    ident = check_exposure_id(exposure_id)
    outcome = parse_result(result)
    if not isinstance(note, str) or len(note) > MAX_NOTE_CHARS:
        raise InvalidOutcomeError(f"note must be text of at most {MAX_NOTE_CHARS} characters")
    with store.writing("outcome") as tx:
        exposure = fetch_exposure(tx.conn, ident)
        if exposure is None:
            raise _missing(ident)
        labels = _labels(items, exposure.items, ident)
        before = _fetch(tx.conn, ident)
        merged = dict(before.labels) if before else {}
        merged.update(labels)
        if outcome is Result.UNKNOWN and before is not None:
            outcome = before.result
        kept_note = note.strip() or (before.note if before else "")
        revision = (before.revision if before else 0) + 1
        values = (
            None if outcome is Result.UNKNOWN else outcome.value,
            json.dumps({k: v.value for k, v in sorted(merged.items())}, separators=(",", ":")),
            kept_note,
            format_timestamp(store.clock.now()),
            revision,
        )
        if before is None:
            tx.conn.execute(
                "INSERT INTO outcomes (exposure, result, labels, note, updated_at, revision)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (ident, *values),
            )
        else:
            tx.conn.execute(
                "UPDATE outcomes SET result = ?, labels = ?, note = ?, updated_at = ?,"
                " revision = ? WHERE exposure = ?",
                (*values, ident),
            )
        data: dict[str, Any] = {
            "exposure_id": ident,
            "result": outcome.value,
            "labelled": {
                lab.value: n for lab in Label if (n := sum(v is lab for v in labels.values()))
            },
            "revision": revision,
        }
        if note.strip():
            data["text"] = note.strip()
        tx.audit("outcome_recorded", actor=actor, data=data)
    return OutcomeRecord(
        exposure_id=ident, result=outcome, labels=merged, note=kept_note, revision=revision
    )


def get_outcome(store: Store, exposure_id: str) -> OutcomeRecord | None:
    """The merged outcome of ``exposure_id``; None when none was reported yet.

    Raises:
        InvalidOutcomeError: Not an exposure id.
        ExposureNotFoundError: No such exposure.
    """
    ident = check_exposure_id(exposure_id)
    with store.reading("outcome") as reader:
        if fetch_exposure(reader.conn, ident) is None:
            raise _missing(ident)
        return _fetch(reader.conn, ident)
