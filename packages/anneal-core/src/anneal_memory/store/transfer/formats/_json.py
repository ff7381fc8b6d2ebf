"""Streaming readers for the two JSON export documents: ours and the public 1.0.2's.

Both exporters write their identifying member first (``format`` for ours, sorted keys;
``anneal_memory_export`` for 1.0.2), so the format is known before the episodes arrive.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from anneal_memory._clock import Clock
from anneal_memory.errors import ImportFormatError, InvalidEpisodeError
from anneal_memory.store._validate import validate_episode, validate_scope
from anneal_memory.store.transfer._episodes import EXPORT_FORMAT, EXPORT_FORMAT_VERSION
from anneal_memory.store.transfer._links import parse_provenance, tombstone_provenance
from anneal_memory.store.transfer._records import (
    ContinuityRecord,
    CrystalRecord,
    DerivedRecord,
    EpisodeRecord,
    Kind,
    SourceFormat,
    SporeRecord,
    StateKeyRecord,
    SupersessionRecord,
    TombstoneRecord,
    TrustRecord,
    WorthRecord,
)
from anneal_memory.store.transfer._restore import HISTORY_KEYS
from anneal_memory.store.transfer._sink import Sink
from anneal_memory.store.transfer._stream import JsonDocument
from anneal_memory.store.transfer.formats._v1 import (
    check_depth,
    check_id,
    metadata_of,
    v1_association,
    v1_episode,
    v1_supersession,
    v1_wrap,
)
from anneal_memory.types import Trust

__all__ = ["read_export", "sniff_format"]

_MAX_HEADER = 64


def sniff_format(header: Mapping[str, Any], name: str) -> SourceFormat:
    """Tell our export from a 1.0.2 one by the members read before ``episodes``."""
    if header.get("format") == EXPORT_FORMAT:
        if header.get("format_version") != EXPORT_FORMAT_VERSION:
            raise ImportFormatError(
                f"{name}: export format_version {header.get('format_version')!r} is not "
                f"supported (this version reads {EXPORT_FORMAT_VERSION}); export again with "
                "a matching anneal-memory"
            )
        return SourceFormat.EXPORT
    if header.get("anneal_memory_export") is True:
        if header.get("format_version") != 1:
            raise ImportFormatError(
                f"{name}: a 1.0.2 export with format_version "
                f"{header.get('format_version')!r} is not supported (expected 1)"
            )
        return SourceFormat.V1_EXPORT
    raise ImportFormatError(
        f"{name} is not an export anneal-memory can read: expected a JSON object whose "
        "first members are 'format' (anneal-memory) or 'anneal_memory_export' (1.0.2)"
    )


def _our_episode(sink: Sink, raw: object, place: str, clock: Clock) -> None:
    if not isinstance(raw, Mapping):
        raise ImportFormatError(f"{place} is not an object")
    ident = check_id(raw.get("id"), place)
    try:
        item = validate_episode(
            raw.get("content"),
            raw.get("type"),
            source=raw.get("source", "agent"),
            metadata=metadata_of(raw.get("metadata") or None, place),
            timestamp=raw.get("timestamp"),
            idempotency_key=raw.get("idempotency_key"),
            clock=clock,
        )
        item = item._replace(scope=validate_scope(raw.get("scope", "")))
    except InvalidEpisodeError as exc:
        raise ImportFormatError(f"{place} ({ident}) is invalid: {exc}") from None
    sink.episode(EpisodeRecord(place=place, ident=ident, item=item))
    _our_provenance(sink, raw, ident, place)


def _our_provenance(sink: Sink, raw: Mapping[str, Any], ident: str, place: str) -> None:
    """Hand on what ``import_json`` restores of an episode: trust, state key, sources."""
    trust, key, sources = parse_provenance(ident, raw)
    if trust is not Trust.AGENT:
        sink.trust(TrustRecord(place=place, episode_id=ident, trust=trust.value))
    if key is not None:
        sink.state_key(StateKeyRecord(place=place, episode_id=ident, key=key, set_at=""))
    for source_id in sources:
        sink.derived(DerivedRecord(place=place, episode_id=ident, source_id=source_id))


def _our_link(sink: Sink, raw: object, place: str) -> None:
    if not isinstance(raw, Mapping):
        raise ImportFormatError(f"{place} is malformed: expected {{old_id, new_id, via}}")
    via = raw.get("via")
    if via not in {"explicit", "wrap"}:
        raise ImportFormatError(f"{place} has an invalid via {via!r} (explicit or wrap)")
    sink.supersession(
        SupersessionRecord(
            place=place,
            old_id=check_id(raw.get("old_id"), place, "old_id"),
            new_id=check_id(raw.get("new_id"), place, "new_id"),
            source=str(via),
            recorded_at=str(raw.get("created_at", "")),
        )
    )


_WORTH_KINDS = {
    "exposures": Kind.EXPOSURES,
    "worth_totals": Kind.WORTH_TOTALS,
    "probes": Kind.PROBES,
}
_OUR_MEMBERS = frozenset(("supersessions", "crystals", "spores", *_WORTH_KINDS))


def _our_member(sink: Sink, raw: object, place: str, key: str) -> None:
    if key == "supersessions":
        _our_link(sink, raw, place)
        return
    if not isinstance(raw, Mapping):
        raise ImportFormatError(f"{place} is not an object")
    check_depth(raw, place)
    if key in _WORTH_KINDS:
        sink.worth(_WORTH_KINDS[key], WorthRecord(place=place, data=raw))
    elif key == "crystals":
        name = raw.get("name")
        if not isinstance(name, str):
            raise ImportFormatError(f"{place} has an invalid 'name': {name!r}")
        retired = raw.get("retired_kind") is not None
        sink.crystal(CrystalRecord(place=place, name=name, retired=retired, data=raw))
    else:
        resolved = raw.get("status") == "resolved"
        ident = str(raw.get("id"))
        sink.spore(SporeRecord(place=place, ident=ident, resolved=resolved, data=raw))


def _our_tombstone(sink: Sink, raw: object, place: str) -> None:
    if not isinstance(raw, Mapping):
        raise ImportFormatError(f"{place} is malformed: expected {{id, deleted_at, reason}}")
    ident = check_id(raw.get("id"), place)
    kept = tombstone_provenance(raw, place, Trust.OPERATOR)  # checked here, capped by the sink
    sink.tombstone(
        TombstoneRecord(
            place=place,
            ident=ident,
            deleted_at=str(raw.get("deleted_at", "")),
            reason=str(raw.get("reason", "import"))[:64],
            trust=kept.trust,
            derived_from=kept.derived_from,
        )
    )


def _history_member(sink: Sink, doc: JsonDocument, key: str) -> None:
    """Hold one of our export's history members until the episodes are in (``_restore``)."""
    if key == "policy":
        sink.history.add(key, doc.value(key))
        return
    for raw in doc.items(key):
        sink.history.add(key, raw)


def _our_rest(sink: Sink, doc: JsonDocument, key: str) -> None:
    """Our export's members after ``episodes`` (unknown members are skipped)."""
    if key == "tombstones":
        for index, raw in enumerate(doc.items("tombstones")):
            _our_tombstone(sink, raw, f"tombstones[{index}]")
    elif key in _OUR_MEMBERS:
        for index, raw in enumerate(doc.items(key)):
            _our_member(sink, raw, f"{key}[{index}]", key)
    elif key in HISTORY_KEYS:
        _history_member(sink, doc, key)


def _member(
    sink: Sink, doc: JsonDocument, key: str, fmt: SourceFormat, clock: Clock
) -> ContinuityRecord | None:
    if key == "episodes":
        reader = _our_episode if fmt is SourceFormat.EXPORT else v1_episode
        for index, raw in enumerate(doc.items("episodes")):
            reader(sink, raw, f"episodes[{index}]", clock)
    elif fmt is SourceFormat.EXPORT:
        _our_rest(sink, doc, key)
    elif key in {"associations", "supersessions", "wraps"} and fmt is SourceFormat.V1_EXPORT:
        handler = {"associations": v1_association, "supersessions": v1_supersession}
        for index, raw in enumerate(doc.items(key)):
            handler.get(key, v1_wrap)(sink, raw, f"{key}[{index}]")
    elif key == "continuity" and fmt is SourceFormat.V1_EXPORT:
        text = doc.value("continuity")
        if text is not None:
            if not isinstance(text, str):
                raise ImportFormatError("continuity must be text or null")
            return ContinuityRecord(place="continuity", text=text)
    return None


def read_export(
    sink: Sink, doc: JsonDocument, *, name: str, clock: Clock
) -> tuple[SourceFormat, ContinuityRecord | None]:
    """Stream an export into ``sink``; return its format and its continuity (if any)."""
    header: dict[str, Any] = {}
    fmt: SourceFormat | None = None
    continuity = None
    for key in doc.members():
        if fmt is None and key != "episodes":
            if len(header) >= _MAX_HEADER:
                raise ImportFormatError(f"{name} has too many members before 'episodes'")
            header[key] = doc.value(repr(key))
            continue
        if fmt is None:
            fmt = sniff_format(header, name)
            sink.set_format(fmt)
        found = _member(sink, doc, key, fmt, clock)
        continuity = found or continuity
    if fmt is None:
        sniff_format(header, name)
        raise ImportFormatError(f"{name} has no 'episodes' list; it is not a complete export")
    return fmt, continuity
