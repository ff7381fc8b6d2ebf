"""Records of the public anneal-memory 1.0.2, checked and turned into import records.

Shared by the 1.0.2 JSON export reader and the 1.0.2 database reader: both give the same
fields as dicts (an export's JSON objects, a database's rows by column name).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from typing import Any

from anneal_memory._clock import Clock
from anneal_memory.errors import ImportFormatError, InvalidEpisodeError
from anneal_memory.store._validate import MAX_CONTENT_BYTES, validate_episode
from anneal_memory.store.transfer._records import (
    AssociationRecord,
    CrystalRecord,
    DerivedRecord,
    EpisodeRecord,
    Kind,
    SporeRecord,
    SupersessionRecord,
    TombstoneRecord,
    TrustRecord,
    WrapRecord,
)
from anneal_memory.store.transfer._sink import Sink
from anneal_memory.store.transfer.formats._v1_memory import crystal_item, spore_item

__all__ = [
    "TRUST_CLASSES",
    "check_depth",
    "check_id",
    "metadata_of",
    "v1_association",
    "v1_crystal_file",
    "v1_derived",
    "v1_episode",
    "v1_spore_file",
    "v1_supersession",
    "v1_tombstone",
    "v1_wrap",
]

_HEX = frozenset("0123456789abcdef")
TRUST_CLASSES = ("external", "tool", "agent", "operator")
_MAX_METADATA_DEPTH = 32


def check_id(value: object, place: str, what: str = "id") -> str:
    """Return an 8-lowercase-hex episode id or refuse naming ``place``."""
    if not isinstance(value, str) or len(value) != 8 or not set(value) <= _HEX:
        raise ImportFormatError(f"{place} has an invalid {what} {value!r} (8 lowercase hex)")
    return value


def _text(value: object, place: str, what: str) -> str:
    if not isinstance(value, str):
        raise ImportFormatError(f"{place}: {what} must be text, got {type(value).__name__}")
    return value


def _depth_ok(value: object) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > _MAX_METADATA_DEPTH:
            return False
        if isinstance(item, Mapping):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return True


def check_depth(value: object, place: str) -> None:
    """Refuse a value nested more than 32 levels deep, naming ``place``."""
    if not _depth_ok(value):
        raise ImportFormatError(f"{place} is nested more than 32 levels deep")


def metadata_of(value: object, place: str) -> Mapping[str, Any] | None:
    """A record's metadata (an object, JSON text or null), at most 32 levels deep."""
    if isinstance(value, str):
        try:
            value = json.loads(value) if value else None
        except (json.JSONDecodeError, RecursionError):
            raise ImportFormatError(f"{place}: metadata is not a JSON object") from None
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ImportFormatError(f"{place}: metadata must be an object, got {type(value).__name__}")
    if not _depth_ok(value):
        raise ImportFormatError(f"{place}: metadata is nested more than 32 levels deep")
    return value


def _wrap_number(value: object, place: str) -> int | None:
    if value is None or value == "":
        return None
    try:
        return int(str(value))
    except ValueError:
        raise ImportFormatError(f"{place}: session_id {value!r} is not a wrap number") from None


def v1_episode(sink: Sink, raw: object, place: str, clock: Clock) -> str:
    """Check one 1.0.2 episode and hand it (and its trust/links) to ``sink``; return its id."""
    if not isinstance(raw, Mapping):
        raise ImportFormatError(f"{place} is not an object")
    ident = check_id(raw.get("id"), place)
    content = raw.get("content")
    if isinstance(content, str) and len(content.encode("utf-8", "replace")) > MAX_CONTENT_BYTES:
        sink.not_carried(
            Kind.EPISODES,
            f"not carried: longer than this store's {MAX_CONTENT_BYTES:,}-byte episode limit "
            f"(1.0.2 had none; {ident} is one); record a summary of it",
        )
        return ident
    origin_key = raw.get("origin_key")
    if origin_key is not None:
        _text(origin_key, place, "origin_key")
    try:
        item = validate_episode(
            raw.get("content"),
            raw.get("type"),
            source=raw.get("source") or "agent",
            metadata=metadata_of(raw.get("metadata"), place),
            timestamp=_text(raw.get("timestamp"), place, "timestamp"),
            idempotency_key=origin_key,
            clock=clock,
        )
    except InvalidEpisodeError as exc:
        raise ImportFormatError(f"{place} ({ident}) is invalid: {exc}") from None
    number = _wrap_number(raw.get("session_id"), place)
    sink.episode(EpisodeRecord(place=place, ident=ident, item=item, wrap_number=number))
    trust = raw.get("trust")
    if trust is not None:
        if trust not in TRUST_CLASSES:
            raise ImportFormatError(f"{place}: unknown trust class {trust!r}")
        sink.trust(TrustRecord(place=place, episode_id=ident, trust=str(trust)))
    derived = raw.get("derived_from") or []
    if not isinstance(derived, list):
        raise ImportFormatError(f"{place}: derived_from must be a list")
    for edge in derived:
        source_id = edge.get("id") if isinstance(edge, Mapping) else edge
        sink.derived(
            DerivedRecord(place=place, episode_id=ident, source_id=check_id(source_id, place))
        )
    return ident


def v1_tombstone(sink: Sink, raw: Mapping[str, Any], place: str) -> None:
    """A 1.0.2 tombstone row: the id stays deleted."""
    ident = check_id(raw.get("id"), place)
    deleted_at = raw.get("pruned_at") or raw.get("timestamp") or ""
    sink.tombstone(TombstoneRecord(place=place, ident=ident, deleted_at=str(deleted_at)))


def _int(value: object, place: str, what: str, *, default: int | None = 0) -> int | None:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise ImportFormatError(f"{place}: {what} must be a whole number, got {value!r}")
    return value


def v1_wrap(sink: Sink, raw: object, place: str) -> None:
    """A 1.0.2 wrap row (or an export's wrap dict)."""
    if not isinstance(raw, Mapping):
        raise ImportFormatError(f"{place} is not an object")
    number = _int(raw.get("id"), place, "id", default=None)
    if number is None or number < 1:
        raise ImportFormatError(f"{place}: a wrap needs a positive id")
    sink.wrap(
        WrapRecord(
            place=place,
            number=number,
            wrapped_at=_text(raw.get("wrapped_at"), place, "wrapped_at"),
            episodes=_int(raw.get("episodes_compressed"), place, "episodes_compressed") or 0,
            continuity_chars=_int(raw.get("continuity_chars"), place, "continuity_chars"),
            continuity_sha256=(str(raw["content_hash"]) if raw.get("content_hash") else None),
            validated=_int(raw.get("graduations_validated"), place, "graduations") or 0,
            demoted=_int(raw.get("graduations_demoted"), place, "graduations") or 0,
        )
    )


def v1_association(sink: Sink, raw: object, place: str) -> None:
    """A 1.0.2 association link."""
    if not isinstance(raw, Mapping):
        raise ImportFormatError(f"{place} is not an object")
    strength = raw.get("strength")
    if isinstance(strength, bool) or not isinstance(strength, (int, float)):
        raise ImportFormatError(f"{place}: strength must be a number")
    if not math.isfinite(strength) or strength <= 0:
        raise ImportFormatError(f"{place}: strength {strength!r} is not a positive number")
    tag = raw.get("affective_tag")
    intensity = raw.get("affective_intensity")
    sink.association(
        AssociationRecord(
            place=place,
            a=check_id(raw.get("episode_a"), place, "episode_a"),
            b=check_id(raw.get("episode_b"), place, "episode_b"),
            strength=float(strength),
            affect_tag=None if tag is None else _text(tag, place, "affective_tag")[:64],
            affect_intensity=float(intensity) if isinstance(intensity, (int, float)) else None,
        )
    )


def v1_derived(sink: Sink, raw: Mapping[str, Any], place: str) -> None:
    """A 1.0.2 ``episode_derived`` row: the episode was derived from the source."""
    sink.derived(
        DerivedRecord(
            place=place,
            episode_id=check_id(raw.get("episode_id"), place, "episode_id"),
            source_id=check_id(raw.get("source_id"), place, "source_id"),
        )
    )


def v1_supersession(sink: Sink, raw: object, place: str) -> None:
    """A 1.0.2 supersession link."""
    if not isinstance(raw, Mapping):
        raise ImportFormatError(f"{place} is not an object")
    sink.supersession(
        SupersessionRecord(
            place=place,
            old_id=check_id(raw.get("old_id"), place, "old_id"),
            new_id=check_id(raw.get("new_id"), place, "new_id"),
            source=str(raw.get("source") or "agent"),
            recorded_at=str(raw.get("recorded_at") or ""),
        )
    )


def _sidecar_entries(
    document: object, place: str, keys: tuple[str, str]
) -> Iterator[tuple[str, str, Mapping[str, Any]]]:
    """``(key, place, entry)`` for each object under ``keys`` of a 1.0.2 sidecar file."""
    if not isinstance(document, Mapping):
        raise ImportFormatError(f"{place} is not a JSON object")
    for key in keys:
        entries = document.get(key) or []
        if not isinstance(entries, list):
            raise ImportFormatError(f"{place}: {key!r} must be a list")
        for index, entry in enumerate(entries):
            where = f"{place} {key}[{index}]"
            if not isinstance(entry, Mapping):
                raise ImportFormatError(f"{where} is not an object")
            if not _depth_ok(entry):
                raise ImportFormatError(f"{where} is nested more than 32 levels deep")
            yield key, where, entry


def v1_crystal_file(sink: Sink, document: object, place: str) -> None:
    """The 1.0.2 crystal file ``{crystal: [...], retired: [...], schema_version}``."""
    for key, where, entry in _sidecar_entries(document, place, ("crystal", "retired")):
        name = _text(entry.get("name"), where, "name")
        item = crystal_item(entry, where)
        sink.crystal(CrystalRecord(place=where, name=name, retired=key == "retired", data=item))


def v1_spore_file(sink: Sink, document: object, place: str) -> None:
    """The 1.0.2 spore file ``{spores: [...], resolved: [...], schema_version}``."""
    for key, where, entry in _sidecar_entries(document, place, ("spores", "resolved")):
        ident = _text(entry.get("id"), where, "id")
        item = spore_item(entry, where)
        sink.spore(SporeRecord(place=where, ident=ident, resolved=key == "resolved", data=item))
