"""Time comes from a Clock, so tests and demos can freeze or move it."""

from __future__ import annotations

import datetime as _dt
import re
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
_DATE_ONLY = re.compile(r"\d{4}-\d{2}-\d{2}")
_AGE = re.compile(r"(\d+)\s*([smhdwSMHDW])")
_DAY = _dt.timedelta(days=1)
_TICK = _dt.timedelta(microseconds=1)


def _age(count: str, unit: str, clock: Clock) -> _dt.datetime:
    try:
        return clock.now() - _dt.timedelta(seconds=int(count) * _RELATIVE[unit.lower()])
    except (OverflowError, ValueError):
        shown = count if len(count) <= 20 else count[:20] + "..."
        raise ValueError(
            f"age {shown}{unit} reaches before the year 1; use a smaller age or a date"
        ) from None


def _moment(text: str, *, end_of_day: bool) -> _dt.datetime:
    if _DATE_ONLY.fullmatch(text):
        day = _dt.date.fromisoformat(text)
        start = _dt.datetime(day.year, day.month, day.day, tzinfo=_dt.timezone.utc)
        if not end_of_day:
            return start
        try:
            return start + _DAY - _TICK
        except OverflowError:
            return _dt.datetime.max.replace(tzinfo=_dt.timezone.utc)
    cleaned = text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text
    moment = _dt.datetime.fromisoformat(cleaned)
    return moment if moment.tzinfo else moment.replace(tzinfo=_dt.timezone.utc)


def parse_time_bound(value: _dt.datetime | str, clock: Clock, *, end_of_day: bool = False) -> str:
    """Turn a recall time bound into the store's timestamp format.

    Accepts a datetime (naive ones are read as UTC), an ISO-8601 string (without a zone it
    is read as UTC), a date alone (``2026-03-01``: the start of that UTC day, or its last
    microsecond with ``end_of_day``, so an upper bound includes the whole day), or a
    relative age such as ``30m``, ``12h``, ``7d`` or ``2w`` (meaning that long before now).

    Raises:
        ValueError: The value is none of those, or lies outside the representable years.
    """
    if isinstance(value, _dt.datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=_dt.timezone.utc)
        try:
            return format_timestamp(moment)
        except OverflowError:
            raise ValueError(f"time bound {value!r} lies outside the years 1-9999") from None
    text = value.strip()
    if match := _AGE.fullmatch(text):
        return format_timestamp(_age(match.group(1), match.group(2), clock))
    shown = repr(text if len(text) <= 40 else text[:40] + "...")
    try:
        return format_timestamp(_moment(text, end_of_day=end_of_day))
    except OverflowError:
        raise ValueError(f"time bound {shown} lies outside the years 1-9999") from None
    except ValueError:
        raise ValueError(
            f"time bound {shown} is neither an ISO-8601 date or time (2026-03-01, "
            "2026-03-01T10:00:00, 2026-03-01T10:00:00Z) nor a relative age like 30m, 12h, 7d "
            "or 2w"
        ) from None
