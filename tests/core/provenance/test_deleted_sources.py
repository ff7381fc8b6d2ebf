"""Deleting a source does not launder trust: a tombstone keeps the deleted episode's trust and
its own ``derived_from``, and effective trust is capped through it (delete and prune).

The tests run on SQLite and on PostgreSQL (``tests/backends.py``).
"""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

from anneal_memory import Store, prepare_wrap, validated_save_continuity
from anneal_memory.testing import FrozenClock
from anneal_memory.types import Trust

sys.path.insert(0, str(Path(__file__).parents[2]))
sys.path.insert(0, str(Path(__file__).parent))

from backends import backend_store, pg_url, store_on_both_backends, target  # noqa: F401
from test_wrap_updates import build_text, codes, line_of, seed

PAGE = "A web page says the admin API accepts unauthenticated requests"
SUMMARY = "So the admin API accepts unauthenticated requests"


def test_deleting_the_page_keeps_its_summary_external(store: Store) -> None:
    page = store.record(PAGE, "observation", trust="external")
    summary = store.record(SUMMARY, "observation", derived_from=[page.id])
    assert store.delete(page.id)
    assert store.effective_trusts([summary.id]) == {summary.id: Trust.EXTERNAL}


def test_pruning_the_page_keeps_its_summary_external(store: Store, clock: FrozenClock) -> None:
    page = store.record(
        PAGE, "observation", trust="external", timestamp=clock.now() - dt.timedelta(days=40)
    )
    summary = store.record(SUMMARY, "observation", derived_from=[page.id])
    assert store.prune(30).deleted == 1
    assert store.effective_trusts([summary.id]) == {summary.id: Trust.EXTERNAL}


def test_a_deleted_sources_own_sources_still_cap(store: Store) -> None:
    page = store.record(PAGE, "observation", trust="external")
    note = store.record("Note: the admin API is open", "observation", derived_from=[page.id])
    summary = store.record(SUMMARY, "observation", derived_from=[note.id])
    assert store.delete(note.id)
    assert store.effective_trusts([summary.id]) == {summary.id: Trust.EXTERNAL}
    assert store.delete(page.id)
    assert store.effective_trusts([summary.id]) == {summary.id: Trust.EXTERNAL}


def test_a_deleted_agent_source_caps_at_agent(store: Store) -> None:
    tool = store.record("tool: admin API answered 200", "observation", trust="tool")
    note = store.record("I checked the admin API myself", "observation")
    summary = store.record(SUMMARY, "observation", derived_from=[tool.id, note.id])
    store.delete(note.id)
    store.delete(tool.id)
    assert store.effective_trusts([summary.id]) == {summary.id: Trust.AGENT}


def test_a_summary_of_a_deleted_page_cannot_graduate_a_pattern(store: Store) -> None:
    seed(store)
    page = store.record(
        "a web page: the pool sockets ran out under load", "observation", trust="external"
    )
    summary = store.record(
        "The pool sockets ran out again when load tripled", "observation", derived_from=[page.id]
    )
    store.delete(page.id)
    package = prepare_wrap(store).package
    assert package is not None
    line = (
        f"- pool_sizing | 2x ({package.today}) "
        f'[evidence: {summary.id} "pool sockets ran out under load"] [no-contradicts]'
    )
    result = validated_save_continuity(store, build_text([line]))
    assert "uncorroborated" in codes(result)
    assert line_of(store, "pool_sizing").startswith("- pool_sizing | 1x")


def test_the_tombstone_keeps_trust_across_export_and_import(
    store: Store,
    target: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    import io

    page = store.record(PAGE, "observation", trust="external")
    summary = store.record(SUMMARY, "observation", derived_from=[page.id])
    store.delete(page.id)
    out = io.StringIO()
    store.export_json(out)
    with Store(tmp_path / "copy" / "memory.db") as copy:
        copy.import_json(out.getvalue())
        assert copy.effective_trusts([summary.id]) == {summary.id: Trust.EXTERNAL}


def _back_to_the_version_before(url: str) -> None:
    """Undo the trust-kept step (the schema's last): tombstones and spores lose their columns."""
    statements = [
        "ALTER TABLE tombstones DROP COLUMN trust",
        "ALTER TABLE tombstones DROP COLUMN derived_from",
        "ALTER TABLE spores DROP COLUMN trust",
    ]
    if not url.startswith("postgresql"):
        import sqlite3

        from anneal_memory.store.sqlite._schema import SCHEMA_VERSION

        raw = sqlite3.connect(url)
        try:
            for statement in statements:
                raw.execute(statement)
            raw.execute(f"PRAGMA user_version={SCHEMA_VERSION - 1:d}")
            raw.commit()
        finally:
            raw.close()
        return
    import psycopg
    from anneal_memory.store.postgres._schema import PG_SCHEMA_VERSION, VERSION_KEY

    with psycopg.connect(url, autocommit=True) as raw:
        for statement in statements:
            raw.execute(statement)
        raw.execute(
            "UPDATE meta SET value = %s WHERE key = %s", (str(PG_SCHEMA_VERSION - 1), VERSION_KEY)
        )


def test_tombstones_of_an_older_store_are_backfilled_where_known(
    target: str,  # noqa: F811
    clock: FrozenClock,
) -> None:
    with Store(target, clock=clock) as store:
        page = store.record(PAGE, "observation", trust="external")
        note = store.record("I checked the admin API myself", "observation")
        of_page = store.record(SUMMARY, "observation", derived_from=[page.id])
        of_note = store.record("The admin API checks out", "observation", derived_from=[note.id])
        store.delete(page.id)
        store.delete(note.id)
    _back_to_the_version_before(target)
    with Store(target, clock=clock) as store:
        trusts = store.effective_trusts([of_page.id, of_note.id])
        assert trusts[of_page.id] is Trust.EXTERNAL
        # PostgreSQL's audit rows prove the note was the agent's; a SQLite trail is a file
        # beside the database the migration does not read, so the note's trust is unknown.
        assert trusts[of_note.id] is (Trust.AGENT if store.url else Trust.EXTERNAL)
