"""The ``?``-placeholder SQL of the library modules, as psycopg query text.

The library modules write their SQL once, in the subset both engines share, with SQLite's
placeholders: ``?`` (the next parameter) or ``?N`` (parameter N, 1-based, usable several
times). :func:`translate` turns each placeholder outside quoted literals, quoted identifiers
and comments into psycopg's ``%s`` and doubles every literal ``%`` (psycopg would read it as
a placeholder); for ``?N`` it also says which parameter each ``%s`` takes
(:func:`arrange`). Values are never put into the text: they travel as parameters.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["SqlTextError", "Translated", "arrange", "translate"]

_QUOTES = {"'": "'", '"': '"'}


class SqlTextError(ValueError):
    """The SQL text cannot be translated (an unterminated quote or comment, a ``$`` quote)."""


@dataclass(frozen=True, slots=True)
class Translated:
    """psycopg query text, and for ``?N`` SQL the 0-based parameter each ``%s`` takes."""

    text: str
    order: tuple[int, ...] | None = None


def _skip_quoted(sql: str, start: int, quote: str) -> int:
    """The index just past the quoted run opening at ``start`` (a doubled quote escapes)."""
    i = start + 1
    while True:
        end = sql.find(quote, i)
        if end < 0:
            raise SqlTextError(f"unterminated {quote} quote in SQL: {sql[:60]!r}")
        if sql.startswith(quote, end + 1):
            i = end + 2
            continue
        return end + 1


def _skip_comment(sql: str, start: int) -> int:
    """The index just past the comment opening at ``start``, or ``start`` if none opens."""
    if sql.startswith("--", start):
        end = sql.find("\n", start)
        return len(sql) if end < 0 else end + 1
    if sql.startswith("/*", start):
        end = sql.find("*/", start + 2)
        if end < 0:
            raise SqlTextError(f"unterminated comment in SQL: {sql[:60]!r}")
        return end + 2
    return start


def _digits_end(sql: str, start: int) -> int:
    end = start
    while end < len(sql) and sql[end].isdigit():
        end += 1
    return end


@functools.lru_cache(maxsize=1024)
def translate(sql: str) -> Translated:
    """``sql`` with its placeholders as ``%s`` and literal ``%`` doubled.

    Raises:
        SqlTextError: An unterminated quote or comment, ``?`` mixed with ``?N``, ``?0``, or
            ``$`` (dollar quotes and ``$1`` placeholders are not part of the shared subset).
    """
    out: list[str] = []
    numbered: list[int] = []
    plain = 0
    i, n = 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch in _QUOTES:
            end = _skip_quoted(sql, i, _QUOTES[ch])
            out.append(sql[i:end].replace("%", "%%"))
            i = end
        elif ch in "-/" and (end := _skip_comment(sql, i)) != i:
            out.append(sql[i:end].replace("%", "%%"))
            i = end
        elif ch == "?":
            end = _digits_end(sql, i + 1)
            if end > i + 1:
                number = int(sql[i + 1 : end])
                if number < 1:
                    raise SqlTextError(f"placeholder ?{number} in SQL: {sql[:60]!r}")
                numbered.append(number - 1)
            else:
                plain += 1
            out.append("%s")
            i = end
        elif ch == "%":
            out.append("%%")
            i += 1
        elif ch == "$":
            raise SqlTextError(f"'$' is not supported in shared SQL: {sql[:60]!r}")
        else:
            out.append(ch)
            i += 1
    if plain and numbered:
        raise SqlTextError(f"'?' mixed with '?N' placeholders in SQL: {sql[:60]!r}")
    return Translated("".join(out), tuple(numbered) if numbered else None)


def arrange(translated: Translated, parameters: Sequence[Any]) -> tuple[Any, ...]:
    """The parameters in the order the translated text takes them."""
    if translated.order is None:
        return tuple(parameters)
    return tuple(parameters[k] for k in translated.order)
