"""Hebbian associations between episodes, formed at every save, and the affective state.

Only citations the immune system validated this wrap form links (the association network
inherits its integrity: a demoted or ungrounded citation links nothing). Episodes validated
together on one pattern line that claims 2x or more gain +1.0; episodes validated on
different pattern lines of the same wrap gain +0.3. Both are multiplied by the
affect factor ``1 + 0.5 * intensity`` when the save carries an affective state. Strength is
capped at 10.0; every link a wrap does not reinforce decays x0.9, and links below 0.1 are
pruned. Recall does not read the links; they are a record of what was understood together.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, Protocol

from anneal_memory._hebbian import (
    AFFECT_WEIGHT,
    CO_CITED,
    DECAY,
    MAX_STRENGTH,
    PRUNE_BELOW,
    SAME_WRAP,
    AssociationLink,
)
from anneal_memory.errors import InvalidInputError
from anneal_memory.store.wraps import read_associations

if TYPE_CHECKING:
    from anneal_memory.store import Store

__all__ = [
    "CO_CITED",
    "DECAY",
    "MAX_STRENGTH",
    "PRUNE_BELOW",
    "SAME_WRAP",
    "Affect",
    "AssociationLink",
    "CitingLine",
    "association_deltas",
    "associations",
    "graph_dot",
    "graph_json",
]

_MAX_TAG = 64


@dataclass(frozen=True, slots=True, kw_only=True)
class Affect:
    """The compressor's state during a wrap, e.g. ``Affect(tag="curious", intensity=0.8)``.

    Raises:
        InvalidInputError: The tag is empty or longer than 64 characters, or the intensity
            is not a number in [0, 1].
    """

    tag: str
    intensity: float

    def __post_init__(self) -> None:
        if not isinstance(self.tag, str) or not self.tag.strip() or len(self.tag) > _MAX_TAG:
            raise InvalidInputError(
                f"affect tag must be 1-{_MAX_TAG} characters of text, got {self.tag!r}"
            )
        value = self.intensity
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
            or not 0.0 <= value <= 1.0
        ):
            raise InvalidInputError(f"affect intensity must be in [0, 1], got {value!r}")

    @property
    def factor(self) -> float:
        """The multiplier it applies to new strength: ``1 + 0.5 * intensity``."""
        return 1.0 + AFFECT_WEIGHT * float(self.intensity)


class CitingLine(Protocol):
    """A line's claimed level and the ids it cites (a ``PatternLine`` or a validated citation)."""

    @property
    def level(self) -> int:
        """The level the line claims."""
        ...  # pragma: no cover - protocol

    @property
    def evidence_ids(self) -> tuple[str, ...]:
        """The ids it cites."""
        ...  # pragma: no cover - protocol


def association_deltas(
    lines: Sequence[CitingLine], citable: Iterable[str], affect: Affect | None = None
) -> dict[tuple[str, str], float]:
    """Strength to add per episode pair for one save's lines.

    The save passes only its validated citations (``immune.validated_citations``). Only ids
    in ``citable`` (the wrap's snapshot) count. A pair co-cited on a 2x+ line gains +1.0 per
    such line; a pair never co-cited but cited on different lines gains +0.3.
    """
    allowed = set(citable)
    per_line = [
        (line.level, sorted({i for i in line.evidence_ids if i in allowed})) for line in lines
    ]
    direct: dict[tuple[str, str], float] = {}
    for level, ids in per_line:
        if level >= 2:
            for pair in combinations(ids, 2):
                direct[pair] = direct.get(pair, 0.0) + CO_CITED
    deltas = dict(direct)
    for (_, left), (_, right) in combinations(per_line, 2):
        for x in left:
            for y in right:
                if x != y:
                    pair = (x, y) if x < y else (y, x)
                    if pair not in direct:
                        deltas[pair] = SAME_WRAP
    factor = affect.factor if affect is not None else 1.0
    return {pair: min(MAX_STRENGTH, value * factor) for pair, value in deltas.items()}


def associations(
    store: Store,
    *,
    episode_id: str | None = None,
    min_strength: float = 0.0,
    limit: int = 100,
) -> tuple[AssociationLink, ...]:
    """Read association links, strongest first.

    Args:
        store: The store.
        episode_id: Only links touching this episode.
        min_strength: Leave out weaker links.
        limit: At most this many links.

    Raises:
        InvalidInputError: ``limit`` is not a positive integer.
    """
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise InvalidInputError(f"limit must be a positive integer, got {limit!r}")
    with store.reading("associations") as reader:
        return tuple(
            read_associations(
                reader.conn, episode_id=episode_id, min_strength=float(min_strength), limit=limit
            )
        )


def graph_dot(links: Iterable[AssociationLink]) -> str:
    """Render links as a Graphviz ``graph`` (undirected, pen width by strength)."""
    out = ["graph associations {"]
    for link in links:
        label = f"{link.strength:.2f}"
        if link.affect_tag:
            label += f" {link.affect_tag}"
        out.append(
            f'  "{link.a}" -- "{link.b}" [label={json.dumps(label)}, '
            f"penwidth={1 + link.strength / 2:.2f}];"
        )
    out.append("}")
    return "\n".join(out) + "\n"


def graph_json(links: Iterable[AssociationLink]) -> str:
    """Render links as JSON ``{"nodes": [...], "edges": [...]}``."""
    edges = [link.to_dict() for link in links]
    nodes = sorted({e["a"] for e in edges} | {e["b"] for e in edges})
    return json.dumps({"nodes": nodes, "edges": edges}, indent=2, sort_keys=True) + "\n"
