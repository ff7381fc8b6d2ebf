"""Reader for the reference MCP memory server's file (``memory.json`` / ``memory.jsonl``).

The server (``@modelcontextprotocol/server-memory``) keeps a knowledge graph as JSON Lines,
one object per line: ``{"type":"entity","name":..,"entityType":..,"observations":[..]}`` or
``{"type":"relation","from":..,"to":..,"relationType":..}``. Each observation becomes an
observation episode naming its entity, an entity without observations one context episode,
and each relation one context episode. The source has no ids or times: episodes are stamped
with the import time, and a key derived from their text makes a second import skip them.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import IO, Any

from anneal_memory._clock import Clock
from anneal_memory.errors import ImportFormatError, InvalidEpisodeError
from anneal_memory.store._validate import validate_episode
from anneal_memory.store.transfer._records import EpisodeRecord, Kind
from anneal_memory.store.transfer._sink import Sink
from anneal_memory.store.transfer._stream import iter_json_lines

__all__ = ["SOURCE", "looks_like_server_memory", "read_server_memory"]

SOURCE = "server-memory"
_KINDS = ("entity", "relation")
_LINE_START = re.compile(rb'\{\s*"type"\s*:\s*"(?:entity|relation)"')


def looks_like_server_memory(first_line: bytes) -> bool:
    """True when the first line starts as the server writes each line: ``{"type":"entity"``.

    The server always puts ``type`` first; the line itself may be longer than what was read.
    """
    return _LINE_START.match(first_line) is not None


def _field(item: Mapping[str, Any], key: str, place: str) -> str:
    value = item.get(key)
    if not isinstance(value, str):
        raise ImportFormatError(f"{place}: {key!r} must be text, got {value!r}")
    return value


def _named(name: str, entity_type: str) -> str:
    return f"{name} ({entity_type})" if entity_type.strip() else name


def _key(*parts: str) -> str:
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
    return f"{SOURCE}:{digest[:40]}"


def _episode(
    sink: Sink, place: str, clock: Clock, *, text: str, kind: str, meta: dict[str, str]
) -> None:
    try:
        item = validate_episode(
            text,
            kind,
            source=SOURCE,
            metadata={"imported_from": SOURCE, **meta},
            timestamp=None,
            idempotency_key=_key(kind, text, *sorted(f"{k}={v}" for k, v in meta.items())),
            clock=clock,
        )
    except InvalidEpisodeError as exc:
        raise ImportFormatError(f"{place} is not importable: {exc}") from None
    sink.episode(EpisodeRecord(place=place, ident=None, item=item))


def _entity(sink: Sink, item: Mapping[str, Any], place: str, clock: Clock) -> None:
    name = _field(item, "name", place)
    entity_type = _field(item, "entityType", place)
    observations = item.get("observations", [])
    if not isinstance(observations, list):
        raise ImportFormatError(f"{place}: 'observations' must be a list of text")
    sink.count(Kind.ENTITIES).found += 1
    meta = {"entity": name, "entity_type": entity_type}
    if not observations:
        _episode(sink, place, clock, text=_named(name, entity_type), kind="context", meta=meta)
    for index, observation in enumerate(observations):
        where = f"{place} observation {index + 1}"
        if not isinstance(observation, str):
            raise ImportFormatError(f"{where} must be text, got {type(observation).__name__}")
        text = f"{_named(name, entity_type)}: {observation}"
        _episode(sink, where, clock, text=text, kind="observation", meta=meta)


def _relation(sink: Sink, item: Mapping[str, Any], place: str, clock: Clock) -> None:
    start = _field(item, "from", place)
    end = _field(item, "to", place)
    relation = _field(item, "relationType", place)
    sink.count(Kind.RELATIONS).found += 1
    meta = {"relation_from": start, "relation_type": relation, "relation_to": end}
    _episode(sink, place, clock, text=f"{start} {relation} {end}", kind="context", meta=meta)


def read_server_memory(sink: Sink, source: IO[bytes], *, name: str, clock: Clock) -> None:
    """Stream a server-memory file into ``sink`` line by line."""
    for number, item in iter_json_lines(source, name=name):
        place = f"{name} line {number}"
        if not isinstance(item, Mapping) or item.get("type") not in _KINDS:
            raise ImportFormatError(
                f"{place} is not an entity or relation object (its 'type' must be "
                "'entity' or 'relation')"
            )
        if item["type"] == "entity":
            _entity(sink, item, place, clock)
        else:
            _relation(sink, item, place, clock)
