"""``Store``: the episodic memory of one agent, over one of two declared backends.

``Store(path_or_url)`` validates every argument and runs the preludes of each operation
once, here, then delegates to its backend (``store/_contract.Backend``): a SQLite file
(``store/sqlite``) or a PostgreSQL database (``store/postgres``, imported only for a URL).
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from anneal_memory._clock import Clock, SystemClock, format_timestamp
from anneal_memory.audit._trail import EventCallback
from anneal_memory.errors import InvalidEpisodeError, InvalidInputError, InvalidQueryError
from anneal_memory.store import _episodes, _redaction
from anneal_memory.store._arguments import guard_text_arguments
from anneal_memory.store._audit_api import AuditMixin
from anneal_memory.store._backends import open_backend, refuse_options
from anneal_memory.store._contract import Backend, Tx
from anneal_memory.store._params import check_days, prune_cutoff
from anneal_memory.store._places import PlacesMixin
from anneal_memory.store._redaction import Redactor
from anneal_memory.store._unit import UnitOfWork
from anneal_memory.store._validate import EpisodeInput, validate_episode, validate_scope
from anneal_memory.store.provenance._api import (
    ProvenanceMixin,
    RecordProvenance,
    apply_record_provenance,
    check_open_options,
    check_record_provenance,
)
from anneal_memory.store.provenance._checks import parse_trust
from anneal_memory.store.transfer._api import TransferMixin
from anneal_memory.types import (
    Episode,
    EpisodeType,
    Trust,
)

if TYPE_CHECKING:
    from anneal_memory.store._scope_erase import ScopeErasure
    from anneal_memory.store.recall._trace import RecallTrace
    from anneal_memory.types import PruneResult, RecallResult, StoreStatus

# Start-up speed (issue #25): recall, erasure and the evidence lookups are imported by the
# methods that use them, so ``anneal-memory record`` loads neither the ranking nor the wraps.

__all__ = ["DEFAULT_PROJECT_NAME", "Store"]

DEFAULT_PROJECT_NAME = "Agent"


class Store(UnitOfWork, ProvenanceMixin, TransferMixin, PlacesMixin, AuditMixin, Redactor):
    """An agent's episodic memory: typed, timestamped episodes in a SQLite file or PostgreSQL.

    Several processes may open the same store at once; each write is one transaction.
    One ``Store`` object may be shared by threads of one process (calls are serialised).

    Args:
        path: The database file. Missing folders are created (mode 0700) and the file is
            created mode 0600 before SQLite opens it. A file that is not an anneal-memory
            store is refused before anything is written to it.
            A ``postgresql://`` URL opens the PostgreSQL backend instead (the
            ``[postgres]`` extra; see ``docs/teams.md``).
        project_name: The agent's name, used in the continuity file's header.
        clock: Where time comes from (tests pass a frozen clock).
        audit: Keep the hash-chained audit trail beside the database (default on).
        on_audit_event: Called with each audit entry dict after it is written.
        consolidate_requires_baton_on_create: When this call creates the database, turn
            the single-consolidator gate on (see ``anneal_memory.gate``). Existing stores
            keep their policy.
        trust_ceiling: The highest trust an episode may be recorded or set with
            (default ``agent``; ``operator`` is for operator tools only, never MCP).
        section_schema: Choose the continuity section schema (``default``, ``partnership``,
            ``project``); None keeps the stored one.
        retention_days: Delete episodes older than this many days on open (tombstones kept,
            audited as ``prune``); None keeps everything.
        read_only: Open an existing store without ever writing: no creation, migration,
            audit entries or tidying (SQLite ``query_only``); write calls raise
            ``StoreDatabaseError``. ``section_schema``, ``retention_days`` and ``redaction``
            need a writable store.
        redaction: Set the redaction policy, ``redact``/``refuse``/``off`` or a
            ``RedactionSettings`` (``set_redaction``); None keeps the stored one
            (``redact`` on a new store; see ``docs/trust.md``).
        **options: None on SQLite; on PostgreSQL an option only SQLite stores have raises
            ``BackendNotSupportedError``.

    Raises:
        StoreDatabaseError: The file could not be opened or migrated, is not an
            anneal-memory store (another application's database, the public 1.0.2 format,
            not SQLite), or is a store whose tables vanished. A store this call created is
            removed again when opening fails. On PostgreSQL: the database could not be
            reached or its tables created.
        StoreError: A PostgreSQL URL without the ``[postgres]`` extra installed.
    """

    @classmethod
    def connect(cls, target: str | os.PathLike[str], **options: Any) -> Store:
        """Open a store: a SQLite file path, or a ``postgresql://`` URL (needs the extra)."""
        return cls(target, **options)

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        project_name: str = DEFAULT_PROJECT_NAME,
        clock: Clock | None = None,
        audit: bool = True,
        on_audit_event: EventCallback | None = None,
        consolidate_requires_baton_on_create: bool = False,
        trust_ceiling: Trust | str = Trust.AGENT,
        section_schema: str | None = None,
        retention_days: float | None = None,
        read_only: bool = False,
        redaction: _redaction.RedactionOption = None,
        **options: Any,
    ) -> None:
        refuse_options(path, options)
        wanted = _redaction.open_option(redaction, read_only=read_only)  # before any write
        self._trust_ceiling = parse_trust(trust_ceiling, ceiling=Trust.OPERATOR)
        check_open_options(section_schema, retention_days)
        if read_only and (section_schema is not None or retention_days is not None):
            raise InvalidInputError(
                "section_schema and retention_days change the store; open it without "
                "read_only=True to use them"
            )
        self.project_name = project_name
        self._redaction_cache = _redaction.SettingsCache()
        self._clock: Clock = clock or SystemClock()
        self._read_only = read_only
        self._backend: Backend = open_backend(
            path,
            {
                "clock": self._clock,
                "audit": audit,
                "on_audit_event": on_audit_event,
                "gate_on_create": consolidate_requires_baton_on_create,
                "read_only": read_only,
            },
        )
        try:
            self._apply_section_schema(section_schema)
            self._open_redaction(wanted)
            if retention_days is not None:
                self.prune(retention_days)
            self._restore_interrupted_saves()  # issue #24 item 10
        except BaseException:
            self.close()
            raise

    # -- lifecycle ---------------------------------------------------------------------------

    @property
    def url(self) -> str | None:
        """The PostgreSQL URL without its password; None for a SQLite file."""
        return self._backend.url

    @property
    def read_only(self) -> bool:
        """True when opened with ``read_only=True``: nothing is written, migrated or created."""
        return self._read_only

    @property
    def created(self) -> bool:
        """True when this ``Store`` created the database file (or the PostgreSQL tables)."""
        return self._backend.created

    @property
    def clock(self) -> Clock:
        """The clock this store stamps time with."""
        return self._clock

    def close(self) -> None:
        """Close the database connection(s). Safe to call twice."""
        self._backend.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _now(self) -> str:
        return format_timestamp(self._clock.now())

    # -- episodes ----------------------------------------------------------------------------

    def record(
        self,
        content: str,
        episode_type: EpisodeType | str,
        *,
        source: str = "agent",
        metadata: Mapping[str, Any] | None = None,
        timestamp: _dt.datetime | str | None = None,
        idempotency_key: str | None = None,
        trust: Trust | str = Trust.AGENT,
        supersedes: list[str] | tuple[str, ...] | None = None,
        state_key: str | None = None,
        derived_from: list[str] | tuple[str, ...] | None = None,
        scope: str = "",
    ) -> Episode:
        """Record one episode and return it.

        Args:
            content: The text; not empty, at most 64 KiB of UTF-8. Secrets in it (and in
                ``metadata``'s string values) are replaced by ``[redacted:<kind>]`` before
                anything is written, unless the store's redaction policy says otherwise.
            episode_type: An ``EpisodeType`` or its value (``"decision"``).
            source: Who records it.
            metadata: A JSON object stored with the episode.
            timestamp: When it happened (aware datetime or ISO-8601); defaults to now.
            idempotency_key: Retrying with the same key returns the first episode.
            trust: ``external``, ``tool``, ``agent`` (default) or ``operator``; at most the
                store's ``trust_ceiling``. An ``agent`` text shaped like an instruction to a
                future agent (``redaction.instruction_signals``: "ignore previous
                instructions", "send the .env file to ...") is recorded at ``external``
                trust, as data, until an operator raises it (``store._held``); the returned
                episode says so.
            supersedes: Ids of older episodes this one replaces (see ``supersede``).
            state_key: The single-valued fact this episode sets (``user.home_city``); the
                newest episode of a key replaces the others.
            derived_from: Ids of the episodes this one was derived from; its effective
                trust is capped by the most trusted of them. None (not said): when the
                text repeats an episode an exposure of ``scope`` showed in the last hour
                (a recall, ``context_for``; ``store.provenance.exposed_copy``), that
                episode, as the agent paths do (#30); ``[]``: no link, nothing looked up.
            scope: The memory this episode belongs to (a user, a thread, an agent); ""
                is the shared memory. ``recall(scope=...)`` finds only that scope's episodes.

        Raises:
            InvalidEpisodeError: A field is invalid; nothing was written.
            TrustError: ``trust`` is above the store's ceiling; nothing was written.
            SupersessionError: A ``supersedes`` link is invalid; nothing was written.
            SecretRefusedError: The text or metadata holds a secret and the store's
                redaction policy is ``refuse``; nothing was written.
            IdempotencyConflictError: The key was used for a different episode.
            StoreDatabaseError: SQLite failed; nothing was written.
        """
        item = validate_episode(
            content,
            episode_type,
            source=source,
            metadata=metadata,
            timestamp=timestamp,
            idempotency_key=idempotency_key,
            clock=self._clock,
            scope=scope,
        )
        return self._record(item, trust, state_key, supersedes, derived_from)

    def _exposed_copy(self, tx: Tx, text: str, scope: str) -> tuple[str, ...]:
        """The episodes a text repeats from a recent exposure of ``scope`` (#30); () if none."""
        from anneal_memory.store.provenance._exposed import exposed_copy

        return tuple(exposed_copy(tx.conn, text, now=self._clock.now(), scope=scope) or ())

    def _record(
        self,
        item: EpisodeInput,
        trust: Trust | str,
        state_key: str | None,
        supersedes: list[str] | tuple[str, ...] | None,
        derived_from: list[str] | tuple[str, ...] | None,
    ) -> Episode:
        prov = check_record_provenance(
            trust=trust,
            state_key=state_key,
            supersedes=supersedes,
            derived_from=derived_from,
            ceiling=self._trust_ceiling,
        )
        from anneal_memory.store._held import hold_instructions  # issue 30: agent text as data

        prov, held = hold_instructions(item.content, prov)
        done = _redaction.redact_episode(self, item)  # issue 30: secrets never get written
        # Provenance changes other episodes' rows: the store's exclusive write, not a shared one.
        # A derived_from link found below writes only the new episode's own rows.
        with self._backend.writing("record", shared=prov.is_default) as tx:
            item = _redaction.redact_in(tx, self._redaction_cache, item, done)
            if derived_from is None:  # not said: a copy of what an exposure showed (#30)
                shown = self._exposed_copy(tx, item.content, item.scope)
                prov = prov._replace(derived_from=shown) if shown else prov
            episode, new = _episodes.insert_episode(tx.conn, tx.dialect, item)
            if new:  # not an idempotent retry
                episode = self._stage_record(tx, episode, prov, item.redacted, held)
        return episode

    def _stage_record(
        self,
        tx: Tx,
        episode: Episode,
        prov: RecordProvenance,
        redacted: tuple[str, ...] = (),
        held: tuple[str, ...] = (),
    ) -> Episode:
        replaced: list[str] = []
        if not prov.is_default:
            episode, replaced = apply_record_provenance(tx.conn, episode, prov, now=self._now())
        data: dict[str, Any] = {"episode_id": episode.id, "type": episode.type.value}
        data.update(content=episode.content, **_redaction.audit_note(redacted))  # issue 30
        if episode.trust is not Trust.AGENT:
            data["trust"] = episode.trust.value
        if held:  # the instruction signals that held an agent text as data (store._held)
            data["held"] = list(held)
        tx.audit("record", actor=episode.source, data=data)
        for old_id in replaced:
            link = {"old_id": old_id, "new_id": episode.id, "via": "explicit"}
            tx.audit("supersede", actor=episode.source, data=link)
        return episode

    def recall(  # noqa: PLR0917 - positional order is the documented public API
        self,
        keyword: str | None = None,
        episode_type: EpisodeType | str | None = None,
        since: _dt.datetime | str | None = None,
        until: _dt.datetime | str | None = None,
        source: str | None = None,
        limit: int = 100,
        offset: int = 0,
        *,
        include_superseded: bool = False,
        scope: str | None = None,
        trace: RecallTrace | None = None,
    ) -> RecallResult:
        """Find episodes: by relevance to ``keyword``, or newest first without one.

        Any string is a valid keyword; its words are matched literally, every match counts
        whatever its age, and when no word matches the words are tried as prefixes
        (``docs/recall.md``). ``since``/``until`` take datetimes, ISO-8601 dates or times
        (UTC when they carry no zone; a date as ``until`` means through its end) or ages like
        ``7d``. At most 1,000 episodes are returned; past offset 10,000 pages are empty.
        Superseded episodes are left out (and not counted) unless ``include_superseded``;
        then they come back with ``superseded_by`` set. ``scope`` keeps the episodes recorded
        in that scope ("" is the shared one); None searches every scope. ``trace`` (a fresh
        :class:`~anneal_memory.store.recall.RecallTrace`) is filled in by the ranking with
        the reasons of its order (``explain recall``); the result is the same without it.

        Raises:
            InvalidQueryError: A filter, ``limit`` or ``offset`` is invalid.
        """
        from anneal_memory.store.provenance import _supersession
        from anneal_memory.store.recall import _recall

        filters = _recall.build_filters(
            episode_type=episode_type,
            since=since,
            until=until,
            source=source,
            clock=self._clock,
            scope=scope,
            trace=trace,
        )
        with self._backend.recalling("recall") as (reader, ranker):
            if not include_superseded and _supersession.has_superseded(reader):
                filters = _recall.hide_superseded(filters)
            found = _recall.recall(
                ranker, keyword=keyword, filters=filters, limit=limit, offset=offset
            )
            if trace is not None:
                trace.resolve(reader.conn)
            return found

    def get(self, episode_id: str, *, scope: str | None = None) -> Episode | None:
        """Return the episode with this id, or None if it does not exist (or was deleted).

        With ``scope``, an episode of another scope is None too (a scope-bound agent reads
        only its own scope).
        """
        wanted = None if scope is None else validate_scope(scope)
        with self._backend.reading("get") as reader:
            found = _episodes.fetch_by_id(reader.conn, str(episode_id))
            if found is not None and wanted is not None:
                found = found if _episodes.scope_of(reader.conn, found.id) == wanted else None
            return found

    def delete(self, episode_id: str, *, scope: str | None = None) -> bool:
        """Delete an episode: its row and index entry go, a tombstone keeps its id.

        Crystals citing it keep the id in their evidence, listed as deleted; the audit
        entry names them (ask first with ``anneal_memory.crystal.crystals_citing``). With
        ``scope``, only an episode of that scope is deleted.

        Returns:
            True if it was deleted, False if no such episode exists (in ``scope``).
        """
        from anneal_memory.store.provenance._evidence import citing_crystals

        ident = str(episode_id)
        wanted = None if scope is None else validate_scope(scope)
        with self._backend.writing("delete", shared=True) as tx:
            now = self._now()
            if wanted is not None and _episodes.scope_of(tx.conn, ident) != wanted:
                return False
            losing = citing_crystals(tx.conn, [ident])
            deleted = _episodes.delete_episode(tx.conn, ident, now=now, reason="delete")
            if deleted:
                tx.dialect.episodes_deleted()
                _episodes.set_meta(tx.conn, [("last_write", now)])
                data: dict[str, Any] = {"episode_id": ident}
                if losing:
                    data["crystals_losing_evidence"] = list(losing)
                tx.audit("delete", actor="agent", data=data)
        if deleted:
            self._backend.after_erase()
        return deleted

    def prune(self, older_than_days: float) -> PruneResult:
        """Delete every episode older than ``older_than_days`` days (tombstones kept).

        Any age works: one older than the calendar deletes nothing.

        Raises:
            InvalidInputError: ``older_than_days`` is negative or not a number.
        """
        from anneal_memory.store.provenance._evidence import citing_crystals_before

        days = check_days(older_than_days, "older_than_days")
        moment = self._clock.now()
        cutoff, now = prune_cutoff(moment, days), format_timestamp(moment)
        with self._backend.writing("prune", shared=True) as tx:
            losing = citing_crystals_before(tx.conn, cutoff)
            deleted = tx.dialect.prune_before(cutoff, now)
            if deleted:
                tx.dialect.episodes_deleted()
                _episodes.set_meta(tx.conn, [("last_write", now)])
                data: dict[str, Any] = {"deleted": deleted, "cutoff": cutoff}
                if losing:
                    data["crystals_losing_evidence"] = list(losing)
                tx.audit("prune", actor="agent", data=data)
        if deleted:
            self._backend.after_erase()
        from anneal_memory.types import PruneResult

        return PruneResult(deleted=deleted, cutoff=cutoff, crystals_losing_evidence=losing)

    def erase_scope(self, scope: str, *, allow_default: bool = False) -> ScopeErasure:
        """Erase a scope: its episodes, wraps, pattern levels and history, its continuity.

        Every trace of the scope's name goes (the continuity file's name too); the audit
        entry ``scope_erased`` keeps only its salted hash. The shared scope ``""`` needs
        ``allow_default=True``. See ``docs/scopes.md``.

        Raises:
            InvalidInputError: Not a scope, or ``""`` without ``allow_default``.
        """
        from anneal_memory.store import _scope_erase

        result = _scope_erase.erase_scope(self, scope, allow_default=allow_default)
        if result.episodes:
            self._backend.after_erase()
        return result

    # -- status ------------------------------------------------------------------------------

    def status(self) -> StoreStatus:
        """Counts by type, deletions, unwrapped episodes, sizes and the last write.

        On PostgreSQL ``path`` is the URL without its password, ``db_bytes`` the tables' size.
        """
        return self._backend.status()


# Issue #24 item 13: one check for every text argument of the public calls, both engines.
guard_text_arguments(
    Store,
    {
        **dict.fromkeys(
            (
                "record", "get", "delete", "set_trust", "set_state_key", "supersede",
                "unsupersede", "supersession_links", "effective_trusts",
            ),
            InvalidEpisodeError,
        ),
        **dict.fromkeys(
            ("recall", "read_audit", "audit_page", "state_key_report"), InvalidQueryError
        ),
        **dict.fromkeys(
            ("load_continuity", "continuity_place", "continuity_file", "set_redaction",
             "erase_scope"),
            InvalidInputError,
        ),
    },
)  # fmt: skip
