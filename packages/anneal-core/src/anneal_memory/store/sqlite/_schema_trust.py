"""SQLite schema step: trust survives deletion, spores know their planter, slots per scope.

The step after scoped wraps in ``_schema.MIGRATIONS`` (kept here to keep that module small);
PostgreSQL's twin is ``store/postgres/_schema_trust.py``. The delete trigger it replaces is
the one of the supersession step, with the slot refresh limited to the deleted value's scope.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["TRUST_KEPT"]

# A tombstone keeps the deleted episode's own trust and derived_from, so an episode derived
# from it stays capped ("trust" NULL: deleted before this version; nothing in this database
# tells its trust, and effective trust counts it as external). A spore records the trust of
# whoever planted it; who planted the spores already here is not recorded anywhere: they
# count as the agent's.
# A state key's slot is per scope: each scope keeps its own value of a key (a deleted value
# hands the slot to the newest remaining one of its scope); every slot is recomputed so.
TRUST_KEPT: Sequence[str] = (
    """
    ALTER TABLE tombstones ADD COLUMN trust TEXT
        CHECK (trust IN ('external', 'tool', 'agent', 'operator'))
    """,
    "ALTER TABLE tombstones ADD COLUMN derived_from TEXT",
    """
    ALTER TABLE spores ADD COLUMN trust TEXT NOT NULL DEFAULT 'agent'
        CHECK (trust IN ('external', 'tool', 'agent', 'operator'))
    """,
    "DROP TRIGGER episodes_delete_supersessions",
    """
    CREATE TRIGGER episodes_delete_supersessions AFTER DELETE ON episodes BEGIN
        DELETE FROM supersessions WHERE old_id = old.id OR new_id = old.id;
        UPDATE episodes SET superseded_by = (
            SELECT s.new_id FROM supersessions s JOIN episodes n ON n.id = s.new_id
            WHERE s.old_id = episodes.id ORDER BY n.ts DESC, n.seq DESC LIMIT 1)
            WHERE superseded_by = old.id AND state_key IS NULL;
        UPDATE episodes SET superseded_by = nullif((
            SELECT k.id FROM episodes k WHERE k.state_key = old.state_key
                AND k.scope = old.scope
            ORDER BY k.ts DESC, k.seq DESC LIMIT 1), episodes.id)
            WHERE old.state_key IS NOT NULL AND state_key = old.state_key
                AND scope = old.scope;
    END
    """,
    """
    UPDATE episodes SET superseded_by = nullif((
        SELECT k.id FROM episodes k WHERE k.state_key = episodes.state_key
            AND k.scope = episodes.scope
        ORDER BY k.ts DESC, k.seq DESC LIMIT 1), episodes.id)
        WHERE state_key IS NOT NULL
    """,
)
