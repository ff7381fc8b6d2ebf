"""The closed vocabulary of audit events and the canonical form of one trail line."""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from typing import Any

from anneal_memory.errors import InvalidInputError

__all__ = ["ENTRY_VERSION", "AuditEvent", "encode_entry", "parse_event"]

ENTRY_VERSION = 1


class AuditEvent(str, enum.Enum):
    """Every event the audit trail accepts. Anything else is a programming error."""

    RECORD = "record"
    DELETE = "delete"
    PRUNE = "prune"
    IMPORT = "import"
    SUPERSEDE = "supersede"
    UNSUPERSEDE = "unsupersede"
    TRUST_SET = "trust_set"
    WRAP_STARTED = "wrap_started"
    WRAP_CANCELLED = "wrap_cancelled"
    WRAP_COMPLETED = "wrap_completed"
    CONTINUITY_SAVED = "continuity_saved"
    CONTINUITY_REFUSED = "continuity_refused"
    CONTINUITY_RESTORED = "continuity_restored"
    SECTION_SCHEMA_SET = "section_schema_set"
    SECTION_REPLACED = "section_replaced"
    ASSOCIATIONS_UPDATED = "associations_updated"
    ASSOCIATIONS_DECAYED = "associations_decayed"
    SCHEMA_MIGRATED = "schema_migrated"
    CONSOLIDATE_POLICY_SET = "consolidate_policy_set"
    REDACTION_POLICY_SET = "redaction_policy_set"
    BATON_CLAIMED = "baton_claimed"
    BATON_TAKEN = "baton_taken"
    BATON_RELEASED = "baton_released"
    CRYSTAL_CHANGED = "crystal_changed"
    SPORE_CHANGED = "spore_changed"
    AUDIT_REPAIRED = "audit_repaired"
    SCOPE_ERASED = "scope_erased"
    OUTCOME_RECORDED = "outcome_recorded"
    EXPOSURES_PRUNED = "exposures_pruned"
    PROBE_CHANGED = "probe_changed"
    MIGRATE_ACKNOWLEDGED = "migrate_acknowledged"

    def __str__(self) -> str:
        return self.value


_BY_VALUE = {member.value: member for member in AuditEvent}
# What json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=True) builds on
# every call, made once.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def parse_event(event: AuditEvent | str) -> AuditEvent:
    """Return the ``AuditEvent`` for ``event``.

    Raises:
        InvalidInputError: ``event`` is not in the vocabulary.
    """
    if isinstance(event, AuditEvent):
        return event
    found = _BY_VALUE.get(str(event))
    if found is None:
        raise InvalidInputError(
            f"unknown audit event {event!r}; the vocabulary is closed: add it to "
            "AuditEvent in anneal_memory/audit/_events.py"
        )
    return found


def encode_entry(
    *,
    seq: int,
    ts: str,
    event: AuditEvent,
    actor: str,
    data: Mapping[str, Any],
    prev_hash: str,
    dropped_before: int = 0,
    intent: int | None = None,
) -> tuple[dict[str, Any], bytes]:
    """Build one entry and its canonical line: compact ASCII JSON, sorted keys, no newline.

    The chain hashes these exact bytes, so the rendering must never change for a version.
    ``intent`` is the entry's row id in the store's audit outbox, when it came from there.
    """
    entry: dict[str, Any] = {
        "v": ENTRY_VERSION,
        "seq": seq,
        "ts": ts,
        "event": event.value,
        "actor": actor,
        "data": dict(data),
        "prev_hash": prev_hash,
    }
    if dropped_before:
        entry["dropped_before"] = dropped_before
    if intent is not None:
        entry["intent"] = intent
    text = _CANONICAL.encode(entry)
    return entry, text.encode("ascii")
