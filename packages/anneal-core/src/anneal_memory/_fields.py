"""Checks shared by the crystal and spore rooms: bounded printable text, slugs, days.

Each check takes the error class to raise, so a caller's refusal names its own room.
"""

from __future__ import annotations

import datetime as _dt
import re

__all__ = ["check_day", "check_slug", "check_text", "today"]

_SLUG = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def today(now: _dt.datetime) -> _dt.date:
    """The UTC day of ``now``."""
    return now.astimezone(_dt.timezone.utc).date()


def check_text(
    value: object,
    name: str,
    *,
    limit: int,
    error: type[ValueError],
    allow_empty: bool = False,
    multiline: bool = True,
) -> str:
    """Return ``value`` stripped, when it is a str of at most ``limit`` characters.

    Control characters other than newline and tab are refused (``multiline=False`` refuses
    those too), so stored text cannot rewrite a terminal or break a one-line listing.
    """
    if not isinstance(value, str):
        raise error(f"{name} must be text, got {type(value).__name__}")
    text = value.strip()
    if not text and not allow_empty:
        raise error(f"{name} is empty; give it some text")
    if len(text) > limit:
        raise error(f"{name} is {len(text)} characters; the limit is {limit}")
    allowed = "\n\t" if multiline else ""
    bad = next((c for c in text if not c.isprintable() and c not in allowed), None)
    if bad is not None:
        raise error(f"{name} contains the control character {bad!r}; remove it")
    return text


def check_slug(value: object, name: str, *, limit: int, error: type[ValueError]) -> str:
    """Return ``value`` when it is a slug: a letter or digit, then letters, digits, ``_.-``."""
    if not isinstance(value, str) or not _SLUG.fullmatch(value) or len(value) > limit:
        raise error(
            f"{name} must be 1-{limit} characters: a letter or digit, then letters, digits, "
            f"'_', '.' or '-' (got {value!r})"
        )
    return value


def check_day(value: object, name: str, *, error: type[ValueError]) -> str:
    """Return ``value`` when it is a real calendar day written ``YYYY-MM-DD``."""
    if isinstance(value, str) and _DAY.fullmatch(value):
        try:
            _dt.date.fromisoformat(value)
        except ValueError:
            pass
        else:
            return value
    raise error(f"{name} must be a date written YYYY-MM-DD (got {value!r})")
