"""Where the continuity lives on each backend, and what a failed commit leaves behind."""

from __future__ import annotations

import pytest
from anneal_memory import Store, prepare_wrap, validated_save_continuity
from anneal_memory.continuity import wrap_status
from anneal_memory.errors import StoreDatabaseError
from test_save import build_text


def test_a_wrap_marker_links_the_episodes_on_both_backends(store: Store) -> None:
    old = store.record("The staging database listens on port 5432", "observation")
    prepare_wrap(store)
    validated_save_continuity(store, build_text())
    new = store.record("The staging database now listens on port 6543, not 5432", "observation")
    prepare_wrap(store)
    result = validated_save_continuity(
        store, build_text(context=f"- moved [supersedes: {old.id} by {new.id}]")
    )
    assert [f.code.value for f in result.findings] == ["supersession-recorded"]
    assert store.get(old.id).superseded_by == new.id  # type: ignore[union-attr]
    assert "[supersedes:" not in (store.load_continuity() or "")


def test_the_continuity_is_where_the_store_says(store: Store) -> None:
    store.record("something happened", "observation")
    prepare_wrap(store)
    result = validated_save_continuity(store, build_text())
    assert result.path == store.continuity_place().label
    assert store.load_continuity() == build_text()
    if isinstance(result.path, str):
        assert result.path.endswith("(table continuity)")
        assert result.path.startswith("postgresql://")


_FAIL_AT_COMMIT = """
CREATE FUNCTION refuse_continuity() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'refused at commit'; END $$;
CREATE CONSTRAINT TRIGGER refuse_at_commit AFTER INSERT OR UPDATE ON continuity
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION refuse_continuity();
"""


def test_on_postgresql_a_failed_commit_leaves_the_old_text_and_the_wrap_open(
    pg_url: str,
) -> None:
    """The text and the wrap's completion are one transaction: both commit or neither."""
    import psycopg

    with Store(pg_url, project_name="TestAgent") as store:
        store.record("first", "observation")
        prepare_wrap(store)
        validated_save_continuity(store, build_text(context="- first"))
        with psycopg.connect(pg_url, autocommit=True) as raw:
            raw.execute(_FAIL_AT_COMMIT)
        store.record("second", "observation")
        prep = prepare_wrap(store)
        with pytest.raises(StoreDatabaseError, match="refused at commit"):
            validated_save_continuity(store, build_text(context="- second"))
        assert store.load_continuity() == build_text(context="- first")
        still = wrap_status(store)
        assert still is not None
        assert still.token == prep.wrap_token
        assert [e["event"] for e in store.read_audit(event="wrap_completed")] == ["wrap_completed"]
        assert store.verify_audit().valid
        with psycopg.connect(pg_url, autocommit=True) as raw:
            raw.execute("DROP TRIGGER refuse_at_commit ON continuity")
        saved = validated_save_continuity(store, build_text(context="- second"))
        assert saved.episodes_compressed == 1
        assert store.load_continuity() == build_text(context="- second")
