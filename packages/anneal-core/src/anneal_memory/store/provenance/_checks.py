"""Trust classes, state keys and ``derived_from``: checks and reads.

Runs in the caller's transaction; never commits.

An episode's *effective* trust is its own trust, capped by the most trusted of the episodes
it was derived from (a summary of a web page is as strong as the page, whoever wrote it).
A deleted source still caps: its tombstone keeps its trust and ``derived_from``. A source
whose trust is unknown (deleted before tombstones kept it, or not carried by an import)
counts as ``external``; so does a chain of sources longer than the eight links followed
(a longer chain never launders its end back to its own trust).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence

from anneal_memory.errors import InvalidEpisodeError, TrustError
from anneal_memory.store._contract import SqlConnection
from anneal_memory.store._episodes import scope_of
from anneal_memory.store._params import in_chunks
from anneal_memory.types import Trust

__all__ = [
    "MAX_DERIVED_FROM",
    "MAX_STATE_KEY_CHARS",
    "cap_trust",
    "derived_sources",
    "effective_trusts",
    "episode_scope",
    "normalise_ids",
    "normalise_state_key",
    "parse_trust",
    "trusts_and_sources",
    "write_provenance",
]

MAX_STATE_KEY_CHARS = 128
MAX_DERIVED_FROM = 64
_DERIVE_DEPTH = 8
_STATE_KEY = re.compile(r"[a-z0-9][a-z0-9_.:-]*")
_ID = re.compile(r"[0-9a-f]{8}")


def parse_trust(value: object, *, ceiling: Trust, what: str = "trust") -> Trust:
    """A trust level at or below the store's ceiling.

    Raises:
        TrustError: Unknown level, or above ``ceiling``; nothing was written.
    """
    try:
        level = Trust.parse(value)  # type: ignore[arg-type]
    except ValueError as exc:
        raise TrustError(f"{what}: {exc}") from None
    if level.rank > ceiling.rank:
        raise TrustError(
            f"{what} {level.value!r} is above this store's ceiling {ceiling.value!r}; "
            "operator trust is given only by an operator (CLI --operator). Nothing was written."
        )
    return level


def cap_trust(level: Trust, ceiling: Trust) -> Trust:
    """``level``, lowered to ``ceiling`` when above it (what an import may keep)."""
    return level if level.rank <= ceiling.rank else ceiling


def normalise_state_key(value: object) -> str | None:
    """Lower-case, trimmed key of ASCII letters, digits and ``. _ : -``; None stays None.

    Raises:
        InvalidEpisodeError: Not such a key.
    """
    if value is None:
        return None
    key = value.strip().lower() if isinstance(value, str) else ""
    if not (0 < len(key) <= MAX_STATE_KEY_CHARS) or not _STATE_KEY.fullmatch(key):
        raise InvalidEpisodeError(
            f"state_key must be 1-{MAX_STATE_KEY_CHARS} characters of a-z, 0-9 and . _ : - "
            f"starting with a letter or digit (like user.home_city), got {value!r}"
        )
    return key


def normalise_ids(value: object, what: str, *, limit: int = MAX_DERIVED_FROM) -> tuple[str, ...]:
    """A list of 8-hex episode ids, lower-cased, in order, without repeats.

    Raises:
        InvalidEpisodeError: Not a list of ids, or too many.
    """
    if value is None:
        return ()
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or len(items) > limit:
        raise InvalidEpisodeError(f"{what} must be a list of at most {limit} episode ids")
    out: list[str] = []
    for item in items:
        ident = item.strip().lower() if isinstance(item, str) else ""
        if not _ID.fullmatch(ident):
            raise InvalidEpisodeError(f"{what}: {item!r} is not an episode id (8 hex characters)")
        if ident not in out:
            out.append(ident)
    return tuple(out)


_Row = tuple[Trust, tuple[str, ...]]
# Trust members by stored value: a dict lookup per row instead of an Enum call.
_TRUSTS = {member.value: member for member in Trust}


def _row(trust: object, derived: object) -> _Row:
    """Trust and sources from the ``trust`` and ``derived_from`` columns as stored."""
    level = Trust.EXTERNAL if trust is None else _TRUSTS.get(str(trust)) or Trust(str(trust))
    return level, tuple(json.loads(str(derived))) if derived else ()


def _rows(conn: SqlConnection, ids: Iterable[str], table: str = "episodes") -> dict[str, _Row]:
    """Trust and sources of the live episodes (or the tombstones) among ``ids``."""
    found: dict[str, _Row] = {}
    for chunk, marks in in_chunks(sorted(set(ids)), 500):
        rows = conn.execute(
            f"SELECT id, trust, derived_from FROM {table} WHERE id IN ({marks})",  # noqa: S608
            tuple(chunk),
        )
        for ident, trust, derived in rows:
            found[str(ident)] = _row(trust, derived)
    return found


def derived_sources(conn: SqlConnection, ids: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """The ``derived_from`` of each live episode among ``ids``."""
    return {ident: row[1] for ident, row in _rows(conn, ids).items()}


def _sources(conn: SqlConnection, ids: set[str]) -> dict[str, _Row]:
    """Trust and sources of the episodes ``ids`` name as sources, live or deleted.

    An id neither live nor tombstoned (an import that did not carry it) counts as
    ``external`` with no sources of its own.
    """
    found = _rows(conn, ids)
    if len(found) < len(ids):
        found.update(_rows(conn, ids - set(found), "tombstones"))
    found.update((ident, (Trust.EXTERNAL, ())) for ident in ids - set(found))
    return found


def effective_trusts(conn: SqlConnection, ids: Iterable[str]) -> dict[str, Trust]:
    """Effective trust of each live episode among ``ids`` (missing ids left out)."""
    return trusts_and_sources(conn, ids)[0]


def trusts_and_sources(
    conn: SqlConnection,
    ids: Iterable[str],
    *,
    read: Mapping[str, tuple[object, object]] | None = None,
) -> tuple[dict[str, Trust], dict[str, tuple[str, ...]]]:
    """:func:`effective_trusts` and :func:`derived_sources` of ``ids`` from one read.

    ``read``: id -> the ``trust`` and ``derived_from`` columns of live episodes among
    ``ids`` the caller has read already (the wrap's snapshot); only the others are read.
    """
    wanted = set(ids)
    known = {i: _row(*columns) for i, columns in (read or {}).items() if i in wanted}
    if len(known) < len(wanted):
        known.update(_rows(conn, wanted - set(known)))
    live = set(known)
    derived = {ident: row[1] for ident, row in known.items()}
    frontier = {s for _t, sources in known.values() for s in sources} - set(known)
    for _ in range(_DERIVE_DEPTH):
        if not frontier:
            break
        fresh = _sources(conn, frontier)
        known.update(fresh)
        frontier = {s for _t, sources in fresh.values() for s in sources} - set(known)
    # ident -> (trust, the depth it was resolved at): reused only from as deep or deeper,
    # since a node resolved near the bound saw fewer of its sources.
    memo: dict[str, tuple[Trust, int]] = {}

    def resolve(ident: str, depth: int) -> Trust:
        if ident in memo and memo[ident][1] <= depth:
            return memo[ident][0]
        own, sources = known[ident]
        reached = [s for s in sources if s in known]
        if sources and depth >= _DERIVE_DEPTH:  # sources past the bound: unknown, so external
            own = Trust.EXTERNAL
        elif reached:
            cap = max((resolve(s, depth + 1) for s in reached), key=lambda t: t.rank)
            own = own if own.rank <= cap.rank else cap
        memo[ident] = (own, depth)
        return own

    return {ident: resolve(ident, 0) for ident in live}, derived


def episode_scope(conn: SqlConnection, ident: str) -> str:
    """The scope of the live episode ``ident`` ("" when there is none)."""
    return scope_of(conn, ident) or ""


def _other_scope(conn: SqlConnection, ident: str, sources: Sequence[str]) -> list[str]:
    scope = episode_scope(conn, ident)
    found: list[str] = []
    for chunk, marks in in_chunks(sorted(set(sources)), 500):
        rows = conn.execute(
            f"SELECT id FROM episodes WHERE id IN ({marks}) AND scope != ?",  # noqa: S608
            (*chunk, scope),
        )
        found.extend(str(r[0]) for r in rows)
    return sorted(found)


def write_provenance(
    conn: SqlConnection,
    episode_id: str,
    *,
    trust: Trust,
    state_key: str | None,
    derived_from: Sequence[str],
) -> None:
    """Store the provenance of a just-inserted episode (only when it differs from the default).

    Raises:
        InvalidEpisodeError: A ``derived_from`` id is no live episode of its scope.
    """
    if derived_from:
        missing = sorted(set(derived_from) - set(_rows(conn, derived_from)))
        if missing:
            raise InvalidEpisodeError(
                f"derived_from names no episode {', '.join(missing)}; nothing was written"
            )
        elsewhere = _other_scope(conn, episode_id, derived_from)
        if elsewhere:
            raise InvalidEpisodeError(
                f"derived_from names {', '.join(elsewhere)}, of another scope than this "
                "episode's; an episode derives only from episodes of its own scope. "
                "Nothing was written"
            )
    if trust is Trust.AGENT and state_key is None and not derived_from:
        return
    conn.execute(
        "UPDATE episodes SET trust = ?, state_key = ?, derived_from = ? WHERE id = ?",
        (
            trust.value,
            state_key,
            json.dumps(list(derived_from)) if derived_from else None,
            episode_id,
        ),
    )
