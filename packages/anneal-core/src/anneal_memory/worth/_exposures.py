"""Exposures: each block of memory that reached a model, recorded cheaply, pruned by age and count.

An exposure is one row (its items a compact JSON list), written in a non-durable transaction
with no audit entry of its own: it is a read receipt, not a change to memory, and it must
not cost the model call an fsync. A power cut may lose the last exposures; nothing else.
Every ``PRUNE_EVERY``-th exposure a process records also prunes: exposures older than
``RETENTION_DAYS`` or beyond the newest ``MAX_EXPOSURES`` are folded into ``worth_totals``
(their counts survive) and deleted, with one audited ``exposures_pruned`` entry.
"""

from __future__ import annotations

import datetime as _dt
import itertools
import json
import os
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from anneal_memory._clock import format_timestamp
from anneal_memory.errors import AnnealMemoryError, ExposureNotFoundError, InvalidOutcomeError
from anneal_memory.store import SqlConnection, Store, Tx
from anneal_memory.worth._tally import add_counts, decode_counts, encode_counts, tally
from anneal_memory.worth._types import Exposure, Label, Result

if TYPE_CHECKING:
    import logging

__all__ = [
    "MAX_EXPOSURES",
    "MAX_ITEMS",
    "PRUNE_EVERY",
    "RETENTION_DAYS",
    "expose",
    "get_exposure",
    "prune_exposures",
    "record_exposure",
]

RETENTION_DAYS = 90
MAX_EXPOSURES = 100_000
PRUNE_EVERY = 512
MAX_ITEMS = 64
"""At most this many items per exposure are kept (a block shows far fewer)."""


def _logger() -> logging.Logger:
    """The package's logger, imported when something is logged (start-up speed, #25)."""
    import logging

    return logging.getLogger("anneal_memory")


_counter = itertools.count(1)
_ID_CHARS = frozenset("0123456789abcdef")


def new_exposure_id() -> str:
    """A fresh exposure id: ``x`` and 12 hex digits."""
    return "x" + os.urandom(6).hex()


def check_exposure_id(value: object) -> str:
    """``value`` as an exposure id.

    Raises:
        InvalidOutcomeError: Not ``x`` followed by 12 hex digits.
    """
    text = value.strip().lower() if isinstance(value, str) else ""
    if len(text) != 13 or text[0] != "x" or not set(text[1:]) <= _ID_CHARS:
        raise InvalidOutcomeError(
            f"exposure id {value!r} is not an exposure id (x and 12 hex digits, as a recall "
            "or context block reported it)"
        )
    return text


def record_exposure(
    store: Store,
    via: str,
    items: Iterable[str],
    *,
    scope: str = "",
    session_id: str | None = None,
    defer_prune: Callable[[], object] | None = None,
) -> str | None:
    """Record that ``items`` reached a model via ``via``; the exposure id (None: nothing shown).

    When this exposure is the one that prunes, ``defer_prune`` (if given) is called after the
    insert instead of pruning in the same transaction: a caller on a model call's path hands
    the prune to a background writer (``AgentMemory`` does), so no call waits for it.

    Raises:
        StoreError: The store could not be written (read-only, closed, failing).
    """
    shown = tuple(dict.fromkeys(items))[:MAX_ITEMS]
    if not shown:
        return None
    ident = new_exposure_id()
    now = store.clock.now()
    with store.writing("exposure", durable=False) as tx:
        tx.conn.execute(
            "INSERT INTO exposures (id, at, via, scope, session_id, items)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (ident, format_timestamp(now), via, scope, session_id,
             json.dumps(shown, separators=(",", ":"), ensure_ascii=False)),
        )  # fmt: skip
        due = next(_counter) % PRUNE_EVERY == 0
        if due and defer_prune is None:
            _prune(tx, now - _dt.timedelta(days=RETENTION_DAYS), MAX_EXPOSURES)
    if due and defer_prune is not None:
        defer_prune()
    return ident


def expose(
    store: Store,
    via: str,
    items: Iterable[str],
    *,
    scope: str = "",
    session_id: str | None = None,
    defer_prune: Callable[[], object] | None = None,
) -> str | None:
    """:func:`record_exposure` for a read path: a failure is logged, never raised (None)."""
    try:
        return record_exposure(
            store, via, items, scope=scope, session_id=session_id, defer_prune=defer_prune
        )
    except AnnealMemoryError as exc:
        _logger().debug("exposure not recorded (%s): %s", via, exc)
        return None


def exposure_from_row(row: Sequence[object]) -> Exposure:
    """Build an :class:`Exposure` from ``id, at, via, scope, session_id, items``."""
    ident, at, via, scope, session, items = row
    return Exposure(
        id=str(ident),
        at=str(at),
        via=str(via),
        scope=str(scope),
        session_id=None if session is None else str(session),
        items=tuple(str(i) for i in json.loads(str(items))),
    )


def fetch_exposure(conn: SqlConnection, ident: str) -> Exposure | None:
    """The exposure ``ident`` (already checked), or None."""
    row = conn.execute(
        "SELECT id, at, via, scope, session_id, items FROM exposures WHERE id = ?", (ident,)
    ).fetchone()
    return None if row is None else exposure_from_row(row)


def get_exposure(store: Store, exposure_id: str) -> Exposure:
    """The exposure ``exposure_id``.

    Raises:
        InvalidOutcomeError: Not an exposure id.
        ExposureNotFoundError: No such exposure (never recorded, or pruned).
    """
    ident = check_exposure_id(exposure_id)
    with store.reading("exposure") as reader:
        found = fetch_exposure(reader.conn, ident)
    if found is None:
        raise ExposureNotFoundError(
            f"no exposure {ident} in this store (never recorded here, or older than the "
            f"retention of {RETENTION_DAYS} days)"
        )
    return found


def _cutoff_by_count(conn: SqlConnection, keep: int) -> str | None:
    row = conn.execute(
        "SELECT at FROM exposures ORDER BY at DESC LIMIT 1 OFFSET ?", (keep,)
    ).fetchone()
    return None if row is None else str(row[0])


_PRUNED = {  # the rows a prune takes: older than the cutoff, or through the count boundary
    "<": (
        "SELECT e.id, e.items, o.result, o.labels FROM exposures e"
        " LEFT JOIN outcomes o ON o.exposure = e.id WHERE e.at < ?",
        "DELETE FROM outcomes WHERE exposure IN (SELECT id FROM exposures WHERE at < ?)",
        "DELETE FROM exposures WHERE at < ?",
    ),
    "<=": (
        "SELECT e.id, e.items, o.result, o.labels FROM exposures e"
        " LEFT JOIN outcomes o ON o.exposure = e.id WHERE e.at <= ?",
        "DELETE FROM outcomes WHERE exposure IN (SELECT id FROM exposures WHERE at <= ?)",
        "DELETE FROM exposures WHERE at <= ?",
    ),
}


def _fold(conn: SqlConnection, rows: Sequence[Sequence[object]]) -> int:
    folded: dict[str, dict[str, int]] = {}
    for _ident, items, result, labels in rows:
        tally(
            folded,
            json.loads(str(items)),
            {} if labels is None else {k: Label(v) for k, v in json.loads(str(labels)).items()},
            Result.UNKNOWN if result is None else Result(str(result)),
        )
    keys = sorted(folded)
    for start in range(0, len(keys), 500):
        chunk = keys[start : start + 500]
        stored: dict[str, dict[str, int]] = {}
        for item in chunk:
            row = conn.execute("SELECT counts FROM worth_totals WHERE item = ?", (item,)).fetchone()
            if row is not None:
                stored[item] = decode_counts(str(row[0]))
        add_counts(stored, {k: folded[k] for k in chunk})
        conn.executemany(
            "INSERT INTO worth_totals (item, counts) VALUES (?, ?)"
            " ON CONFLICT (item) DO UPDATE SET counts = excluded.counts",
            [(k, encode_counts(stored[k])) for k in chunk],
        )
    return len(folded)


def _prune(tx: Tx, older_than: _dt.datetime, keep: int) -> int:
    conn = tx.conn
    cutoff = format_timestamp(older_than)
    by_count = _cutoff_by_count(conn, keep)
    # The newest ``keep`` are kept; rows stamped at the count boundary go with the older ones.
    op, bound = ("<=", by_count) if by_count is not None and by_count >= cutoff else ("<", cutoff)
    select, drop_outcomes, drop_exposures = _PRUNED[op]
    rows = conn.execute(select, (bound,)).fetchall()
    if not rows:
        return 0
    items = _fold(conn, rows)
    # Outcomes go with their exposures (the foreign key cascades too; explicit is clearer).
    conn.execute(drop_outcomes, (bound,))
    conn.execute(drop_exposures, (bound,))
    tx.audit(
        "exposures_pruned",
        actor="system",
        data={"count": len(rows), "items_folded": items, "through": bound},
    )
    return len(rows)


def prune_quietly(store: Store) -> None:
    """:func:`prune_exposures` with the default bounds, a failure logged (a background job)."""
    try:
        prune_exposures(store)
    except AnnealMemoryError as exc:
        _logger().warning("anneal-memory: exposures not pruned: %s", exc)


def prune_exposures(
    store: Store, *, older_than_days: int = RETENTION_DAYS, keep: int = MAX_EXPOSURES
) -> int:
    """Fold and delete exposures older than ``older_than_days`` or beyond the newest ``keep``.

    Their counts move into the per-item totals the worth report adds in. Returns how many
    exposures were pruned (0 writes nothing).

    Raises:
        InvalidOutcomeError: A bound is not a non-negative int.
    """
    for name, value in (("older_than_days", older_than_days), ("keep", keep)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InvalidOutcomeError(f"{name} must be a non-negative int, got {value!r}")
    with store.writing("exposures prune") as tx:
        return _prune(tx, store.clock.now() - _dt.timedelta(days=older_than_days), keep)
