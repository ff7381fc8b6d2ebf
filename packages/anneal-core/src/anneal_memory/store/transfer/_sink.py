"""Where parsed import records go: one function per kind, counting what each one did.

Episodes are first staged in a scratch SQLite file in a private temporary folder, so a
source of any size is held on disk, not in memory, and can be written in the order the store
needs (1.0.2 episodes wrap by wrap). Tombstones go straight into the caller's write
transaction; wraps, pattern levels, links and the kinds of ``_import_pending`` are written
after the episodes. The caller commits or rolls back the whole transaction.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anneal_memory._fsio import ensure_private_file
from anneal_memory.errors import ImportFormatError
from anneal_memory.redaction import HELD_AS_DATA, HELD_RULE, held_raise
from anneal_memory.store._contract import Dialect
from anneal_memory.store._episodes import fetch_by_id, insert_episode
from anneal_memory.store._held import HELD_TRUST, held_kinds
from anneal_memory.store._redaction import read_settings, redact_imported
from anneal_memory.store._validate import EpisodeInput
from anneal_memory.store.transfer._history import (
    wrap_token,
    write_links,
    write_patterns,
    write_wraps,
)
from anneal_memory.store.transfer._memory import spore_trust
from anneal_memory.store.transfer._pending import CARRIERS, RECORD_TYPES
from anneal_memory.store.transfer._records import (
    AssociationRecord,
    CrystalRecord,
    DerivedRecord,
    EpisodeRecord,
    Kind,
    PatternLevelRecord,
    SourceFormat,
    SporeRecord,
    StateKeyRecord,
    SupersessionRecord,
    TombstoneRecord,
    TrustRecord,
    WorthRecord,
    WrapRecord,
)
from anneal_memory.store.transfer._restore import History
from anneal_memory.types import EpisodeType, ImportCount, Trust

__all__ = ["Sink"]

_UNWRAPPED = "~"

_PATTERNS_NOT_CARRIED = (
    "not carried: pattern levels come across only with the wrap history, into an empty store; "
    "the next save caps each line one rung above its level here"
)

_STAGE = """
CREATE TABLE stage (
    pos INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, ident TEXT, ord TEXT NOT NULL,
    wrap INTEGER, ts TEXT NOT NULL, type TEXT NOT NULL, content TEXT NOT NULL,
    source TEXT NOT NULL, metadata TEXT, idem TEXT, place TEXT NOT NULL,
    scope TEXT NOT NULL DEFAULT '', redacted TEXT NOT NULL DEFAULT ''
)
"""


# What may already be here for an incoming episode, in the order it is judged: the same id
# (with its content), a tombstone of that id, the same idempotency key (with its content).
_SAME_ID, _TOMBSTONED, _SAME_KEY = 0, 1, 2
_PRESENT = (
    "SELECT 0, id, content, type FROM episodes WHERE id = ?1"
    " UNION ALL SELECT 1, id, NULL, NULL FROM tombstones WHERE id = ?1"
    " UNION ALL SELECT 2, id, content, type FROM episodes WHERE idempotency_key = ?2"
)


@dataclass(slots=True)
class _Count:
    found: int = 0
    imported: int = 0
    skipped: int = 0
    not_carried: int = 0
    reason: str | None = None
    capped: int = 0

    def note(self, reason: str) -> None:
        """Add ``reason`` to what the report says about this kind (once)."""
        if self.reason is None:
            self.reason = reason
        elif reason not in self.reason:
            self.reason = f"{self.reason}; {reason}"


_HELD_NOTE = (
    f"{HELD_AS_DATA}: {HELD_RULE}, as record writes it; an operator raises it with: {held_raise()}"
)


class Sink:
    """Receives records from a reader and writes them into ``conn``'s open transaction.

    Args:
        conn: The store's connection, inside a write transaction.
        stage_dir: A private temporary folder for the staging file.
        target_empty: The store had no episodes and no wraps, so a source's wrap history
            can be written as it is.
        trust_ceiling: The importing store's ceiling: trust above it is written at it, and
            counted as ``capped``.
    """

    def __init__(
        self,
        conn: sqlite3.Connection,
        dialect: Dialect,
        *,
        stage_dir: Path,
        target_empty: bool,
        trust_ceiling: Trust = Trust.AGENT,
    ) -> None:
        self._conn = conn
        self._dialect = dialect
        self._target_empty = target_empty
        self._ceiling = trust_ceiling
        self._by_wrap = False
        self._carry_wraps = False
        # A private scratch file, not a store: none of the store's connection policy applies.
        ensure_private_file(stage_dir / "stage.db")
        self._stage = sqlite3.connect(stage_dir / "stage.db", isolation_level=None)  # noqa: TID251
        self._stage.execute("PRAGMA journal_mode=OFF")
        self._stage.execute("PRAGMA synchronous=OFF")
        self._stage.execute(_STAGE)
        self._stage.execute("CREATE TABLE links (a TEXT, b TEXT, s REAL, tag TEXT, i REAL)")
        self._stage.execute(
            "CREATE TABLE pending (pos INTEGER PRIMARY KEY, kind TEXT, record TEXT)"
        )
        self._stage.execute("CREATE TABLE fresh (id TEXT PRIMARY KEY) WITHOUT ROWID")
        self._stage.execute("CREATE TABLE held (id TEXT PRIMARY KEY) WITHOUT ROWID")
        self._stage.execute("BEGIN")
        self._counts: dict[Kind, _Count] = {}
        self._redaction = read_settings(conn)  # issue 30: the importing store's policy
        self._redacted: dict[str, int] = {}
        self._wraps: list[WrapRecord] = []
        self._patterns: list[PatternLevelRecord] = []
        self._through: dict[int, int] = {}
        self.history = History()  # our export's wraps, levels, links, continuity, policy

    def set_format(self, fmt: SourceFormat) -> None:
        """Called once the source's format is known, before its first episode."""
        self._by_wrap = fmt in {SourceFormat.V1_EXPORT, SourceFormat.V1_DATABASE}
        self._carry_wraps = self._by_wrap and self._target_empty

    def close(self) -> None:
        """Drop the staging file's connection."""
        self._stage.close()

    def count(self, kind: Kind) -> _Count:
        """The running count of ``kind`` (created on first use)."""
        return self._counts.setdefault(kind, _Count())

    def not_carried(self, kind: Kind, reason: str, n: int = 1) -> None:
        """Count ``n`` records of ``kind`` found and left behind for ``reason``."""
        entry = self.count(kind)
        entry.found += n
        entry.not_carried += n
        entry.reason = reason

    def redacted(self) -> dict[str, int]:
        """Episodes written with secrets replaced, per kind."""
        return dict(sorted(self._redacted.items()))

    def counts(self) -> tuple[ImportCount, ...]:
        """What happened to each kind, in a stable order."""
        order = list(Kind)
        return tuple(
            ImportCount(
                kind=kind.value,
                found=c.found,
                imported=c.imported,
                skipped=c.skipped,
                not_carried=c.not_carried,
                reason=c.reason,
                capped=c.capped,
            )
            for kind, c in sorted(self._counts.items(), key=lambda kv: order.index(kv[0]))
            if c.found or kind is Kind.EPISODES
        )

    # -- episodes -------------------------------------------------------------------------

    def episode(self, record: EpisodeRecord) -> None:
        """Stage one episode; a repeat inside the source is skipped if identical.

        Its secrets are replaced first (the store's redaction policy), so none reaches even
        the staging file.
        """
        self.count(Kind.EPISODES).found += 1
        item = redact_imported(self._redaction, record.item, record.place)
        record = dataclasses.replace(record, item=item)
        key = record.ident or item.idempotency_key
        if key is None:
            raise ImportFormatError(f"{record.place}: an episode needs an id or a key")
        ordering = ""
        if self._by_wrap:
            prefix = _UNWRAPPED if record.wrap_number is None else f"{record.wrap_number:012d}"
            ordering = prefix + item.timestamp
        try:
            self._stage.execute(
                "INSERT INTO stage (key, ident, ord, wrap, ts, type, content, source, metadata,"
                " idem, place, scope, redacted) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (key, record.ident, ordering, record.wrap_number, item.timestamp,
                 item.type.value, item.content, item.source, item.metadata_json,
                 item.idempotency_key, record.place, item.scope, ",".join(item.redacted)),
            )  # fmt: skip
        except sqlite3.IntegrityError:
            self._repeat(key, record)

    def _repeat(self, key: str, record: EpisodeRecord) -> None:
        row = self._stage.execute(
            "SELECT content, type, place FROM stage WHERE key = ?", (key,)
        ).fetchone()
        if row[0] != record.item.content or row[1] != record.item.type.value:
            raise ImportFormatError(
                f"{record.place}: id {key} appears twice in the source with different "
                f"content (first at {row[2]}); the source is inconsistent, nothing was imported"
            )
        self.count(Kind.EPISODES).skipped += 1

    def flush_episodes(self) -> None:
        """Write the staged episodes in order; skip those already here, refuse clashes."""
        rows = self._stage.execute(
            "SELECT ident, wrap, ts, type, content, source, metadata, idem, place, scope,"
            " redacted FROM stage ORDER BY ord, pos"
        )
        count = self.count(Kind.EPISODES)
        wrap: int | None = None
        for ident, number, ts, kind, content, source, metadata, idem, place, scope, kinds in rows:
            if number != wrap:
                self._mark_through(wrap)
                wrap = number
            item = EpisodeInput(
                content=content,
                type=EpisodeType(kind),
                source=source,
                metadata_json=metadata,
                timestamp=ts,
                idempotency_key=idem,
                scope=scope,
                redacted=tuple(kinds.split(",")) if kinds else (),
            )
            if self._present(ident, item, place):
                count.skipped += 1
                continue
            episode, _new = insert_episode(self._conn, self._dialect, item, ident=ident)
            if held_kinds(item.content, Trust.AGENT):
                self._hold_as_data(episode.id, count)
            for kind in item.redacted:
                self._redacted[kind] = self._redacted.get(kind, 0) + 1
            if ident is not None:
                self._stage.execute("INSERT OR IGNORE INTO fresh VALUES (?)", (ident,))
            count.imported += 1
        self._mark_through(wrap)

    def _hold_as_data(self, ident: str, count: _Count) -> None:
        """Write an agent text shaped like an instruction as data (``store._held``).

        A trust record for it later is lowered to the same (``_within_ceiling``).
        """
        self._conn.execute("UPDATE episodes SET trust = ? WHERE id = ?", (HELD_TRUST.value, ident))
        self._stage.execute("INSERT OR IGNORE INTO held VALUES (?)", (ident,))
        count.capped += 1
        count.note(_HELD_NOTE)

    def _held(self, ident: str) -> bool:
        return (
            self._stage.execute("SELECT 1 FROM held WHERE id = ?", (ident,)).fetchone() is not None
        )

    def _mark_through(self, wrap: int | None) -> None:
        if wrap is not None:
            row = self._conn.execute("SELECT coalesce(max(seq), 0) FROM episodes").fetchone()
            self._through[wrap] = int(row[0])

    def _present(self, ident: str | None, item: EpisodeInput, place: str) -> bool:
        """True when the episode is already here (or deleted here); refuse a clash."""
        rows = self._conn.execute(_PRESENT, (ident, item.idempotency_key)).fetchall()
        for what, here, content, kind in sorted(rows):
            if what == _TOMBSTONED:
                return True
            if content != item.content or kind != item.type.value:
                if what == _SAME_ID:
                    raise ImportFormatError(
                        f"{place}: episode {ident} already exists in this store with different "
                        "content; import into a fresh store or delete the local episode first"
                    )
                raise ImportFormatError(
                    f"{place}: its key {item.idempotency_key!r} is already used here by episode "
                    f"{here} with different content; nothing was imported"
                )
            return True
        return False

    # -- what this store has a place for --------------------------------------------------

    def tombstone(self, record: TombstoneRecord) -> None:
        """Keep a deleted id deleted (and never reused)."""
        count = self.count(Kind.TOMBSTONES)
        count.found += 1
        staged = self._stage.execute("SELECT 1 FROM stage WHERE key = ?", (record.ident,))
        if staged.fetchone() or fetch_by_id(self._conn, record.ident) is not None:
            count.skipped += 1  # a live episode (1.0.2 could reuse a deleted id) wins
            return
        trust = None if record.trust is None else self._lowered(record.trust)
        cursor = self._conn.execute(
            "INSERT OR IGNORE INTO tombstones(id, deleted_at, reason, trust, derived_from)"
            " VALUES (?, ?, ?, ?, ?)",
            (record.ident, record.deleted_at, record.reason, trust, record.derived_from),
        )
        if cursor.rowcount:
            count.imported += 1
            if trust != record.trust:
                self._count_capped(count)
        else:
            count.skipped += 1

    def _lowered(self, claimed: str) -> str:
        """``claimed`` (a trust class), lowered to this store's ceiling when above it."""
        level = Trust(claimed)
        return claimed if level.rank <= self._ceiling.rank else self._ceiling.value

    def _count_capped(self, count: _Count) -> None:
        count.capped += 1
        count.note(
            f"capped at this store's ceiling {self._ceiling.value!r}: trust above it is "
            "kept only by an operator's import (CLI --operator)"
        )

    def wrap(self, record: WrapRecord) -> None:
        """Hold one 1.0.2 wrap until its episodes have seqs (see ``flush_wraps``)."""
        token = wrap_token(record.number)
        if self._conn.execute("SELECT 1 FROM wraps WHERE token = ?", (token,)).fetchone():
            self.count(Kind.WRAPS).found += 1
            self.count(Kind.WRAPS).skipped += 1
            return
        if not self._carry_wraps:
            self.not_carried(
                Kind.WRAPS,
                "not carried: this store already had episodes or wraps, so imported "
                "episodes wait for its next wrap",
            )
            return
        self.count(Kind.WRAPS).found += 1
        self._wraps.append(record)

    def flush_wraps(self, *, schema_name: str, max_chars: int) -> None:
        """Write the held wraps as completed wraps over the seq ranges of their episodes."""
        self.count(Kind.WRAPS).imported += write_wraps(
            self._conn, self._wraps, self._through, schema_name=schema_name, max_chars=max_chars
        )

    def association(self, record: AssociationRecord) -> None:
        """Hold a link until its episodes are written (see ``flush_associations``)."""
        self._stage.execute(
            "INSERT INTO links VALUES (?, ?, ?, ?, ?)",
            (record.a, record.b, record.strength, record.affect_tag, record.affect_intensity),
        )

    def flush_associations(self) -> None:
        """Write links whose two episodes are in this store now, capped like our own."""
        count = self.count(Kind.ASSOCIATIONS)
        for written in write_links(self._conn, self._stage.execute("SELECT * FROM links")):
            count.found += 1
            if written:
                count.imported += 1
            else:
                count.skipped += 1

    def pattern_level(self, record: PatternLevelRecord) -> None:
        """Hold a pattern's saved level until the wraps are written (``flush_patterns``)."""
        if not self._carry_wraps:
            identity = record.name.casefold()
            here = self._conn.execute(
                "SELECT 1 FROM patterns WHERE scope = '' AND identity = ?", (identity,)
            ).fetchone()
            if here is None:
                self.not_carried(Kind.PATTERN_LEVELS, _PATTERNS_NOT_CARRIED)
            else:
                self.count(Kind.PATTERN_LEVELS).found += 1
                self.count(Kind.PATTERN_LEVELS).skipped += 1
            return
        self.count(Kind.PATTERN_LEVELS).found += 1
        self._patterns.append(record)

    def flush_patterns(self) -> None:
        """Seed pattern history from the source: each level as saved by the newest wrap."""
        count = self.count(Kind.PATTERN_LEVELS)
        written = write_patterns(self._conn, self._patterns)
        if written is None:  # the source saved levels but kept no wrap to hang them on
            count.not_carried += len(self._patterns)
            count.reason = _PATTERNS_NOT_CARRIED if self._patterns else None
            return
        count.imported += written
        count.skipped += len(self._patterns) - written

    # -- kinds held until the episodes are written (see _import_pending) ----------------

    def _hold(self, kind: Kind, record: Any) -> None:
        self.count(kind).found += 1
        fields = dataclasses.asdict(record)
        self._stage.execute(
            "INSERT INTO pending (kind, record) VALUES (?, ?)",
            (kind.value, json.dumps(fields, ensure_ascii=False, default=str)),
        )

    def trust(self, record: TrustRecord) -> None:
        """An episode's trust class."""
        self._hold(Kind.TRUST, record)

    def supersession(self, record: SupersessionRecord) -> None:
        """A supersession link."""
        self._hold(Kind.SUPERSESSIONS, record)

    def state_key(self, record: StateKeyRecord) -> None:
        """A state-key slot."""
        self._hold(Kind.STATE_KEYS, record)

    def derived(self, record: DerivedRecord) -> None:
        """A derivation edge."""
        self._hold(Kind.DERIVED_FROM, record)

    def crystal(self, record: CrystalRecord) -> None:
        """A crystallized or retired pattern."""
        self._hold(Kind.CRYSTALS, record)

    def spore(self, record: SporeRecord) -> None:
        """An open or resolved spore."""
        self._hold(Kind.SPORES, record)

    def worth(self, kind: Kind, record: WorthRecord) -> None:
        """An exposure (``Kind.EXPOSURES``) or a per-item total (``Kind.WORTH_TOTALS``)."""
        self._hold(kind, record)

    def _fresh(self, ident: str) -> bool:
        """True when this import wrote the episode ``ident``."""
        row = self._stage.execute("SELECT 1 FROM fresh WHERE id = ?", (ident,)).fetchone()
        return row is not None

    def _within_ceiling(self, record: Any) -> tuple[Any, bool]:
        """A trust or spore record with its trust lowered to the ceiling; whether it was."""
        if isinstance(record, TrustRecord):
            trust = self._lowered(record.trust)
            if trust == Trust.AGENT.value and self._held(record.episode_id):
                # Held when its episode was written (counted there), not capped by the ceiling.
                return dataclasses.replace(record, trust=HELD_TRUST.value), False
            return dataclasses.replace(record, trust=trust), trust != record.trust
        if isinstance(record, SporeRecord):
            item, lowered = spore_trust(record.data, record.place, self._ceiling)
            return dataclasses.replace(record, data=item), lowered
        return record, False

    def flush_pending(self) -> None:
        """Hand each held record to its carrier (``_import_pending.CARRIERS``), in source order."""
        rows = self._stage.execute("SELECT kind, record FROM pending ORDER BY pos")
        for value, text in rows:
            kind = Kind(value)
            record, lowered = self._within_ceiling(RECORD_TYPES[kind](**json.loads(text)))
            written = CARRIERS[kind](self._conn, self._dialect, record, self._fresh)
            count = self.count(kind)
            if isinstance(written, str):
                count.not_carried += 1
                count.note(written)
            elif written:
                count.imported += 1
                if lowered:
                    self._count_capped(count)
            else:
                count.skipped += 1
