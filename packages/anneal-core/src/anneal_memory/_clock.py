"""Time comes from a Clock, so tests and demos can freeze or move it."""

from __future__ import annotations

import datetime as _dt
from typing import Protocol

__all__ = ["Clock", "SystemClock", "format_timestamp", "parse_time_bound", "parse_timestamp"]


class Clock(Protocol):
    """Something that tells the current time as an aware UTC datetime."""

    def now(self) -> _dt.datetime:
        """Return the current time, timezone-aware, in UTC."""
        ...


class SystemClock:
    """The real wall clock."""

    def now(self) -> _dt.datetime:
        """Return the current UTC time."""
        return _dt.datetime.now(_dt.timezone.utc)  # noqa: TID251


def format_timestamp(moment: _dt.datetime) -> str:
    """Render an aware datetime as fixed-width ISO-8601 UTC, e.g. ``2026-11-29T22:00:54.123456Z``.

    The fixed width makes string order equal time order, which the store's indexes rely on.
    """
    u = moment.astimezone(_dt.timezone.utc)
    # An f-string is about three times faster than strftime, and this runs on every write.
    return (
        f"{u.year:04d}-{u.month:02d}-{u.day:02d}T"
        f"{u.hour:02d}:{u.minute:02d}:{u.second:02d}.{u.microsecond:06d}Z"
    )


def parse_timestamp(text: str) -> _dt.datetime:
    """Parse an ISO-8601 timestamp with a zone (``Z`` or an offset) into an aware UTC datetime.

    Raises:
        ValueError: The text is not ISO-8601 or carries no zone.
    """
    cleaned = text.strip()
    if cleaned.endswith(("Z", "z")):
        cleaned = cleaned[:-1] + "+00:00"
    moment = _dt.datetime.fromisoformat(cleaned)
    if moment.tzinfo is None:
        raise ValueError(f"timestamp {text!r} has no timezone; add 'Z' or an offset like +02:00")
    return moment.astimezone(_dt.timezone.utc)


_RELATIVE = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_time_bound(value: _dt.datetime | str, clock: Clock) -> str:
    """Turn a recall time bound into the store's timestamp format.

    Accepts an aware datetime, an ISO-8601 string with a zone, or a relative age such as
    ``30m``, ``12h``, ``7d`` or ``2w`` (meaning that long before now).

    Raises:
        ValueError: The value is none of those.
    """
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None:
            raise ValueError("time bound datetime has no timezone; pass an aware datetime")
        return format_timestamp(value)
    text = value.strip()
    unit = text[-1:].lower()
    if unit in _RELATIVE and text[:-1].isdigit():
        age = _dt.timedelta(seconds=int(text[:-1]) * _RELATIVE[unit])
        return format_timestamp(clock.now() - age)
    try:
        return format_timestamp(parse_timestamp(text))
    except ValueError:
        raise ValueError(
            f"time bound {value!r} is neither ISO-8601 with a zone (2026-11-29T10:00:00Z) "
            "nor a relative age like 30m, 12h, 7d or 2w"
        ) from None
