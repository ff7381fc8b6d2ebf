"""PostgreSQL schema step: what SQLite's ``episodes_delete_supersessions`` trigger does.

A deleted replacement gives its old episodes back their next replacement (or none); a
deleted state-key value hands the slot to the newest remaining episode of the key. The
statements are those of the SQLite trigger (``store/sqlite/_schema.py``), as a PL/pgSQL function.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["SUPERSESSION_CLEANUP_V3"]

SUPERSESSION_CLEANUP_V3: Sequence[str] = (
    """CREATE FUNCTION anneal_episodes_delete_supersessions() RETURNS trigger
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
                ORDER BY k.ts DESC, k.seq DESC LIMIT 1), episodes.id)
                WHERE state_key = OLD.state_key;
        END IF;
        RETURN OLD;
    END $$""",
    """CREATE TRIGGER episodes_delete_supersessions AFTER DELETE ON episodes
        FOR EACH ROW EXECUTE FUNCTION anneal_episodes_delete_supersessions()""",
)
