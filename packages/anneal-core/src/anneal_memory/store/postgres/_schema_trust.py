"""PostgreSQL schema step: trust survives deletion, spores know their planter, slots per scope.

The columns of SQLite's ``TRUST_KEPT`` step (``store/sqlite/_schema_trust.py``). A tombstone keeps
the deleted episode's own trust and ``derived_from``; the tombstones already here get the
trust the audit rows of this database prove: the last ``trust_set`` of the episode, else its
``record`` entry's trust (``agent`` when the entry names none). An episode deleted without a
``record`` entry (imported, or recorded with the audit off) keeps NULL: its trust is unknown
and effective trust counts it as external. A deleted episode's own ``derived_from`` was never
audited and stays unknown. Spores already here count as the agent's. The delete function of
``_schema_links`` hands a slot to the newest remaining value of its scope, and every slot is
recomputed per scope.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["TRUST_KEPT"]

_LEVELS = "('external', 'tool', 'agent', 'operator')"

TRUST_KEPT: Sequence[str] = (
    f"ALTER TABLE tombstones ADD COLUMN trust text CHECK (trust IN {_LEVELS})",
    "ALTER TABLE tombstones ADD COLUMN derived_from text",
    f"""ALTER TABLE spores ADD COLUMN trust text NOT NULL DEFAULT 'agent'
        CHECK (trust IN {_LEVELS})""",
    """UPDATE tombstones t SET trust = known.trust FROM (
        SELECT DISTINCT ON (ident) ident, trust FROM (
            SELECT seq, j -> 'data' ->> 'episode_id' AS ident,
                CASE WHEN j ->> 'event' = 'trust_set' THEN j -> 'data' ->> 'to'
                    ELSE coalesce(j -> 'data' ->> 'trust', 'agent') END AS trust
            FROM (SELECT seq, line::jsonb AS j FROM audit_entries
                WHERE EXISTS (SELECT 1 FROM tombstones)) AS lines
            WHERE j ->> 'event' IN ('record', 'trust_set')) AS facts
        ORDER BY ident, seq DESC) AS known
    WHERE known.ident = t.id AND known.trust IN ('external', 'tool', 'agent', 'operator')""",
    """CREATE OR REPLACE FUNCTION anneal_episodes_delete_supersessions() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        DELETE FROM supersessions WHERE old_id = OLD.id OR new_id = OLD.id;
        UPDATE episodes SET superseded_by = (
            SELECT s.new_id FROM supersessions s JOIN episodes n ON n.id = s.new_id
            WHERE s.old_id = episodes.id ORDER BY n.ts DESC, n.seq DESC LIMIT 1)
            WHERE superseded_by = OLD.id AND state_key IS NULL;
        IF OLD.state_key IS NOT NULL THEN
            UPDATE episodes SET superseded_by = nullif((
                SELECT k.id FROM episodes k WHERE k.state_key = OLD.state_key
                    AND k.scope = OLD.scope
                ORDER BY k.ts DESC, k.seq DESC LIMIT 1), episodes.id)
                WHERE state_key = OLD.state_key AND scope = OLD.scope;
        END IF;
        RETURN OLD;
    END $$""",
    """UPDATE episodes SET superseded_by = nullif((
        SELECT k.id FROM episodes k WHERE k.state_key = episodes.state_key
            AND k.scope = episodes.scope
        ORDER BY k.ts DESC, k.seq DESC LIMIT 1), episodes.id)
        WHERE state_key IS NOT NULL""",
)
