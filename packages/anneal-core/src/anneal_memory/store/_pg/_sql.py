"""The ``?``-placeholder SQL of the library modules, as psycopg query text.

The library modules write their SQL once, in the subset both engines share, with SQLite's
``?`` placeholders. :func:`translate` turns each ``?`` outside quoted literals, quoted
identifiers and comments into psycopg's ``%s`` and doubles every literal ``%`` (psycopg would
read it as a placeholder). Values are never put into the text: they travel as parameters.
"""

from __future__ import annotations

import functools

__all__ = ["SqlTextError", "translate"]

_QUOTES = {"'": "'", '"': '"'}


class SqlTextError(ValueError):
    """The SQL text cannot be translated (an unterminated quote or comment, a ``$`` quote)."""


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


@functools.lru_cache(maxsize=1024)
def translate(sql: str) -> str:
    """``sql`` with ``?`` placeholders as ``%s`` and literal ``%`` doubled.

    Raises:
        SqlTextError: An unterminated quote or comment, or ``$`` (dollar quotes and ``$1``
            placeholders are not part of the shared subset).
    """
    out: list[str] = []
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
            out.append("%s")
            i += 1
        elif ch == "%":
            out.append("%%")
            i += 1
        elif ch == "$":
            raise SqlTextError(f"'$' is not supported in shared SQL: {sql[:60]!r}")
        else:
            out.append(ch)
            i += 1
    return "".join(out)
