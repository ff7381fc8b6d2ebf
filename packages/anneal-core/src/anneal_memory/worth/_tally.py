"""Pure counting: one exposure's items and outcome -> per-item counts (see ``COUNT_FIELDS``)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from anneal_memory.worth._types import COUNT_FIELDS, Label, Result

__all__ = ["add_counts", "decode_counts", "encode_counts", "tally"]

Counts = dict[str, int]


def _zero() -> dict[str, int]:
    return dict.fromkeys(COUNT_FIELDS, 0)


def tally(
    totals: dict[str, Counts],
    items: Iterable[str],
    labels: Mapping[str, Label],
    result: Result,
) -> None:
    """Add one exposure to ``totals`` (item key -> counts)."""
    for item in items:
        counts = totals.get(item)
        if counts is None:
            counts = totals[item] = _zero()
        counts["surfaced"] += 1
        label = labels.get(item)
        prefix = "unlabelled" if label is None else label.value
        counts[prefix] += 1
        if label is not Label.NOT_APPLICABLE and result is not Result.UNKNOWN:
            counts[f"{prefix}_{result.value}"] += 1


def add_counts(into: dict[str, Counts], more: Mapping[str, Mapping[str, int]]) -> None:
    """Add the counts of ``more`` into ``into``, item by item."""
    for item, counts in more.items():
        target = into.get(item)
        if target is None:
            target = into[item] = _zero()
        for name in COUNT_FIELDS:
            target[name] += int(counts.get(name, 0))


def encode_counts(counts: Mapping[str, int]) -> str:
    """The stored form of one item's counts."""
    return json.dumps({k: int(counts.get(k, 0)) for k in COUNT_FIELDS}, separators=(",", ":"))


def decode_counts(text: str) -> dict[str, int]:
    """Read a stored counts value (unknown names ignored, missing ones 0)."""
    raw = json.loads(text)
    if not isinstance(raw, dict):
        return _zero()
    return {k: int(raw.get(k, 0)) for k in COUNT_FIELDS}
