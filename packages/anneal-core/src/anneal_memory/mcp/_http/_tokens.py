"""Bearer tokens for the HTTP server: a 0600 JSON file of hashed tokens, each bound to a scope.

A token is 32 random bytes (``secrets.token_urlsafe``), shown once when it is added; the file
keeps only its SHA-256 (a token is random, so a slow password hash would add nothing). Each
entry binds the token to a scope (the store it may reach) and to the gate session id the
server uses for that token's calls, so a remote client never chooses its own session id.
The file is rewritten atomically and refused when group or others may read it, or when it
is not a regular file (a link, a FIFO: see ``_sidefile``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import stat
from pathlib import Path
from typing import Any, NamedTuple

from anneal_memory._fsio import atomic_write_text, ensure_private_dir
from anneal_memory._sidefile import open_file
from anneal_memory.errors import InvalidInputError, StoreError

__all__ = [
    "MAX_TOKEN_FILE_BYTES",
    "TOKEN_PREFIX",
    "HttpToken",
    "TokenFile",
    "validate_scope",
]

TOKEN_PREFIX = "amt_"
MAX_TOKEN_FILE_BYTES = 1024 * 1024
_FORMAT = "anneal-memory/http-tokens"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_SCOPE = re.compile(r"[a-z][a-z0-9_]{0,62}")
_MAX_SESSION_ID = 128


class HttpToken(NamedTuple):
    """One token's entry (never the token itself).

    Attributes:
        name: The operator's name for it (unique in the file).
        scope: The store it reaches (``default`` is the ``--db`` store).
        session_id: The gate session id of every call made with it.
        digest: SHA-256 of the token, hex.
    """

    name: str
    scope: str
    session_id: str
    digest: str


def validate_scope(scope: str) -> str:
    """Return ``scope`` if it is a valid scope name (also a plain PostgreSQL schema name).

    Raises:
        InvalidInputError: It is not.
    """
    if not _SCOPE.fullmatch(scope):
        raise InvalidInputError(
            f"scope must be 1-63 lowercase letters, digits or '_' starting with a letter, "
            f"got {scope!r}"
        )
    return scope


def _validate(name: str, session_id: str) -> None:
    if not _NAME.fullmatch(name):
        raise InvalidInputError(
            f"token name must be 1-64 letters, digits, '.', '_' or '-', got {name!r}"
        )
    if not session_id.strip() or len(session_id) > _MAX_SESSION_ID or not session_id.isprintable():
        raise InvalidInputError(
            f"session id must be 1-{_MAX_SESSION_ID} printable characters, got {session_id!r}"
        )


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _entry(raw: object, path: Path) -> HttpToken:
    fields = HttpToken._fields
    if not isinstance(raw, dict) or not all(isinstance(raw.get(f), str) for f in fields):
        raise StoreError(
            f"the token file {path} has a malformed entry; fix or remove it",
            operation="read tokens",
            path=path,
        )
    return HttpToken(**{f: raw[f] for f in fields})


class TokenFile:
    """The token file at ``path`` (read on every lookup, so revocation needs no restart).

    Args:
        path: The file; created 0600 (its folder 0700) by the first :meth:`add`.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def _read(self) -> list[HttpToken]:
        try:
            fd = open_file(self.path, what="the token file")
        except OSError as exc:
            raise StoreError(
                f"cannot read the token file {self.path}: {exc.strerror}",
                operation="read tokens",
                path=self.path,
            ) from None
        if fd is None:
            return []
        with os.fdopen(fd, "rb") as handle:
            if stat.S_IMODE(os.fstat(handle.fileno()).st_mode) & 0o077:
                raise StoreError(
                    f"the token file {self.path} is readable by others; run chmod 600 {self.path}",
                    operation="read tokens",
                    path=self.path,
                )
            data = handle.read(MAX_TOKEN_FILE_BYTES + 1)
        return self._parse(data)

    def _parse(self, data: bytes) -> list[HttpToken]:
        try:
            document = json.loads(data) if len(data) <= MAX_TOKEN_FILE_BYTES else None
        except ValueError:
            document = None
        if not isinstance(document, dict) or document.get("format") != _FORMAT:
            raise StoreError(
                f"{self.path} is not an anneal-memory token file",
                operation="read tokens",
                path=self.path,
            )
        tokens = document.get("tokens")
        if not isinstance(tokens, list):
            tokens = [None]
        return [_entry(raw, self.path) for raw in tokens]

    def _write(self, tokens: list[HttpToken]) -> None:
        document: dict[str, Any] = {
            "format": _FORMAT,
            "tokens": [t._asdict() for t in tokens],
        }
        ensure_private_dir(self.path.parent)
        atomic_write_text(self.path, json.dumps(document, indent=2) + "\n")

    def entries(self) -> list[HttpToken]:
        """Every token entry, in the order added."""
        return self._read()

    def add(self, name: str, *, scope: str, session_id: str) -> str:
        """Add a token and return it (the only time it is shown).

        Raises:
            InvalidInputError: A bad name, scope or session id, or the name is taken.
        """
        _validate(name, session_id)
        validate_scope(scope)
        tokens = self._read()
        if any(t.name == name for t in tokens):
            raise InvalidInputError(
                f"a token named {name!r} exists; revoke it first or choose another name"
            )
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        tokens.append(HttpToken(name, scope, session_id, _digest(token)))
        self._write(tokens)
        return token

    def revoke(self, name: str) -> bool:
        """Remove the token called ``name``; False when there was none."""
        tokens = self._read()
        kept = [t for t in tokens if t.name != name]
        if len(kept) == len(tokens):
            return False
        self._write(kept)
        return True

    def authenticate(self, token: str) -> HttpToken | None:
        """The entry ``token`` belongs to, or None (compared in constant time per entry)."""
        digest = _digest(token)
        found = None
        for entry in self._read():
            if hmac.compare_digest(entry.digest, digest):
                found = entry
        return found
