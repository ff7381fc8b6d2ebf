"""One item's worth: the counts of the worth report for a single episode, pattern or crystal.

Reads only the exposures that name the item (a ``LIKE`` on the stored JSON list, its
wildcards escaped; a row that could match by accident is parsed and checked) and the item's
pruned totals. Pattern and
crystal names match case-insensitively (a name's case may change between wraps); an
episode id matches exactly. Report-only, like :func:`~anneal_memory.worth.worth_report`.
"""

from __future__ import annotations

import json

from anneal_memory.errors import InvalidOutcomeError
from anneal_memory.store import SqlConnection, Store
from anneal_memory.worth._tally import add_counts, decode_counts, tally
from anneal_memory.worth._types import ItemKind, Label, Result, WorthRow, item_key

__all__ = ["MAX_REF", "worth_of"]

MAX_REF = 10_000
"""The longest reference looked up (names shown in a block are bounded by its size)."""


_MATCH = (
    "FROM exposures e LEFT JOIN outcomes o ON o.exposure = e.id WHERE {column} LIKE ? ESCAPE '\\'"
)
_EXPOSED = "SELECT e.items, o.result, o.labels " + _MATCH
_GROUPED = (
    "SELECT count(*), o.result, o.labels, CASE WHEN e.items LIKE ? ESCAPE '\\' THEN e.items END "
    + _MATCH
    + " GROUP BY 2, 3, 4"
)


def _like(text: str) -> str:
    r"""``text`` as a ``LIKE`` operand matching it anywhere (``%``, ``_``, ``\`` escaped)."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


class _Match:
    """How one item's key is looked for: exactly in SQL, or by kind in SQL and then here."""

    def __init__(self, kind: ItemKind, ref: str) -> None:
        self.key = item_key(kind, ref.lower() if kind is ItemKind.EPISODE else ref)
        self.folds = kind is not ItemKind.EPISODE
        self.wanted = self.key.casefold() if self.folds else self.key
        # An ASCII key lowers alike in SQL and Python; any other is matched by kind in SQL.
        self.exact = not self.folds or self.key.isascii()
        self.column = "lower(e.items)" if self.folds and self.exact else "e.items"
        if self.exact:
            self.needle = _like(json.dumps(self.key.lower() if self.folds else self.key,
                                           ensure_ascii=False))  # fmt: skip
            self.totals_where, self.totals_value = (
                ("lower(item) = ?", self.key.lower()) if self.folds else ("item = ?", self.key)
            )
        else:
            self.needle = _like(json.dumps(f"{kind.prefix}:", ensure_ascii=False)[:-1])
            self.totals_where = "item LIKE ? ESCAPE '\\'"
            self.totals_value = _like(f"{kind.prefix}:")[1:]

    def same(self, item: str) -> bool:
        """True when a stored key is this item's."""
        return (item.casefold() if self.folds else item) == self.wanted


_Row = tuple[int, str | None, object, object]


def _rows(conn: SqlConnection, match: _Match) -> list[_Row]:
    """``(times, items or None, result, labels)`` of the exposures that may show the item.

    A fixed column name; the needles are parameters. In a list without a backslash, an exact
    needle can only match a whole JSON string of it (a quote inside a string is escaped):
    those rows are counted by outcome in SQL (``items`` None); the others come with their
    list, to be checked.
    """
    if not match.exact:
        found = conn.execute(_EXPOSED.format(column=match.column), (match.needle,))
        return [(1, str(items), result, labels) for items, result, labels in found]
    grouped = conn.execute(_GROUPED.format(column=match.column), (_like("\\"), match.needle))
    return [
        (int(n), None if items is None else str(items), result, labels)
        for n, result, labels, items in grouped
    ]


def worth_of(store: Store, kind: ItemKind | str, ref: str) -> WorthRow:
    """The worth counts of one item (all zero when it was never shown).

    Args:
        store: The store (only read).
        kind: ``episode``, ``pattern`` or ``crystal``.
        ref: The episode id, or the pattern's or crystal's name (case-insensitive).

    Raises:
        InvalidOutcomeError: An unknown kind or an unusable reference.
    """
    try:
        wanted_kind = ItemKind(kind)
    except ValueError:
        raise InvalidOutcomeError(
            f"kind {kind!r} is not one of episode, pattern, crystal"
        ) from None
    if not isinstance(ref, str) or not ref.strip() or len(ref) > MAX_REF:
        raise InvalidOutcomeError(f"ref must be 1-{MAX_REF} characters of text, got {ref!r:.60}")
    match = _Match(wanted_kind, ref.strip())
    key = match.key
    totals: dict[str, dict[str, int]] = {}
    with store.reading("worth") as reader:
        stored = reader.conn.execute(
            f"SELECT item, counts FROM worth_totals WHERE {match.totals_where}",  # noqa: S608
            (match.totals_value,),
        ).fetchall()
        rows = _rows(reader.conn, match)
    for item, packed in stored:
        if match.same(str(item)):
            add_counts(totals, {key: decode_counts(str(packed))})
    for times, items, result, labels in rows:
        if items is not None and not any(match.same(str(i)) for i in json.loads(items)):
            continue
        # An outcome labels only items its exposure showed: any label of this item is its own.
        marks = {} if labels is None else json.loads(str(labels))
        label = next((Label(v) for k, v in marks.items() if match.same(str(k))), None)
        one: dict[str, dict[str, int]] = {}
        tally(
            one,
            [key],
            {} if label is None else {key: label},
            Result.UNKNOWN if result is None else Result(str(result)),
        )
        add_counts(totals, {key: {name: n * times for name, n in one[key].items()}})
    counts = totals.get(key) or decode_counts("{}")
    return WorthRow(kind=wanted_kind, ref=key[2:], counts=counts)
