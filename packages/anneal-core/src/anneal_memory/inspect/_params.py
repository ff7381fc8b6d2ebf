"""Query parameters of the inspector's JSON endpoints: checked, bounded, never trusted.

A bad value is an ``InvalidInputError`` (the app answers 400 with its message); numbers are
clamped to a page size, so no request reads a whole table.
"""

from __future__ import annotations

from collections.abc import Mapping

from anneal_memory.errors import InvalidInputError

__all__ = ["MAX_OFFSET", "MAX_PAGE", "Params", "scope_param"]

MAX_PAGE = 100
"""The most rows one page of any endpoint holds."""
MAX_OFFSET = 10_000
"""The deepest page: recall answers nothing past offset 10,000 either."""
_MAX_TEXT = 500


class Params:
    """The query string of one request (first value of each key)."""

    def __init__(self, values: Mapping[str, str]) -> None:
        self._values = dict(values)

    def text(self, key: str, default: str | None = None) -> str | None:
        """A string value (at most 500 characters), or ``default`` when absent or empty."""
        value = self._values.get(key)
        if value is None or value == "":
            return default
        if len(value) > _MAX_TEXT:
            raise InvalidInputError(f"{key} is longer than {_MAX_TEXT} characters")
        return value

    def required(self, key: str) -> str:
        """A string value that must be given."""
        value = self.text(key)
        if value is None:
            raise InvalidInputError(f"{key} is required")
        return value

    def number(self, key: str, default: int, *, low: int, high: int) -> int:
        """A whole number in ``[low, high]`` (``default`` when absent)."""
        raw = self.text(key)
        if raw is None:
            return default
        try:
            value = int(raw)
        except ValueError:
            raise InvalidInputError(f"{key} must be a whole number, got {raw[:40]!r}") from None
        if not low <= value <= high:
            raise InvalidInputError(f"{key} must be from {low} to {high}, got {value}")
        return value

    def page(self, default: int = 50) -> tuple[int, int]:
        """``(limit, offset)`` of a paginated endpoint."""
        return (
            self.number("limit", default, low=1, high=MAX_PAGE),
            self.number("offset", 0, low=0, high=MAX_OFFSET),
        )

    def present(self, key: str) -> bool:
        """True when the query string names ``key`` (even with an empty value)."""
        return key in self._values

    def flag(self, key: str) -> bool:
        """True for ``1``/``true``/``yes``."""
        return (self.text(key) or "").lower() in {"1", "true", "yes"}


def scope_param(params: Params, key: str = "scope") -> str | None:
    """A scope filter: absent means every scope (None); ``scope=`` means the shared one ("")."""
    if not params.present(key):
        return None
    return params.text(key) or ""
