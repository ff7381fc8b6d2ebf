"""The worth report: per item, what its exposures and their outcomes add up to. Report-only."""

from __future__ import annotations

import json
from collections.abc import Iterable

from anneal_memory.errors import InvalidOutcomeError
from anneal_memory.store import Store
from anneal_memory.worth._tally import add_counts, decode_counts, tally
from anneal_memory.worth._types import COUNT_FIELDS, ItemKind, Label, Result, WorthRow

__all__ = ["SORT_KEYS", "worth_report"]

SORT_KEYS = ("surfaced", *(f for f in COUNT_FIELDS if f != "surfaced"), "ref")
_KIND_OF = {k.prefix: k for k in ItemKind}


def _parse_kinds(kinds: Iterable[ItemKind | str] | None) -> frozenset[ItemKind]:
    if kinds is None:
        return frozenset(ItemKind)
    out = set()
    for kind in kinds:
        try:
            out.add(ItemKind(kind))
        except ValueError:
            raise InvalidOutcomeError(
                f"kind {kind!r} is not one of episode, pattern, crystal"
            ) from None
    return frozenset(out)


def worth_report(
    store: Store,
    *,
    kinds: Iterable[ItemKind | str] | None = None,
    sort: str = "surfaced",
    limit: int | None = None,
) -> list[WorthRow]:
    """Per episode, pattern and crystal ever shown: the counts of :data:`COUNT_FIELDS`.

    Live exposures are counted with their merged outcomes, pruned ones through the totals
    the retention folded them into. Rows sort by ``sort`` (a count, descending; ``ref``
    ascending), then kind and reference. Nothing ranks, decays or retires from this report.

    Raises:
        InvalidOutcomeError: An unknown kind or sort key, or a bad limit.
    """
    wanted = _parse_kinds(kinds)
    if sort not in SORT_KEYS:
        raise InvalidOutcomeError(f"sort {sort!r} is not one of {', '.join(SORT_KEYS)}")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise InvalidOutcomeError(f"limit must be a positive int, got {limit!r}")
    totals: dict[str, dict[str, int]] = {}
    with store.reading("worth") as reader:
        conn = reader.conn
        add_counts(totals, {str(i): decode_counts(str(c)) for i, c in conn.execute(
            "SELECT item, counts FROM worth_totals")})  # fmt: skip
        for items, result, labels in conn.execute(
            "SELECT e.items, o.result, o.labels FROM exposures e"
            " LEFT JOIN outcomes o ON o.exposure = e.id"
        ):
            tally(
                totals,
                json.loads(str(items)),
                {} if labels is None else {k: Label(v) for k, v in json.loads(str(labels)).items()},
                Result.UNKNOWN if result is None else Result(str(result)),
            )
    rows = [
        WorthRow(kind=_KIND_OF[item[0]], ref=item[2:], counts=counts)
        for item, counts in totals.items()
        if _KIND_OF.get(item[:1]) in wanted
    ]
    if sort == "ref":
        rows.sort(key=lambda r: (r.ref, r.kind.value))
    else:
        rows.sort(key=lambda r: (-r.counts[sort], r.kind.value, r.ref))
    return rows if limit is None else rows[:limit]
