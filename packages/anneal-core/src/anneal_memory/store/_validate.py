"""Checks on everything a caller passes to ``record``; pure, raises before any write."""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Mapping
from typing import Any, NamedTuple

from anneal_memory._clock import Clock, format_timestamp, parse_timestamp
from anneal_memory.errors import InvalidEpisodeError
from anneal_memory.types import EpisodeType

__all__ = [
    "MAX_CONTENT_BYTES",
    "MAX_IDEMPOTENCY_KEY_CHARS",
    "MAX_METADATA_BYTES",
    "MAX_SOURCE_CHARS",
    "EpisodeInput",
    "validate_episode",
]

MAX_CONTENT_BYTES = 65_536
MAX_METADATA_BYTES = 16_384
MAX_SOURCE_CHARS = 64
MAX_IDEMPOTENCY_KEY_CHARS = 200


class EpisodeInput(NamedTuple):
    """A validated, normalised episode ready to be written (a named tuple: cheap to define).

    Built by keyword only (:func:`validate_episode`, the import sinks); copied with
    ``_replace``.
    """

    content: str
    type: EpisodeType
    source: str
    metadata_json: str | None
    timestamp: str
    idempotency_key: str | None
    scope: str = ""
    redacted: tuple[str, ...] = ()  # kinds the redaction step replaced (for the audit entry)


def _text(value: object, what: str) -> str:
    if isinstance(value, (bytes, bytearray, memoryview)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidEpisodeError(
                f"{what} is not valid UTF-8 (bad byte at offset {exc.start}); "
                "decode it correctly or pass text"
            ) from None
    if not isinstance(value, str):
        raise InvalidEpisodeError(f"{what} must be text, got {type(value).__name__}")
    return value


def _utf8_size(text: str, what: str) -> int:
    if text.isascii():  # O(1) in CPython; ASCII is one byte per character, no surrogates
        return len(text)
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise InvalidEpisodeError(
            f"{what} contains a lone surrogate (U+{ord(text[exc.start]):04X}) at position "
            f"{exc.start}, which is not valid Unicode text; repair the string before recording"
        ) from None


def _content(value: object) -> str:
    content = _text(value, "content")
    if not content or content.isspace():
        raise InvalidEpisodeError(
            "episode content is empty or only whitespace; record what was observed or decided"
        )
    if "\x00" in content:
        raise InvalidEpisodeError(
            f"content contains a NUL character at position {content.index(chr(0))}; "
            "episodes are text, remove it"
        )
    size = _utf8_size(content, "content")
    if size > MAX_CONTENT_BYTES:
        raise InvalidEpisodeError(
            f"content is {size:,} bytes of UTF-8, over the {MAX_CONTENT_BYTES:,}-byte limit; "
            "record a summary or split it into several episodes"
        )
    return content


def _source(value: object) -> str:
    source = _text(value, "source").strip()
    if not source or len(source) > MAX_SOURCE_CHARS or not source.isprintable():
        raise InvalidEpisodeError(
            f"source must be 1-{MAX_SOURCE_CHARS} printable characters, got {value!r}"
        )
    _utf8_size(source, "source")
    return source


def validate_scope(value: object, *, error: type[ValueError] = InvalidEpisodeError) -> str:
    """A scope: "" (shared) or at most ``MAX_SOURCE_CHARS`` printable characters."""
    if not isinstance(value, str) or len(value) > MAX_SOURCE_CHARS or not value.isprintable():
        raise error(f"scope must be up to {MAX_SOURCE_CHARS} printable characters, got {value!r}")
    return value


def _metadata(value: Mapping[str, Any] | None) -> str | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise InvalidEpisodeError(f"metadata must be a mapping, got {type(value).__name__}")
    try:
        encoded = json.dumps(dict(value), ensure_ascii=False, allow_nan=False, sort_keys=True)
        size = len(encoded.encode("utf-8"))
    except (TypeError, ValueError) as exc:
        raise InvalidEpisodeError(
            f"metadata must be a JSON object with string keys and finite values: {exc}"
        ) from None
    if size > MAX_METADATA_BYTES:
        raise InvalidEpisodeError(
            f"metadata is {size:,} bytes as JSON, over the {MAX_METADATA_BYTES:,}-byte limit"
        )
    return encoded if value else None


def _timestamp(value: _dt.datetime | str | None, clock: Clock) -> str:
    if value is None:
        return format_timestamp(clock.now())
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None:
            raise InvalidEpisodeError("timestamp has no timezone; pass an aware datetime")
        return format_timestamp(value)
    if isinstance(value, str):
        try:
            return format_timestamp(parse_timestamp(value))
        except ValueError as exc:
            raise InvalidEpisodeError(f"timestamp {value!r} is not usable: {exc}") from None
    raise InvalidEpisodeError(f"timestamp must be a datetime or ISO-8601 string, not {value!r}")


def _idempotency_key(value: object) -> str | None:
    if value is None:
        return None
    key = _text(value, "idempotency_key")
    if not key or len(key) > MAX_IDEMPOTENCY_KEY_CHARS:
        raise InvalidEpisodeError(
            f"idempotency_key must be 1-{MAX_IDEMPOTENCY_KEY_CHARS} characters"
        )
    _utf8_size(key, "idempotency_key")
    return key


def validate_episode(
    content: object,
    episode_type: object,
    *,
    source: object,
    metadata: Mapping[str, Any] | None,
    timestamp: _dt.datetime | str | None,
    idempotency_key: object,
    clock: Clock,
    scope: object = "",
) -> EpisodeInput:
    """Validate and normalise one episode (``scope``: see :func:`validate_scope`).

    Raises:
        InvalidEpisodeError: Any field is unusable; the message names the field and the fix.
    """
    try:
        kind = EpisodeType.parse(episode_type)  # type: ignore[arg-type]
    except ValueError as exc:
        raise InvalidEpisodeError(str(exc)) from None
    return EpisodeInput(
        content=_content(content),
        type=kind,
        source=_source(source),
        metadata_json=_metadata(metadata),
        timestamp=_timestamp(timestamp, clock),
        idempotency_key=_idempotency_key(idempotency_key),
        scope="" if scope == "" else validate_scope(scope),
    )
