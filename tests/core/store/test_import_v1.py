"""Importing a store written by the real public anneal-memory 1.0.2 (database and export)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest
from anneal_memory import ImportFormatError, ImportReport, Store


def _snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.iterdir())}


def _v1_rows(db: Path) -> dict[str, tuple[str, str, str, str, dict[str, object]]]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT id, timestamp, type, content, source, metadata FROM episodes")
        return {r[0]: (r[1], r[2], r[3], r[4], json.loads(r[5]) if r[5] else {}) for r in rows}
    finally:
        conn.close()


def _kinds(report: ImportReport) -> dict[str, tuple[int, int, int, int]]:
    return {c.kind: (c.found, c.imported, c.skipped, c.not_carried) for c in report.counts}


def test_a_1_0_2_database_comes_across_and_is_never_modified(v1_store: Path, store: Store):
    expected = json.loads((v1_store.parent / "expected.json").read_text(encoding="utf-8"))
    source_rows = _v1_rows(v1_store)
    before = _snapshot(v1_store.parent)

    report = store.import_from(v1_store)

    assert _snapshot(v1_store.parent) == before
    assert report.format == "anneal-memory-1.0.2-database"
    assert report.sha256 == hashlib.sha256(v1_store.read_bytes()).hexdigest()
    kinds = _kinds(report)
    assert kinds["episodes"] == (len(source_rows), len(source_rows), 0, 0)
    assert kinds["tombstones"] == (1, 1, 0, 0)
    assert kinds["wraps"] == (1, 1, 0, 0)
    assert kinds["associations"] == (1, 1, 0, 0)
    assert kinds["continuity"] == (1, 1, 0, 0)
    assert kinds["pattern_levels"] == (1, 1, 0, 0)
    for kind, n in (("trust", 2), ("supersessions", 1), ("state_keys", 1), ("spores", 2)):
        assert kinds[kind] == (n, n, 0, 0), kind
    assert kinds["crystals"] == (1, 1, 0, 0)

    for ident, (ts, kind, content, source, metadata) in source_rows.items():
        episode = store.get(ident)
        assert episode is not None
        assert (episode.timestamp, episode.type.value, episode.content) == (ts, kind, content)
        assert (episode.source, episode.metadata) == (source, metadata)
    assert store.get(expected["deleted"]) is None
    assert store.status().deleted_episodes == 1
    assert store.status().episodes_since_wrap == expected["unwrapped"]
    source_text = (v1_store.parent / "mem.continuity.md").read_text(encoding="utf-8")
    assert store.load_continuity() == source_text
    with store.reading("test") as reader:
        links = reader.conn.execute("SELECT a, b, strength FROM associations").fetchall()
    assert [(a, b, s) for a, b, s in links] == [(*expected["associated"], 2.5)]


def _wrap_count(store: Store) -> int:
    with store.reading("t") as reader:
        return int(reader.conn.execute("SELECT count(*) FROM wraps").fetchone()[0])


def test_a_dry_run_counts_the_same_and_writes_nothing(v1_store: Path, store: Store):
    events: list[str] = []
    audited = Store(store.path, on_audit_event=lambda e: events.append(e["event"]))
    dry = audited.import_from(v1_store, dry_run=True)
    assert dry.dry_run
    assert store.status().total_episodes == 0
    assert store.load_continuity() is None
    assert _wrap_count(store) == 0
    assert "import" not in events

    real = audited.import_from(v1_store)
    assert _kinds(real) == _kinds(dry)
    assert events.count("import") == 1
    audited.close()


def test_a_second_import_adds_nothing_and_audits_hash_and_counts(v1_store: Path, store: Store):
    entries: list[dict[str, object]] = []
    audited = Store(store.path, on_audit_event=entries.append)
    first = audited.import_from(v1_store)
    second = audited.import_from(v1_store)
    assert all(c.imported == 0 for c in second.counts), second.counts
    assert second.count("episodes").skipped == first.count("episodes").imported
    assert store.status().total_episodes == first.count("episodes").imported
    imports = [e for e in entries if e["event"] == "import"]
    assert len(imports) == 2
    data = imports[0]["data"]
    assert data["source_sha256"] == first.sha256
    assert data["format"] == "anneal-memory-1.0.2-database"
    assert data["counts"]["episodes"] == first.count("episodes").imported
    assert data["counts"]["crystals"] == 1
    assert data["not_carried"]["crystals"] == 0
    audited.close()


def test_a_1_0_2_json_export_comes_across(v1_store: Path, store: Store):
    export = v1_store.parent / "export.json"
    rows = _v1_rows(v1_store)
    report = store.import_from(export)
    assert report.format == "anneal-memory-1.0.2-export"
    assert _kinds(report)["episodes"] == (len(rows), len(rows), 0, 0)
    assert _kinds(report)["wraps"] == (1, 1, 0, 0)
    for ident, (ts, kind, content, _source, _metadata) in rows.items():
        episode = store.get(ident)
        assert episode is not None
        assert (episode.timestamp, episode.type.value, episode.content) == (ts, kind, content)
    assert store.status().episodes_since_wrap == 2
    assert store.load_continuity() == (v1_store.parent / "mem.continuity.md").read_text("utf-8")
    assert store.import_from(export).count("episodes").imported == 0


def test_an_id_that_collides_with_other_content_refuses_everything(v1_store: Path, store: Store):
    victim = next(iter(_v1_rows(v1_store)))
    with store.writing("t") as tx:
        tx.conn.execute(
            "INSERT INTO episodes (id, ts, type, content, source) VALUES"
            " (?, '2026-01-01T00:00:00.000000Z', 'observation', 'something else', 'agent')",
            (victim,),
        )
    with pytest.raises(ImportFormatError, match=rf"{victim} already exists .*different content"):
        store.import_from(v1_store)
    assert store.status().total_episodes == 1
    assert store.load_continuity() is None
    assert _wrap_count(store) == 0


def test_a_continuity_that_does_not_fit_refuses_everything(v1_store: Path, store: Store):
    (v1_store.parent / "mem.continuity.md").write_text("# just a title\n", encoding="utf-8")
    with pytest.raises(ImportFormatError, match=r"mem\.continuity\.md does not fit"):
        store.import_from(v1_store)
    assert store.status().total_episodes == 0


def test_an_existing_continuity_is_kept_and_reported(v1_store: Path, store: Store):
    store.sidecar(".continuity.md").write_text("# mine\n", encoding="utf-8")
    report = store.import_from(v1_store)
    assert _kinds(report)["continuity"] == (1, 0, 0, 1)
    assert "already has" in (report.count("continuity").reason or "")
    assert store.load_continuity() == "# mine\n"


def test_a_damaged_1_0_2_database_is_refused_by_name(v1_store: Path, store: Store):
    data = v1_store.read_bytes()
    v1_store.write_bytes(data[: len(data) // 3])
    with pytest.raises(ImportFormatError, match=r"mem\.db"):
        store.import_from(v1_store)
    assert store.status().total_episodes == 0


_WRITER = """
import sqlite3, sys
import anneal_memory
conn = sqlite3.connect(sys.argv[1])
anneal_memory.register_writer_schema(conn)
conn.execute("INSERT INTO episodes (id, timestamp, type, content, source) VALUES"
             " ('0000abcd', '2026-12-01T00:00:00Z', 'observation', 'only in the log', 'agent')")
conn.commit()
print("ready", flush=True)
sys.stdin.readline()
conn.close()
"""


def test_a_live_1_0_2_writer_log_is_read_and_left_alone(
    v1_store: Path, store: Store, public102_python: Path
):
    import subprocess

    writer = subprocess.Popen(
        [str(public102_python), "-c", _WRITER, str(v1_store)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout is not None
        assert writer.stdout.readline().strip() == "ready"
        wal = v1_store.with_name("mem.db-wal")
        assert wal.stat().st_size > 0
        before = (v1_store.read_bytes(), wal.read_bytes())
        store.import_from(v1_store)
        assert (v1_store.read_bytes(), wal.read_bytes()) == before
        episode = store.get("0000abcd")
        assert episode is not None
        assert episode.content == "only in the log"
    finally:
        writer.communicate("done\n", timeout=30)


def test_imported_pattern_levels_let_the_next_save_climb_from_them(v1_store: Path, tmp_path):
    from anneal_memory import prepare_wrap, validated_save_continuity

    with Store(tmp_path / "moved" / "memory.db") as moved:
        moved.import_from(v1_store)
        new = moved.record("One file keeps the tooling portable and simple", "observation")
        prepared = prepare_wrap(moved)
        assert prepared.package is not None
        today = prepared.package.today
        old = moved.load_continuity() or ""
        line = next(x for x in old.splitlines() if x.startswith("- embedded_store"))
        climbed = f'- embedded_store | 2x ({today}) [evidence: {new.id} "tooling stays portable"]'
        result = validated_save_continuity(
            moved, old.replace(line, climbed), wrap_token=prepared.wrap_token
        )
        assert result.graduations_validated == 1
        assert "embedded_store | 2x" in (moved.load_continuity() or "")
        # the line joins the imported history (whose explanation guards against rephrasing)
        with moved.reading("t") as reader:
            history = reader.conn.execute(
                "SELECT count(*) FROM pattern_history WHERE identity = 'embedded_store'"
            ).fetchone()[0]
        assert history == 2


def test_a_hostile_crystal_file_is_refused_by_name(v1_store: Path, store: Store):
    nested = "[" * 900 + "]" * 900
    (v1_store.parent / "mem.crystal.json").write_text(
        '{"crystal": [{"name": "x", "notes": ' + nested + "}]}", encoding="utf-8"
    )
    with pytest.raises(ImportFormatError, match=r"mem\.crystal\.json crystal\[0\] is nested"):
        store.import_from(v1_store)
    assert store.status().total_episodes == 0
