"""The rest of a store in its export: wraps, pattern history, links, continuity, policy.

Export adds, after ``spores`` (issue #24 item 18: a backup restored is the store backed up)::

    "wraps": [{"token", "scope", "started_at", ..., "after_id", "through_id"}, ...],
    "patterns": [{"scope", "identity", "name", "level", "max_level", "first_wrap",
                  "last_wrap", "last_grounded"}, ...],
    "pattern_history": [{"scope", "identity", "wrap", "level", ...}, ...],
    "associations": [{"a", "b", "strength", ..., "created_wrap", "last_wrap"}, ...],
    "continuity": [{"scope", "text"}, ...],
    "session_items": [{"session_id", "position", "item", "at"}, ...],
    "policy": {"requires_baton": bool, "section_schema": name or null}

Completed wraps only (an open wrap belongs to a session of the exporting store). A wrap's
episode range is written as the ids of the last episode before it and the last episode it
covered, so the importing store, whose seqs differ, marks the same episodes as wrapped; the
wraps' rows are referred to by token. Import restores all of it only into a store that had no
episodes and no wraps before the import (a restore); into a store with a history of its
own, the imported episodes wait for its next wrap, as before, and the report says what was
not carried. Every member is optional on import, so older exports still import.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from anneal_memory.document._schema import SCHEMAS
from anneal_memory.errors import ImportFormatError, InvalidEpisodeError
from anneal_memory.store._contract import SqlConnection
from anneal_memory.store._policy import read_policy, write_policy
from anneal_memory.store._validate import validate_scope

__all__ = [
    "HISTORY_KEYS",
    "History",
    "Restored",
    "history_from_document",
    "iter_history_chunks",
    "restore_history",
]

HISTORY_KEYS = (
    "wraps", "patterns", "pattern_history", "associations", "continuity", "session_items",
    "policy",
)  # fmt: skip
_SCHEMA_KEY = "section_schema"
_SCHEMA_NAMES = frozenset(SCHEMAS)
_LISTS = HISTORY_KEYS[:-1]
_TOKEN = re.compile(r"[0-9A-Za-z_.:-]{1,80}")
_ID = re.compile(r"[0-9a-f]{8}")
_MAX_CONTINUITY_CHARS = 8 * 1024 * 1024
_WRAP_TEXT = ("session_id", "started_at", "today", "schema_name", "completed_at",
              "continuity_sha256", "findings", "affect_tag")  # fmt: skip
_WRAP_INTS = ("max_chars", "episode_count", "continuity_chars", "graduations_validated",
              "demotions", "save_no")  # fmt: skip
_WRAP_COLUMNS = ("token", "scope", *_WRAP_TEXT, *_WRAP_INTS, "affect_intensity")


def _dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


# -- export ----------------------------------------------------------------------------------


def _id_at(conn: SqlConnection, scope: str, seq: int) -> str | None:
    row = conn.execute(
        "SELECT id FROM episodes WHERE scope = ? AND seq <= ? ORDER BY seq DESC LIMIT 1",
        (scope, seq),
    ).fetchone()
    return None if row is None else str(row[0])


def _wraps(conn: SqlConnection) -> tuple[list[dict[str, Any]], dict[int, str]]:
    columns = ", ".join(_WRAP_COLUMNS)
    rows = conn.execute(
        f"SELECT id, after_seq, through_seq, {columns} FROM wraps"  # noqa: S608
        " WHERE status = 'completed' ORDER BY id"
    ).fetchall()
    tokens: dict[int, str] = {}
    out = []
    for row in rows:
        item = dict(zip(_WRAP_COLUMNS, row[3:], strict=True))
        scope = str(item["scope"])
        item["after_id"] = _id_at(conn, scope, int(row[1])) if int(row[1]) else None
        item["through_id"] = _id_at(conn, scope, int(row[2])) if int(row[2]) else None
        tokens[int(row[0])] = str(item["token"])
        out.append(item)
    return out, tokens


def _patterns(conn: SqlConnection, tokens: Mapping[int, str]) -> Iterator[dict[str, Any]]:
    for row in conn.execute(
        "SELECT scope, identity, name, level, max_level, first_wrap_id, last_wrap_id,"
        " last_grounded FROM patterns ORDER BY scope, identity"
    ).fetchall():
        scope, identity, name, level, max_level, first, last, grounded = row
        yield {
            "scope": scope, "identity": identity, "name": name, "level": level,
            "max_level": max_level, "first_wrap": tokens.get(int(first)),
            "last_wrap": tokens.get(int(last)), "last_grounded": grounded,
        }  # fmt: skip


def _pattern_history(conn: SqlConnection, tokens: Mapping[int, str]) -> Iterator[dict[str, Any]]:
    for row in conn.execute(
        "SELECT scope, identity, wrap_id, level, written_level, line_date, explanation,"
        " validated, marks, cited_ids, validated_ids FROM pattern_history ORDER BY id"
    ).fetchall():
        scope, identity, wrap_id, level, written, day, explanation, validated, marks = row[:9]
        yield {
            "scope": scope, "identity": identity, "wrap": tokens.get(int(wrap_id)),
            "level": level, "written_level": written, "line_date": day,
            "explanation": explanation, "validated": validated, "marks": marks,
            "cited_ids": row[9], "validated_ids": row[10],
        }  # fmt: skip


def _associations(conn: SqlConnection, tokens: Mapping[int, str]) -> Iterator[dict[str, Any]]:
    for row in conn.execute(
        "SELECT a, b, strength, affect_tag, affect_intensity, created_wrap_id, last_wrap_id,"
        " last_save_no, decay_key FROM associations ORDER BY a, b"
    ).fetchall():
        a, b, strength, tag, intensity, created, last, save_no, decay = row
        yield {
            "a": a, "b": b, "strength": strength, "affect_tag": tag,
            "affect_intensity": intensity, "created_wrap": tokens.get(int(created)),
            "last_wrap": tokens.get(int(last)), "last_save_no": save_no, "decay_key": decay,
        }  # fmt: skip


def _session_items(conn: SqlConnection) -> Iterator[dict[str, Any]]:
    for session_id, position, item, created_at in conn.execute(
        "SELECT session_id, position, item, created_at FROM session_items"
        " ORDER BY session_id, position"
    ).fetchall():
        yield {"session_id": session_id, "position": position, "item": item, "at": created_at}


def _list_chunks(key: str, items: Iterator[dict[str, Any]] | list[dict[str, Any]]) -> Iterator[str]:
    yield f', "{key}": ['
    for index, item in enumerate(items):
        yield ("\n" if index == 0 else ",\n") + _dump(item)
    yield "\n]"


def iter_history_chunks(
    conn: SqlConnection, continuity_of: Callable[[str], str | None]
) -> Iterator[str]:
    """Yield the history members (see the module), inside the caller's read transaction.

    ``continuity_of(scope)`` reads a scope's continuity (its file, or its row).
    """
    wraps, tokens = _wraps(conn)
    yield from _list_chunks("wraps", wraps)
    yield from _list_chunks("patterns", _patterns(conn, tokens))
    yield from _list_chunks("pattern_history", _pattern_history(conn, tokens))
    yield from _list_chunks("associations", _associations(conn, tokens))
    scopes = sorted({""} | {str(w["scope"]) for w in wraps})
    texts = ({"scope": s, "text": t} for s in scopes if (t := continuity_of(s)) is not None)
    yield from _list_chunks("continuity", texts)
    yield from _list_chunks("session_items", _session_items(conn))
    schema = conn.execute("SELECT value FROM meta WHERE key = ?", (_SCHEMA_KEY,)).fetchone()
    policy = {
        "requires_baton": read_policy(conn),
        "section_schema": None if schema is None else str(schema[0]),
    }
    yield ', "policy": ' + _dump(policy)


# -- import ----------------------------------------------------------------------------------


@dataclass(slots=True)
class History:
    """The history members of an export, as read (each item still unchecked)."""

    wraps: list[Any] = field(default_factory=list)
    patterns: list[Any] = field(default_factory=list)
    pattern_history: list[Any] = field(default_factory=list)
    associations: list[Any] = field(default_factory=list)
    continuity: list[Any] = field(default_factory=list)
    session_items: list[Any] = field(default_factory=list)
    policy: Any = None

    def present(self) -> bool:
        """True when the export carried any history at all."""
        return self.policy is not None or any(getattr(self, k) for k in _LISTS)

    def add(self, key: str, value: Any) -> None:
        """Hold one item of the list member ``key`` (or the ``policy`` object)."""
        if key == "policy":
            self.policy = value
        else:
            getattr(self, key).append(value)


def history_from_document(document: Mapping[str, Any]) -> History:
    """The history members of a parsed export (missing members are empty)."""
    held = History()
    for key in _LISTS:
        value = document.get(key, [])
        if not isinstance(value, list):
            raise ImportFormatError(f"export is malformed: {key!r} must be a list")
        for item in value:
            held.add(key, item)
    if "policy" in document:
        held.add("policy", document["policy"])
    return held


@dataclass(frozen=True, slots=True, kw_only=True)
class Restored:
    """What :func:`restore_history` wrote, and the continuity texts still to write."""

    wraps: int = 0
    patterns: int = 0
    pattern_steps: int = 0
    associations: int = 0
    session_items: int = 0
    policy: bool = False
    continuity: Mapping[str, str] = field(default_factory=dict)
    not_carried: tuple[str, ...] = ()


def _obj(raw: object, place: str) -> Mapping[str, Any]:
    if not isinstance(raw, Mapping):
        raise ImportFormatError(f"{place} is not an object")
    return raw


def _text(
    item: Mapping[str, Any], key: str, place: str, *, optional: bool = True, limit: int = 100_000
) -> str | None:
    value = item.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str) or len(value) > limit or "\x00" in value:
        raise ImportFormatError(f"{place} has an invalid {key!r}: {str(value)[:80]!r}")
    return value


def _id_list(item: Mapping[str, Any], key: str, place: str) -> str:
    """A space-separated list of episode ids (absent in exports made before it was kept)."""
    value = _text(item, key, place, limit=64 * 1024) or ""
    if not all(_ID.fullmatch(one) for one in value.split()):
        raise ImportFormatError(f"{place} has an invalid {key!r}: {value[:80]!r}")
    return " ".join(value.split())


def _number(item: Mapping[str, Any], key: str, place: str, *, real: bool = False) -> Any:
    value = item.get(key)
    kinds = (int, float) if real else (int,)
    if value is None or (isinstance(value, kinds) and not isinstance(value, bool)):
        return value
    raise ImportFormatError(f"{place} has an invalid {key!r}: {value!r}")


def _scope(item: Mapping[str, Any], place: str) -> str:
    try:
        return validate_scope(item.get("scope", ""))
    except InvalidEpisodeError as exc:
        raise ImportFormatError(f"{place}: {exc}") from None


def _token(item: Mapping[str, Any], key: str, place: str) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not _TOKEN.fullmatch(value):
        raise ImportFormatError(f"{place} has an invalid {key!r}: {str(value)[:80]!r}")
    return value


def _seq_of(conn: SqlConnection, item: Mapping[str, Any], key: str, place: str) -> int:
    ident = item.get(key)
    if ident is None:
        return 0
    if not isinstance(ident, str) or not _ID.fullmatch(ident):
        raise ImportFormatError(f"{place} has an invalid {key!r}: {str(ident)[:80]!r}")
    row = conn.execute("SELECT seq FROM episodes WHERE id = ?", (ident,)).fetchone()
    return 0 if row is None else int(row[0])


def _write_wraps(conn: SqlConnection, wraps: list[Any]) -> dict[str, int]:
    ids: dict[str, int] = {}
    for index, raw in enumerate(wraps):
        place = f"wraps[{index}]"
        item = _obj(raw, place)
        token = _token(item, "token", place)
        values: list[object] = [token, _scope(item, place)]
        values += [_text(item, k, place) for k in _WRAP_TEXT]
        values += [_number(item, k, place) for k in _WRAP_INTS]
        values.append(_number(item, "affect_intensity", place, real=True))
        for required in ("started_at", "today", "schema_name", "max_chars", "episode_count"):
            if values[_WRAP_COLUMNS.index(required)] is None:
                raise ImportFormatError(f"{place} has no {required!r}")
        if token in ids:
            raise ImportFormatError(f"{place} repeats the wrap token {token!r}")
        after, through = (
            _seq_of(conn, item, "after_id", place),
            _seq_of(conn, item, "through_id", place),
        )
        columns = ", ".join(_WRAP_COLUMNS)
        marks = ", ".join("?" * (len(_WRAP_COLUMNS) + 2))
        conn.execute(
            f"INSERT INTO wraps (status, {columns}, after_seq, through_seq)"  # noqa: S608
            f" VALUES ('completed', {marks})",
            (*values, after, through),
        )
        row = conn.execute("SELECT id FROM wraps WHERE token = ?", (token,)).fetchone()
        ids[token] = int(row[0])
    return ids


def _wrap_ref(item: Mapping[str, Any], key: str, ids: Mapping[str, int]) -> int | None:
    value = item.get(key)
    return ids.get(value) if isinstance(value, str) else None


def _write_patterns(conn: SqlConnection, patterns: list[Any], ids: Mapping[str, int]) -> int:
    written = 0
    for index, raw in enumerate(patterns):
        place = f"patterns[{index}]"
        item = _obj(raw, place)
        first, last = _wrap_ref(item, "first_wrap", ids), _wrap_ref(item, "last_wrap", ids)
        if first is None or last is None:
            continue
        identity, name = (
            _text(item, "identity", place, optional=False),
            _text(item, "name", place, optional=False),
        )
        level, max_level = _number(item, "level", place), _number(item, "max_level", place)
        if level is None or max_level is None:
            raise ImportFormatError(f"{place} has no level")
        conn.execute(
            "INSERT INTO patterns (scope, identity, name, level, max_level, first_wrap_id,"
            " last_wrap_id, last_grounded) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT DO NOTHING",
            (_scope(item, place), identity, name, level, max_level, first, last,
             _text(item, "last_grounded", place)),
        )  # fmt: skip
        written += 1
    return written


def _write_steps(conn: SqlConnection, steps: list[Any], ids: Mapping[str, int]) -> int:
    written = 0
    for index, raw in enumerate(steps):
        place = f"pattern_history[{index}]"
        item = _obj(raw, place)
        wrap_id = _wrap_ref(item, "wrap", ids)
        if wrap_id is None:
            continue
        numbers = [_number(item, k, place) for k in ("level", "written_level", "validated")]
        if None in numbers:
            raise ImportFormatError(f"{place} has no level")
        conn.execute(
            "INSERT INTO pattern_history (scope, identity, wrap_id, level, written_level,"
            " line_date, explanation, validated, marks, cited_ids, validated_ids)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (_scope(item, place), _text(item, "identity", place, optional=False), wrap_id,
             *numbers[:2], _text(item, "line_date", place),
             _text(item, "explanation", place) or "", numbers[2],
             _text(item, "marks", place) or "", _id_list(item, "cited_ids", place),
             _id_list(item, "validated_ids", place)),
        )  # fmt: skip
        written += 1
    return written


def _write_links(conn: SqlConnection, links: list[Any], ids: Mapping[str, int]) -> int:
    written = 0
    for index, raw in enumerate(links):
        place = f"associations[{index}]"
        item = _obj(raw, place)
        created, last = _wrap_ref(item, "created_wrap", ids), _wrap_ref(item, "last_wrap", ids)
        a, b = item.get("a"), item.get("b")
        if not (
            isinstance(a, str) and isinstance(b, str) and _ID.fullmatch(a) and _ID.fullmatch(b)
        ):
            raise ImportFormatError(f"{place} has invalid episode ids")
        if created is None or last is None or str(a) >= str(b):
            continue
        both = conn.execute("SELECT count(*) FROM episodes WHERE id IN (?, ?)", (a, b)).fetchone()
        strength = _number(item, "strength", place, real=True)
        if int(both[0]) != 2 or strength is None:
            continue
        conn.execute(
            "INSERT INTO associations (a, b, strength, affect_tag, affect_intensity,"
            " created_wrap_id, last_wrap_id, last_save_no, decay_key)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (a, b, min(float(strength), 10.0), _text(item, "affect_tag", place),
             _number(item, "affect_intensity", place, real=True), created, last,
             _number(item, "last_save_no", place) or 0,
             _number(item, "decay_key", place, real=True) or 0.0),
        )  # fmt: skip
        written += 1
    return written


def _continuity(raw_items: list[Any]) -> dict[str, str]:
    texts: dict[str, str] = {}
    for index, raw in enumerate(raw_items):
        place = f"continuity[{index}]"
        item = _obj(raw, place)
        text = item.get("text")
        if not isinstance(text, str) or len(text) > _MAX_CONTINUITY_CHARS or "\x00" in text:
            raise ImportFormatError(f"{place} has no usable 'text'")
        texts[_scope(item, place)] = text
    return texts


def _write_policy(conn: SqlConnection, policy: Mapping[str, Any]) -> bool:
    """The baton policy and the section schema (the redaction policy stays this store's)."""
    baton = policy.get("requires_baton")
    if not isinstance(baton, bool):
        raise ImportFormatError(f"policy has an invalid 'requires_baton': {baton!r}")
    write_policy(conn, baton)
    schema = policy.get("section_schema")
    if schema is not None:
        if schema not in _SCHEMA_NAMES:
            raise ImportFormatError(f"policy has an unknown 'section_schema': {str(schema)[:40]!r}")
        conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (_SCHEMA_KEY, schema),
        )
    return True


def _write_items(conn: SqlConnection, items: list[Any]) -> int:
    written = 0
    for index, raw in enumerate(items):
        place = f"session_items[{index}]"
        item = _obj(raw, place)
        position = _number(item, "position", place)
        if position is None:
            raise ImportFormatError(f"{place} has no 'position'")
        conn.execute(
            "INSERT INTO session_items (session_id, position, item, created_at)"
            " VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (_text(item, "session_id", place, optional=False), position,
             _text(item, "item", place, optional=False, limit=1 << 20),
             _text(item, "at", place) or ""),
        )  # fmt: skip
        written += 1
    return written


def restore_history(conn: SqlConnection, held: History, *, target_empty: bool) -> Restored:
    """Write an export's history into the store, inside the import's transaction.

    Runs after the episodes are in (wrap ranges and links name episodes). Only a store
    that was empty before the import takes it (see the module).

    Raises:
        ImportFormatError: A history member is malformed; the caller rolls back.
    """
    if not held.present():
        return Restored()
    if not target_empty:
        return Restored(
            not_carried=(
                "wrap history, pattern levels, links, continuity and policy not carried: this "
                "store already had episodes or wraps (import into a new store to restore them)",
            )
        )
    ids = _write_wraps(conn, held.wraps)
    set_policy = held.policy is not None and _write_policy(conn, _obj(held.policy, "policy"))
    return Restored(
        wraps=len(ids),
        session_items=_write_items(conn, held.session_items),
        patterns=_write_patterns(conn, held.patterns, ids),
        pattern_steps=_write_steps(conn, held.pattern_history, ids),
        associations=_write_links(conn, held.associations, ids),
        policy=set_policy,
        continuity=_continuity(held.continuity),
    )
