"""The ``Store`` methods for updated facts and provenance (a mixin of :class:`Store`).

Supersession links, state-key slots, trust levels and the record-time provenance of an
episode. Rules and messages live in ``_supersession`` and ``_provenance``; this layer opens
the transactions and writes the audit events after each commit.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from anneal_memory.errors import (
    EpisodeNotFoundError,
    SupersessionError,
    TrustError,
)
from anneal_memory.store._contract import Reader, SqlConnection, Tx
from anneal_memory.store._episodes import fetch_by_id
from anneal_memory.store._params import check_days
from anneal_memory.store.provenance._checks import (
    effective_trusts,
    episode_scope,
    normalise_ids,
    normalise_state_key,
    parse_trust,
    write_provenance,
)
from anneal_memory.types import Episode, Trust

if TYPE_CHECKING:
    from anneal_memory.types import StateSlot, SupersessionLink

__all__ = [
    "ProvenanceMixin",
    "RecordProvenance",
    "check_open_options",
    "check_record_provenance",
]

_SCHEMA_META_KEY = "section_schema"


class RecordProvenance(NamedTuple):
    """The validated provenance arguments of one ``record`` call."""

    trust: Trust
    state_key: str | None
    supersedes: tuple[str, ...]
    derived_from: tuple[str, ...]

    @property
    def is_default(self) -> bool:
        """True when nothing beyond an agent-trust, unkeyed, unlinked episode was asked."""
        return (
            self.trust is Trust.AGENT
            and self.state_key is None
            and not self.supersedes
            and not self.derived_from
        )


def check_open_options(section_schema: object, retention_days: object) -> None:
    """Refuse a bad ``section_schema`` or ``retention_days`` before the store is opened.

    Raises:
        InvalidSchemaError: No section schema has that name.
        InvalidInputError: ``retention_days`` is not a number of 0 or more.
    """
    if section_schema is not None:
        from anneal_memory.document._schema import schema_by_name  # pure table of schemas

        schema_by_name(str(section_schema))
    if retention_days is not None:
        check_days(retention_days, "retention_days", none_ok=True)


def check_record_provenance(
    *,
    trust: object,
    state_key: object,
    supersedes: object,
    derived_from: object,
    ceiling: Trust,
) -> RecordProvenance:
    """Validate the provenance arguments of ``record`` before anything is written.

    Raises:
        TrustError: The trust level is unknown or above the ceiling.
        InvalidEpisodeError: A state key or an id list is malformed.
    """
    return RecordProvenance(
        trust=parse_trust(trust, ceiling=ceiling),
        state_key=normalise_state_key(state_key),
        supersedes=normalise_ids(supersedes, "supersedes"),
        derived_from=normalise_ids(derived_from, "derived_from"),
    )


def _unsaid(message: str, ident: str) -> str:
    """A refusal of ``record``: the new episode is rolled back, so its id means nothing."""
    message = message.replace(f"episode {ident}", "the new episode")
    message = message.replace(ident, "the new episode")
    return f"{message}. Nothing was written."


def apply_record_provenance(
    conn: SqlConnection, episode: Episode, prov: RecordProvenance, *, now: str
) -> tuple[Episode, list[str]]:
    """Write the provenance of a just-inserted episode; return it re-read and the ids it replaced.

    Raises:
        SupersessionError: A ``supersedes`` link is invalid (the caller rolls back).
        InvalidEpisodeError: A ``derived_from`` id does not exist.
    """
    from anneal_memory.store.provenance import _supersession as _links

    write_provenance(
        conn,
        episode.id,
        trust=prov.trust,
        state_key=prov.state_key,
        derived_from=prov.derived_from,
    )
    replaced = []
    if prov.state_key is not None:
        try:
            _links.check_slot(conn, prov.state_key, episode.id)
        except TrustError as exc:
            raise TrustError(_unsaid(str(exc), episode.id)) from None
        _links.refresh_slot(conn, prov.state_key, episode_scope(conn, episode.id))
    for old_id in prov.supersedes:
        try:
            added = _links.add_link(conn, old_id, episode.id, via=_links.VIA_EXPLICIT, now=now)
        except SupersessionError as exc:
            raise SupersessionError(_unsaid(str(exc), episode.id)) from None
        if added:
            replaced.append(old_id)
    fresh = fetch_by_id(conn, episode.id)
    return (fresh if fresh is not None else episode), replaced


class ProvenanceMixin:
    """Supersession, state keys and trust on a :class:`Store` (see the module docstring)."""

    if TYPE_CHECKING:
        _trust_ceiling: Trust

        @property
        def url(self) -> str | None: ...
        @property
        def path(self) -> Path: ...
        def writing(
            self, operation: str, *, durable: bool = True
        ) -> contextlib.AbstractContextManager[Tx]: ...
        def reading(self, operation: str) -> contextlib.AbstractContextManager[Reader]: ...
        def _now(self) -> str: ...

    @property
    def trust_ceiling(self) -> Trust:
        """The highest trust an episode may be recorded with in this store."""
        return self._trust_ceiling

    def supersede(self, old_id: str, new_id: str) -> bool:
        """Mark ``old_id`` as replaced by ``new_id``; False when that link already existed.

        The old episode is kept but hidden from recall (``include_superseded=True`` shows it
        with ``superseded_by``) and can no longer ground a graduation.

        Raises:
            SupersessionError: The link breaks a rule (see ``docs/updates.md``); nothing written.
        """
        from anneal_memory.store.provenance import _supersession as _links

        old, new = str(old_id).strip().lower(), str(new_id).strip().lower()
        with self.writing("supersede") as tx:
            added = _links.add_link(tx.conn, old, new, via=_links.VIA_EXPLICIT, now=self._now())
            if added:
                data = {"old_id": old, "new_id": new, "via": "explicit"}
                tx.audit("supersede", actor="agent", data=data)
        return added

    def unsupersede(self, old_id: str, new_id: str) -> bool:
        """Remove the link "``old_id`` replaced by ``new_id``"; False when there was none."""
        from anneal_memory.store.provenance import _supersession as _links

        old, new = str(old_id).strip().lower(), str(new_id).strip().lower()
        with self.writing("unsupersede") as tx:
            removed = _links.remove_link(tx.conn, old, new)
            if removed:
                tx.audit("unsupersede", actor="agent", data={"old_id": old, "new_id": new})
        return removed

    def supersession_links(self, ids: Sequence[str] | None = None) -> list[SupersessionLink]:
        """Explicit and wrap links (all, or those touching ``ids``), oldest first."""
        from anneal_memory.store.provenance import _supersession as _links

        with self.reading("supersession_links") as reader:
            return _links.links_of(reader.conn, ids)

    def state_key_report(self, key: str | None = None) -> list[StateSlot]:
        """Every state key (or ``key``) with its current episode and the ones it replaced."""
        from anneal_memory.store.provenance import _supersession as _links

        wanted = normalise_state_key(key)
        with self.reading("state_key_report") as reader:
            return _links.slot_report(reader, wanted)

    def _existing(self, conn: SqlConnection, episode_id: str, operation: str) -> Episode:
        episode = fetch_by_id(conn, str(episode_id).strip().lower())
        if episode is None:
            raise EpisodeNotFoundError(
                f"no episode with id {episode_id!r}",
                operation=operation,
                path=None if self.url is not None else self.path,
            )
        return episode

    def set_state_key(self, episode_id: str, key: str | None) -> Episode:
        """Put an episode into a state-key slot (``key=None`` takes it out); return it.

        The newest episode of a slot is current; the others are replaced by it.

        Raises:
            EpisodeNotFoundError: No such episode.
            InvalidEpisodeError: The key is malformed.
            TrustError: A less trusted episode would replace a more trusted one in the slot
                (see ``docs/updates.md``); nothing was written.
        """
        from anneal_memory.store.provenance import _supersession as _links

        wanted = normalise_state_key(key)
        with self.writing("set_state_key") as tx:
            conn = tx.conn
            episode = self._existing(conn, episode_id, "set_state_key")
            conn.execute(
                "UPDATE episodes SET state_key = ?, superseded_by = NULL WHERE id = ?",
                (wanted, episode.id),
            )
            scope = episode_scope(conn, episode.id)
            if episode.state_key is not None:
                _links.refresh_slot(conn, episode.state_key, scope)
            if wanted is not None:
                _links.check_slot(conn, wanted, episode.id)
                conn.execute("DELETE FROM supersessions WHERE old_id = ?", (episode.id,))
                _links.refresh_slot(conn, wanted, scope)
            else:
                _links.refresh_superseded(conn, episode.id)
            fresh = fetch_by_id(conn, episode.id)
            tx.audit(
                "supersede" if wanted is not None else "unsupersede",
                actor="operator",
                data={"episode_id": episode.id, "via": "state_key", "state_key": wanted},
            )
        assert fresh is not None
        return fresh

    def effective_trusts(self, ids: Sequence[str]) -> dict[str, Trust]:
        """Effective trust of each existing episode among ``ids`` (capped by ``derived_from``)."""
        with self.reading("effective_trust") as reader:
            return effective_trusts(reader.conn, ids)

    def set_trust(
        self, episode_id: str, trust: Trust | str, *, allow_raise: bool = False
    ) -> Episode:
        """Change an episode's trust and return it. Lowering is always allowed.

        Raising needs ``allow_raise=True`` (the CLI passes it only with its operator flag) and
        never goes above the store's ceiling.

        Raises:
            EpisodeNotFoundError: No such episode.
            TrustError: Unknown level, above the ceiling, or a raise without ``allow_raise``.
        """
        level = parse_trust(trust, ceiling=self._trust_ceiling)
        with self.writing("set_trust") as tx:
            episode = self._existing(tx.conn, episode_id, "set_trust")
            if level.rank > episode.trust.rank and not allow_raise:
                raise TrustError(
                    f"raising episode {episode.id} from {episode.trust.value} to {level.value} "
                    "needs an operator: run 'anneal-memory trust ID LEVEL --operator' (or set "
                    "ANNEAL_OPERATOR=1). Lowering needs nothing. Nothing was written."
                )
            tx.conn.execute("UPDATE episodes SET trust = ? WHERE id = ?", (level.value, episode.id))
            tx.audit(
                "trust_set",
                actor="operator" if allow_raise else "agent",
                data={"episode_id": episode.id, "from": episode.trust.value, "to": level.value},
            )
        return dataclasses.replace(episode, trust=level)

    def _apply_section_schema(self, name: str | None) -> None:
        if name is None:
            return
        from anneal_memory.document._schema import schema_by_name  # pure table of schemas

        schema = schema_by_name(name)
        with self.reading("set_section_schema") as reader:
            row = reader.conn.execute(
                "SELECT value FROM meta WHERE key = ?", (_SCHEMA_META_KEY,)
            ).fetchone()
        if row is not None and str(row[0]) == schema.name:
            return
        if row is None and schema.name == "default":
            return
        with self.writing("set_section_schema") as tx:
            tx.conn.execute(
                "INSERT INTO meta(key, value) VALUES (?, ?)"
                " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (_SCHEMA_META_KEY, schema.name),
            )
            tx.audit("section_schema_set", actor="operator", data={"schema": schema.name})
