"""JSON export and import of a store's episodes and tombstones.

Export format (``format_version`` 1)::

    {"format": "anneal-memory-export", "format_version": 1, "exported_at": "...Z",
     "schema_version": N, "episodes": [Episode.to_dict(), ...],
     "tombstones": [{"id", "deleted_at", "reason", "trust"?, "derived_from"?}, ...],
     "supersessions": [{"old_id", "new_id", "via", "created_at"}, ...],
     "crystals": [...], "spores": [...]}  (see ``_transfer_memory``; optional on import)

Each episode carries its ``trust``, ``state_key``, ``superseded_by``, ``derived_from`` and
``scope``; an import restores them and the links (``superseded_by`` is recomputed from the
links). The wraps, pattern history, links between episodes, continuity texts and baton
policy follow (``_restore``); a store empty before the import takes them all.

Export streams episode by episode, so its memory use does not grow with the store.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from anneal_memory._clock import Clock
from anneal_memory.errors import ImportFormatError, InvalidEpisodeError
from anneal_memory.store._contract import Dialect, SqlConnection
from anneal_memory.store._episodes import COLUMNS, episode_from_row, fetch_by_id, insert_episode
from anneal_memory.store._redaction import count_kinds, redact_parsed
from anneal_memory.store._validate import EpisodeInput, validate_episode, validate_scope
from anneal_memory.store.transfer._links import (
    KEY_NOT_CARRIED,
    import_links,
    import_provenance,
    iter_link_chunks,
    tombstone_provenance,
)
from anneal_memory.store.transfer._memory import import_memory, iter_memory_chunks
from anneal_memory.store.transfer._restore import (
    Restored,
    history_from_document,
    iter_history_chunks,
    restore_history,
)
from anneal_memory.store.transfer._worth import import_worth, iter_worth_chunks
from anneal_memory.types import Episode, ImportResult, Trust

__all__ = [
    "EXPORT_FORMAT",
    "EXPORT_FORMAT_VERSION",
    "import_document",
    "iter_export_chunks",
    "iter_tombstone_chunks",
    "parse_export",
]

EXPORT_FORMAT = "anneal-memory-export"
EXPORT_FORMAT_VERSION = 1
_BATCH = 1000


def parse_export(document: str | Mapping[str, Any]) -> object:
    """The parsed export: ``document`` itself, or its text read as JSON.

    Raises:
        ImportFormatError: The text is not JSON, or nested too deeply to read.
    """
    if not isinstance(document, str):
        return document
    try:
        return json.loads(document)
    except json.JSONDecodeError as exc:
        raise ImportFormatError(f"import file is not JSON: {exc}") from None
    except RecursionError:
        raise ImportFormatError("import file is not an export: JSON nested too deeply") from None


def _dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def iter_export_chunks(
    conn: SqlConnection,
    *,
    exported_at: str,
    schema_version: int,
    continuity_of: Callable[[str], str | None],
) -> Iterator[str]:
    """Yield the export document as text pieces; join them or write them in order.

    The caller must hold a read transaction so the export is one consistent state.
    """
    header = {
        "format": EXPORT_FORMAT,
        "format_version": EXPORT_FORMAT_VERSION,
        "exported_at": exported_at,
        "schema_version": schema_version,
    }
    yield _dump(header)[:-1] + ', "episodes": ['
    last_seq = 0
    first = True
    while True:
        rows = conn.execute(
            f"SELECT {COLUMNS}, scope FROM episodes WHERE seq > ? ORDER BY seq LIMIT ?",  # noqa: S608
            (last_seq, _BATCH),
        ).fetchall()
        if not rows:
            break
        for row in rows:
            item = {**episode_from_row(row).to_dict(), "scope": row[-1]}
            yield ("\n" if first else ",\n") + _dump(item)
            first = False
        last_seq = int(rows[-1][0])
    yield from iter_tombstone_chunks(conn)
    yield from iter_link_chunks(conn)
    yield from iter_memory_chunks(conn)
    yield from iter_history_chunks(conn, continuity_of)
    yield from iter_worth_chunks(conn)
    yield "}\n"


def iter_tombstone_chunks(conn: SqlConnection) -> Iterator[str]:
    """Yield ``], "tombstones": [...]`` (after the episodes), each with its trust when known."""
    yield '\n], "tombstones": ['
    tombstones = conn.execute(
        "SELECT id, deleted_at, reason, trust, derived_from FROM tombstones ORDER BY deleted_at, id"
    )
    for index, (ident, deleted_at, reason, trust, derived) in enumerate(tombstones):
        item = {"id": ident, "deleted_at": deleted_at, "reason": reason}
        if trust is not None:
            item["trust"] = trust
        if derived:
            item["derived_from"] = json.loads(derived)
        yield ("\n" if index == 0 else ",\n") + _dump(item)
    yield "\n]"


def _check_document(document: object) -> tuple[list[Any], list[Any]]:
    if not isinstance(document, Mapping) or document.get("format") != EXPORT_FORMAT:
        raise ImportFormatError(
            f"not an anneal-memory export: expected a JSON object with format {EXPORT_FORMAT!r}"
        )
    version = document.get("format_version")
    if version != EXPORT_FORMAT_VERSION:
        raise ImportFormatError(
            f"export format_version {version!r} is not supported (this version reads "
            f"{EXPORT_FORMAT_VERSION}); export again with a matching anneal-memory"
        )
    episodes, tombstones = document.get("episodes"), document.get("tombstones", [])
    if not isinstance(episodes, list) or not isinstance(tombstones, list):
        raise ImportFormatError("export is malformed: 'episodes' and 'tombstones' must be lists")
    return episodes, tombstones


def _parse_episode(raw: object, index: int, clock: Clock) -> tuple[str, Any]:
    if not isinstance(raw, Mapping):
        raise ImportFormatError(f"episode #{index} is not a JSON object")
    ident = raw.get("id")
    if (
        not isinstance(ident, str)
        or len(ident) != 8
        or not all(c in "0123456789abcdef" for c in ident)
    ):
        raise ImportFormatError(f"episode #{index} has an invalid id {ident!r} (8 lowercase hex)")
    try:
        item = validate_episode(
            raw.get("content"),
            raw.get("type"),
            source=raw.get("source", "agent"),
            metadata=raw.get("metadata") or None,
            timestamp=raw.get("timestamp"),
            idempotency_key=raw.get("idempotency_key"),
            clock=clock,
        )
        item = item._replace(scope=validate_scope(raw.get("scope", "")))
    except InvalidEpisodeError as exc:
        raise ImportFormatError(f"episode #{index} ({ident}) is invalid: {exc}") from None
    return ident, item


def _same(existing: Episode, item: Any) -> bool:
    return bool(existing.content == item.content and existing.type is item.type)


def _insert_tombstones(
    conn: SqlConnection, tombstones: list[Any], ceiling: Trust
) -> tuple[int, int]:
    """Insert the export's tombstones; how many were added, and how many had trust capped."""
    added = capped = 0
    for raw in tombstones:
        if not isinstance(raw, Mapping) or not isinstance(raw.get("id"), str):
            raise ImportFormatError(
                "a tombstone entry is malformed: expected {id, deleted_at, reason}"
            )
        kept = tombstone_provenance(raw, f"tombstone {raw['id']!r}", ceiling)
        written = conn.execute(
            "INSERT INTO tombstones(id, deleted_at, reason, trust, derived_from)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (raw["id"], str(raw.get("deleted_at", "")), str(raw.get("reason", "import")),
             kept.trust, kept.derived_from),
        ).rowcount  # fmt: skip
        added += written
        capped += bool(written and kept.capped)
    return added, capped


def _import_one(conn: SqlConnection, dialect: Dialect, ident: str, item: Any) -> bool | None:
    """Insert one exported episode: True when new, False when already here, None when deleted.

    Raises:
        ImportFormatError: The id is taken by a different episode.
    """
    existing = fetch_by_id(conn, ident)
    if existing is not None:
        if not _same(existing, item):
            raise ImportFormatError(
                f"episode {ident} already exists here with different content; "
                "import into a fresh store or delete the local episode first"
            )
        return False
    if conn.execute("SELECT 1 FROM tombstones WHERE id = ?", (ident,)).fetchone():
        return None
    return insert_episode(conn, dialect, item, ident=ident)[1]


def import_document(
    conn: SqlConnection, dialect: Dialect, document: object, *, clock: Clock, ceiling: Trust
) -> tuple[ImportResult, Restored]:
    """Insert an export's episodes (ids kept), tombstones, links, crystals and spores.

    Into a store that was empty, the export's history too (``_restore``); the continuity
    texts it carried come back in the ``Restored`` for the caller to write.

    Runs inside the caller's write transaction, on either backend. Episodes already present
    with the same content (or the same idempotency key) are skipped; deleted ids stay deleted.
    Trust above ``ceiling`` (the importing store's) is written as ``ceiling``.

    Raises:
        ImportFormatError: The document is not a valid export, or an id collides with a
            different episode. Nothing is written in that case (the caller rolls back).
    """
    episodes, tombstones = _check_document(document)
    assert isinstance(document, Mapping)  # checked by _check_document
    history = history_from_document(document)
    target_empty = conn.execute(
        "SELECT NOT EXISTS (SELECT 1 FROM episodes) AND NOT EXISTS (SELECT 1 FROM wraps)"
    ).fetchone()[0]
    parsed = [_parse_episode(raw, i, clock) for i, raw in enumerate(episodes)]
    parsed = redact_parsed(conn, parsed)  # issue 30: the importing store's redaction policy
    imported = skipped = capped = keys_refused = held = 0
    slots: list[tuple[str, str]] = []
    written: list[EpisodeInput] = []
    for (ident, item), raw in zip(parsed, episodes, strict=True):
        if not _import_one(conn, dialect, ident, item):
            skipped += 1
            continue
        written.append(item)
        prov = import_provenance(conn, ident, raw, ceiling=ceiling, content=item.content)
        if prov.slot is not None:
            slots.append(prov.slot)
        imported += 1
        capped += prov.capped
        keys_refused += prov.key_refused
        held += prov.held
    added, lowered_tombstones = _insert_tombstones(conn, tombstones, ceiling)
    _links_added, links_refused = import_links(conn, document.get("supersessions", []), slots)
    memory = import_memory(conn, document, dialect, ceiling)
    restored = restore_history(conn, history, target_empty=bool(target_empty))
    exposures, totals, probes = import_worth(conn, document)
    dialect.after_bulk_write(imported)
    return ImportResult(
        imported=imported,
        skipped_existing=skipped,
        tombstones_added=added,
        crystals_imported=memory.crystals,
        spores_imported=memory.spores,
        exposures_imported=exposures,
        worth_totals_imported=totals,
        probes_imported=probes,
        redacted=count_kinds(written),
        trust_capped=capped + lowered_tombstones + memory.spores_capped,
        held_as_data=held,
        not_carried=_not_carried(keys_refused, links_refused) + restored.not_carried,
        wraps_restored=restored.wraps,
        patterns_restored=restored.patterns,
        associations_restored=restored.associations,
        continuity_restored=tuple(sorted(restored.continuity)),
    ), restored


def _not_carried(keys_refused: int, links_refused: list[str]) -> tuple[str, ...]:
    notes = [f"{keys_refused} {KEY_NOT_CARRIED}"] if keys_refused else []
    notes += [
        f"{links_refused.count(reason)} supersession link(s) {reason}"
        for reason in sorted(set(links_refused))
    ]
    return tuple(notes)
