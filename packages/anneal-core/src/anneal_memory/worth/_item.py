"""One item's worth: the counts of the worth report for a single episode, pattern or crystal.

Reads only the exposures that name the item (a ``LIKE`` on the stored JSON list, its
wildcards escaped, then an exact check of each row) and the item's pruned totals. Pattern and
crystal names match case-insensitively (a name's case may change between wraps); an
episode id matches exactly. Report-only, like :func:`~anneal_memory.worth.worth_report`.
"""

from __future__ import annotations

import json

from anneal_memory.errors import InvalidOutcomeError
from anneal_memory.store import Store
from anneal_memory.worth._tally import add_counts, decode_counts, tally
from anneal_memory.worth._types import ItemKind, Label, Result, WorthRow, item_key

__all__ = ["MAX_REF", "worth_of"]

MAX_REF = 10_000
"""The longest reference looked up (names shown in a block are bounded by its size)."""


_EXPOSED = (
    "SELECT e.items, o.result, o.labels FROM exposures e"
    " LEFT JOIN outcomes o ON o.exposure = e.id WHERE {column} LIKE ? ESCAPE '\\'"
)
_GROUPED = (
    "SELECT count(*), o.result, o.labels FROM exposures e"
    " LEFT JOIN outcomes o ON o.exposure = e.id WHERE {column} LIKE ? ESCAPE '\\'"
    " GROUP BY o.result, o.labels"
)


def _like(text: str) -> str:
    r"""``text`` as a ``LIKE`` operand matching it anywhere (``%``, ``_``, ``\`` escaped)."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _folds(kind: ItemKind) -> bool:
    return kind is not ItemKind.EPISODE


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
    ref = ref.strip()
    key = item_key(wanted_kind, ref.lower() if wanted_kind is ItemKind.EPISODE else ref)
    folds = _folds(wanted_kind)
    wanted = key.casefold() if folds else key

    def same(item: str) -> bool:
        return (item.casefold() if folds else item) == wanted

    # An ASCII key lowers alike in SQL and Python; any other key is matched by kind, then here.
    exact = not folds or key.isascii()
    token = json.dumps(key.lower() if folds else key, ensure_ascii=False)
    prefix = json.dumps(f"{wanted_kind.prefix}:", ensure_ascii=False)[:-1]
    column = "lower(e.items)" if folds and exact else "e.items"
    needle = _like(token) if exact else _like(prefix)
    if exact:
        where, value = ("lower(item) = ?", key.lower()) if folds else ("item = ?", key)
    else:
        where, value = "item LIKE ? ESCAPE '\\'", _like(f"{wanted_kind.prefix}:")[1:]
    totals: dict[str, dict[str, int]] = {}
    with store.reading("worth") as reader:
        conn = reader.conn
        stored = conn.execute(
            f"SELECT item, counts FROM worth_totals WHERE {where}",  # noqa: S608 - fixed text
            (value,),
        ).fetchall()
        for item, packed in stored:
            if same(str(item)):
                add_counts(totals, {key: decode_counts(str(packed))})
        rows = conn.execute(
            # a fixed column name; the needle is a parameter. An exact needle matches a whole
            # JSON string of the list, so the item is in every row found: count them by outcome.
            (_GROUPED if exact else _EXPOSED).format(column=column),
            (needle,),
        ).fetchall()
    for first, result, labels in rows:
        if not exact and not any(same(str(i)) for i in json.loads(str(first))):
            continue
        # An outcome labels only items its exposure showed: any label of this item is its own.
        marks = {} if labels is None else json.loads(str(labels))
        label = next((Label(v) for k, v in marks.items() if same(str(k))), None)
        one: dict[str, dict[str, int]] = {}
        tally(
            one,
            [key],
            {} if label is None else {key: label},
            Result.UNKNOWN if result is None else Result(str(result)),
        )
        times = int(first) if exact else 1
        add_counts(totals, {key: {name: n * times for name, n in one[key].items()}})
    counts = totals.get(key) or decode_counts("{}")
    return WorthRow(kind=wanted_kind, ref=key[2:], counts=counts)
