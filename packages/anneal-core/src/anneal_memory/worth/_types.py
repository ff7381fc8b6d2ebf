"""The values of the worth room: what an exposure showed, how an outcome labels it, the counts."""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass

from anneal_memory.errors import InvalidOutcomeError

__all__ = [
    "COUNT_FIELDS",
    "Exposure",
    "ItemKind",
    "Label",
    "OutcomeRecord",
    "Result",
    "WorthRow",
    "item_key",
    "parse_item",
]


class ItemKind(str, enum.Enum):
    """What kind of memory an exposure showed."""

    EPISODE = "episode"
    PATTERN = "pattern"
    CRYSTAL = "crystal"

    @property
    def prefix(self) -> str:
        """The one-letter prefix of its item keys (``e:1a2b3c4d``)."""
        return self.value[0]


class Label(str, enum.Enum):
    """What the agent did with one shown item."""

    FOLLOWED = "followed"
    IGNORED = "ignored"
    NOT_APPLICABLE = "not_applicable"


class Result(str, enum.Enum):
    """How the work after an exposure went."""

    SUCCESS = "success"
    FAILURE = "failure"
    UNKNOWN = "unknown"


_KINDS = {k.prefix: k for k in ItemKind} | {k.value: k for k in ItemKind}
_MAX_REF = 200
_EPISODE_ID = re.compile(r"[0-9a-f]{8}")


def item_key(kind: ItemKind, ref: str) -> str:
    """The stored key of one item: ``e:<episode id>``, ``p:<pattern name>``, ``c:<crystal>``."""
    return f"{kind.prefix}:{ref}"


def parse_item(text: object) -> str:
    """Parse ``episode:ID`` / ``pattern:NAME`` / ``crystal:NAME`` (or ``e:``/``p:``/``c:``).

    Returns the stored key (``e:1a2b3c4d``).

    Raises:
        InvalidOutcomeError: Not ``KIND:REF`` with a known kind and a non-empty reference.
    """
    if not isinstance(text, str) or ":" not in text:
        raise InvalidOutcomeError(
            f"item {text!r} must be KIND:REF with KIND episode, pattern or crystal "
            "(for example episode:1a2b3c4d)"
        )
    kind_text, ref = text.split(":", 1)
    kind = _KINDS.get(kind_text.strip().lower())
    ref = ref.strip()
    if kind is None:
        raise InvalidOutcomeError(
            f"item {text!r} has an unknown kind {kind_text!r}: use episode, pattern or crystal"
        )
    if not ref or len(ref) > _MAX_REF or any(ord(c) < 32 for c in ref):
        raise InvalidOutcomeError(
            f"item {text!r} needs a reference of 1-{_MAX_REF} printable characters"
        )
    if kind is ItemKind.EPISODE:
        ref = ref.lower()
    return item_key(kind, ref)


@dataclass(frozen=True, slots=True, kw_only=True)
class Exposure:
    """One block of memory that reached a model.

    Attributes:
        id: The exposure id (``x`` and 12 hex digits) an outcome names.
        at: When (UTC timestamp).
        via: Which path showed it (``context_for``, ``start``, ``mcp recall`` ...).
        scope: The scope it was shown in ("" the shared one).
        session_id: The session that asked, when known.
        items: The item keys shown (``e:<id>``, ``p:<name>``, ``c:<name>``), in order.
    """

    id: str
    at: str
    via: str
    scope: str
    session_id: str | None
    items: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class OutcomeRecord:
    """The merged outcome of one exposure.

    Attributes:
        exposure_id: The exposure it labels.
        result: ``success``, ``failure`` or ``unknown`` (not reported yet).
        labels: Item key -> label, for the items labelled so far.
        note: The latest non-empty note ("" when none).
        revision: How many outcomes were merged into it.
    """

    exposure_id: str
    result: Result
    labels: Mapping[str, Label]
    note: str
    revision: int

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready form (labels by item key)."""
        return {
            "exposure_id": self.exposure_id,
            "result": self.result.value,
            "labels": {k: v.value for k, v in sorted(self.labels.items())},
            "note": self.note,
            "revision": self.revision,
        }


COUNT_FIELDS = (
    "surfaced",
    "followed",
    "ignored",
    "not_applicable",
    "unlabelled",
    "followed_success",
    "followed_failure",
    "ignored_success",
    "ignored_failure",
    "unlabelled_success",
    "unlabelled_failure",
)
"""The counts of one worth row, in report order."""


@dataclass(frozen=True, slots=True, kw_only=True)
class WorthRow:
    """What the outcomes say about one item (report-only: nothing ranks from it).

    Attributes:
        kind: Episode, pattern or crystal.
        ref: Its id or name.
        counts: One count per :data:`COUNT_FIELDS` name: times surfaced; labelled followed,
            ignored, not applicable, or not labelled; and successes and failures after
            following, after ignoring, and with no label.
    """

    kind: ItemKind
    ref: str
    counts: Mapping[str, int]

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready form."""
        return {
            "kind": self.kind.value,
            "ref": self.ref,
            **{f: self.counts[f] for f in COUNT_FIELDS},
        }
