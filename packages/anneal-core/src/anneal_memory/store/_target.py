"""Which backend a ``Store`` target names: a SQLite file path or a PostgreSQL URL.

Stdlib only and tiny: ``Store`` asks it on every construction, and SQLite users never import
the PostgreSQL modules (:mod:`anneal_memory.store.postgres`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = [
    "POSTGRES_SCHEMES",
    "database_url",
    "file_of",
    "is_database_url",
    "location_of",
    "redact_url",
]

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_database_url(target: object) -> bool:
    """True when ``target`` is a PostgreSQL connection URL (``postgresql://...``)."""
    return isinstance(target, str) and target.lower().startswith(POSTGRES_SCHEMES)


def database_url(db_arg: str | None, env_value: str | None) -> str | None:
    """The PostgreSQL URL a command names (``--db``, else ``$ANNEAL_MEMORY_DB``), or None."""
    raw = db_arg or env_value or None
    return raw if is_database_url(raw) else None


def file_of(store: Any) -> Path | None:
    """The SQLite file of ``store`` (for error messages), None for a PostgreSQL store."""
    return None if store.url is not None else Path(store.path)


def location_of(store: Any) -> str:
    """What ``--db`` names for ``store``: its file, or its URL without the password."""
    return str(store.url) if store.url is not None else str(store.path)


def redact_url(url: str) -> str:
    """``url`` without its password, for messages and ``status()`` (never echo credentials)."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return "<a database URL>"
    authority, slash, tail = rest.partition("/")
    if "@" in authority:
        userinfo, host = authority.rsplit("@", 1)
        user = userinfo.split(":", 1)[0]
        authority = f"{user}@{host}" if user else host
    path, qmark, query = tail.partition("?")
    if qmark:
        import urllib.parse

        pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)
        if any(key.lower() == "password" for key, _ in pairs):
            query = urllib.parse.urlencode(
                [(k, "***" if k.lower() == "password" else v) for k, v in pairs], safe="/*"
            )
    return f"{scheme}://{authority}{slash}{path}{qmark}{query}"
