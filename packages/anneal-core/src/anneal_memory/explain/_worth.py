"""What an explanation says about an item's worth and, for a pattern, the probes watching it.

Reads only, through the public readers of the worth and probes rooms.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from anneal_memory.store import Store

__all__ = ["pattern_probes", "worth_counts"]


def worth_counts(store: Store, kind: str, ref: str) -> dict[str, int]:
    """The worth report's counts of one item, in report order (all zero: never shown)."""
    from anneal_memory.worth import COUNT_FIELDS, worth_of

    row = worth_of(store, kind, ref)
    return {name: int(row.counts[name]) for name in COUNT_FIELDS}


def pattern_probes(
    store: Store, identity: str, scope: str, limit: int
) -> tuple[tuple[dict[str, Any], ...], int]:
    """The live probes on pattern ``identity`` of ``scope`` (at most ``limit``) and their count."""
    from anneal_memory.probes import ProbeKind, list_probes

    mine = [
        probe
        for probe in list_probes(store)
        if probe.kind is ProbeKind.PATTERN
        and probe.scope == scope
        and probe.target.casefold() == identity
    ]
    return tuple(probe.to_dict() for probe in mine[:limit]), len(mine)
