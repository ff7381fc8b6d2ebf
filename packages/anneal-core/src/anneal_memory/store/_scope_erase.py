"""``erase_scope``: a scope's memory and every trace of its name leave the store.

Deleting every episode of a scope used to leave its name in ``wraps``, ``patterns``,
``pattern_history`` and the continuity file's name (issue #24 item 16). Erasing a scope, in
one write transaction under the scope's continuity lock: its episodes are deleted as
``delete`` deletes them (a tombstone keeps each id, no text; their links go with them), its
wraps (an open one too), pattern levels and their history are removed, and its continuity
(the row on PostgreSQL) with them; after the commit the continuity file and its lock file
beside a SQLite store are removed, and the deleted text is purged from the search index and
the write-ahead log. One audit entry, ``scope_erased``, records the counts and the scope's
salted hash (``scope_hash``), never the name: the append-only trail cannot forget it.
Crystals and spores belong to no scope, and so stay.

Killed after the commit and before the files went, a second run removes what is left.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from anneal_memory._clock import format_timestamp
from anneal_memory._scope_files import LOCK_SUFFIX
from anneal_memory.errors import InvalidInputError
from anneal_memory.store._episodes import delete_episode, set_meta
from anneal_memory.store._validate import validate_scope

if TYPE_CHECKING:
    from anneal_memory._clock import Clock
    from anneal_memory.store._contract import ContinuityPlace, Tx


class _Erasing(Protocol):
    """What erasing needs of a ``Store`` (typed here: ``_store`` imports this module)."""

    @property
    def clock(self) -> Clock: ...
    def continuity_place(self, scope: str = "") -> ContinuityPlace: ...
    def writing(
        self, operation: str, *, durable: bool = True
    ) -> contextlib.AbstractContextManager[Tx]: ...


__all__ = ["ScopeErasure", "erase_scope"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ScopeErasure:
    """What :func:`erase_scope` removed.

    Attributes:
        episodes: Episodes deleted (tombstones keep their ids).
        wraps: Wraps removed (completed, cancelled and open).
        patterns: Pattern levels removed.
        pattern_steps: Rows of pattern history removed.
        continuity: True when a continuity text (file or row) was removed.
    """

    episodes: int
    wraps: int
    patterns: int
    pattern_steps: int
    continuity: bool

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict of every field."""
        return {
            "episodes": self.episodes,
            "wraps": self.wraps,
            "patterns": self.patterns,
            "pattern_steps": self.pattern_steps,
            "continuity": self.continuity,
        }

    @property
    def anything(self) -> bool:
        """True when the scope left any trace at all."""
        return bool(self.episodes or self.wraps or self.patterns or self.pattern_steps) or (
            self.continuity
        )


def _count(conn: Any, sql: str, scope: str) -> int:
    return int(conn.execute(sql, (scope,)).fetchone()[0])


def erase_scope(store: _Erasing, scope: str, *, allow_default: bool = False) -> ScopeErasure:
    """Erase ``scope``: its episodes, wraps, pattern levels and history, its continuity.

    The shared scope ``""`` is every unscoped episode of the store; it is erased only with
    ``allow_default=True``.

    Raises:
        InvalidInputError: ``scope`` is not a scope, or is ``""`` without ``allow_default``.
    """
    scope = validate_scope(scope, error=InvalidInputError)
    if scope == "" and not allow_default:
        raise InvalidInputError(
            'the default scope "" is the store\'s shared memory (every unscoped episode); '
            "erase it only on purpose: allow_default=True (CLI: --default-scope)"
        )
    place = store.continuity_place(scope)
    with place.lock(), store.writing("erase_scope") as tx:
        conn = tx.conn
        had_text = place.read(conn) is not None
        rows = conn.execute("SELECT id FROM episodes WHERE scope = ?", (scope,)).fetchall()
        ids = [str(r[0]) for r in rows]
        now = format_timestamp(store.clock.now())
        deleted = sum(delete_episode(conn, ident, now=now, reason="erase-scope") for ident in ids)
        if deleted:
            tx.dialect.episodes_deleted()
        steps = _count(conn, "SELECT count(*) FROM pattern_history WHERE scope = ?", scope)
        patterns = _count(conn, "SELECT count(*) FROM patterns WHERE scope = ?", scope)
        wraps = _count(conn, "SELECT count(*) FROM wraps WHERE scope = ?", scope)
        conn.execute("DELETE FROM pattern_history WHERE scope = ?", (scope,))
        conn.execute("DELETE FROM patterns WHERE scope = ?", (scope,))
        conn.execute("DELETE FROM wraps WHERE scope = ?", (scope,))
        place.erase(conn)
        result = ScopeErasure(
            episodes=deleted,
            wraps=wraps,
            patterns=patterns,
            pattern_steps=steps,
            continuity=had_text,
        )
        if result.anything:
            set_meta(conn, [("last_write", now)])
            tx.audit("scope_erased", actor="operator", data={"scope": scope, **result.to_dict()})
    place.erased()
    if isinstance(place.label, Path):  # the lock file names the scope too
        with contextlib.suppress(OSError):
            place.label.with_name(place.label.name + LOCK_SUFFIX).unlink()
    return result
