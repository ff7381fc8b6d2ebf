"""``export`` and ``import`` through the CLI."""

from __future__ import annotations

import hashlib
import json
import stat
from pathlib import Path


def _record_three(run_cli) -> list[str]:
    ids = [
        run_cli("record", "first 🌱", "--json").assert_ok().json()["id"],
        run_cli("record", "second", "--type", "decision", "--metadata", '{"a": 1}', "--json")
        .assert_ok()
        .json()["id"],
        run_cli("record", "third", "--json").assert_ok().json()["id"],
    ]
    run_cli("delete", ids[2], "--force").assert_ok()
    return ids


def test_export_to_stdout_is_one_json_document(run_cli):
    _record_three(run_cli)
    document = run_cli("export").assert_ok().json()
    assert isinstance(document, dict)
    assert len(document["episodes"]) == 2


def test_export_file_is_private_and_not_overwritten_without_force(run_cli, tmp_path: Path):
    _record_three(run_cli)
    target = tmp_path / "backup.json"
    data = run_cli("export", "--format", "json", "-o", str(target), "--json").assert_ok().json()
    assert data == {"path": str(target), "format": "json", "episodes": 2}
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    first = target.read_bytes()

    target.write_text("precious", encoding="utf-8")
    err = run_cli("export", "-o", str(target)).assert_error(1)
    assert "--force" in err
    assert target.read_text(encoding="utf-8") == "precious"

    assert (
        "does not exist" in run_cli("export", "-o", str(tmp_path / "no" / "x.json")).assert_error()
    )
    assert "is a directory" in run_cli("export", "-o", str(tmp_path)).assert_error()
    run_cli("export", "-o", str(target), "--force").assert_ok()
    assert json.loads(target.read_bytes())["episodes"] == json.loads(first)["episodes"]
    assert not [p for p in tmp_path.iterdir() if ".tmp" in p.name]


def test_export_import_round_trip_keeps_every_field(run_cli, tmp_path: Path, cli_db: Path):
    ids = _record_three(run_cli)
    target = tmp_path / "out.json"
    run_cli("export", "-o", str(target)).assert_ok()
    other = tmp_path / "other" / "memory.db"

    imported = run_cli("--db", str(other), "import", str(target), "--json", db=False)
    data = imported.assert_ok().json()
    keys = ("source", "imported", "skipped_existing", "tombstones_added")
    keys += ("crystals_imported", "spores_imported")
    assert {k: data[k] for k in keys} == {
        "source": str(target),
        "imported": 2,
        "skipped_existing": 0,
        "tombstones_added": 1,
        "crystals_imported": 0,
        "spores_imported": 0,
    }
    assert data["format"] == "anneal-memory-export"
    assert data["dry_run"] is False
    assert data["sha256"] == hashlib.sha256(target.read_bytes()).hexdigest()
    original = run_cli("episodes", "--json").json()["episodes"]
    copied = run_cli("--db", str(other), "episodes", "--json", db=False).json()["episodes"]
    assert copied == original
    assert {e["id"] for e in copied} == set(ids[:2])

    again = run_cli("--db", str(other), "import", "-", "--json", db=False, stdin=target.read_text())
    assert again.assert_ok().json()["skipped_existing"] == 2


def test_import_rejects_bad_input_cleanly(run_cli, tmp_path: Path):
    run_cli("init").assert_ok()
    garbage = tmp_path / "garbage.json"
    garbage.write_text('{"not": "an export"}', encoding="utf-8")
    run_cli("import", str(garbage)).assert_error(1)
    run_cli("import", "-", stdin="this is not json").assert_error(1)
    run_cli("import", "-", stdin="").assert_error(1)
    assert "No such file" in run_cli("import", str(tmp_path / "missing.json")).assert_error(1)
    assert run_cli("status", "--json").json()["total_episodes"] == 0


def _memory_json(path: Path) -> None:
    path.write_text(
        '{"type":"entity","name":"Alice","entityType":"person","observations":["Prefers tea"]}\n'
        '{"type":"relation","from":"Alice","to":"Acme","relationType":"works_at"}',
        encoding="utf-8",
    )


def test_import_dry_run_reports_and_creates_nothing(run_cli, tmp_path: Path, cli_db: Path):
    source = tmp_path / "memory.json"
    _memory_json(source)
    dry = run_cli("import", str(source), "--dry-run").assert_ok()
    assert "Would import from" in dry.out
    assert "episodes: 2 found, 2 to import" in dry.out
    assert "Dry run: nothing was written." in dry.out
    assert not cli_db.exists()

    data = run_cli("import", str(source), "--json").assert_ok().json()
    assert (data["format"], data["imported"], data["dry_run"]) == ("server-memory-jsonl", 2, False)
    again = run_cli("import", str(source), "--dry-run", "--json").assert_ok().json()
    assert (again["imported"], again["skipped_existing"], again["dry_run"]) == (0, 2, True)


def test_import_of_a_1_0_2_store_says_what_cannot_come_across(run_cli, v1_store: Path):
    before = v1_store.read_bytes()
    dry = run_cli("import", str(v1_store), "--dry-run").assert_ok()
    assert "anneal-memory-1.0.2-database" in dry.out
    assert "crystals: 1 found, 1 to import" in dry.out
    assert "spores: 2 found, 2 to import" in dry.out
    assert "not carried yet" not in dry.out
    real = run_cli("import", str(v1_store), "--json").assert_ok().json()
    assert (real["crystals_imported"], real["spores_imported"]) == (1, 2)
    counts = {c["kind"]: c for c in real["counts"]}
    assert counts["wraps"]["imported"] == 1
    assert counts["continuity"]["imported"] == 1
    assert v1_store.read_bytes() == before
    assert "## Patterns" in run_cli("continuity").assert_ok().out
    audit = run_cli("audit", "--event", "import", "--json").assert_ok().json()
    assert len(audit["entries"]) == 1


def test_import_of_hostile_input_is_one_error_line(run_cli, tmp_path: Path):
    run_cli("init").assert_ok()
    source = tmp_path / "memory.json"
    source.write_text('{"type":"entity","name":"A","entityType":"t","observations":[', "utf-8")
    err = run_cli("import", str(source)).assert_error(1)
    assert "line 1 is not valid JSON" in err
    assert run_cli("status", "--json").json()["total_episodes"] == 0


def test_export_markdown_lists_continuity_then_episodes_by_day(run_cli, tmp_path: Path):
    run_cli("record", "first\n# not a heading", "--type", "decision").assert_ok()
    run_cli("record", "second").assert_ok()
    text = run_cli("export", "--format", "markdown").assert_ok().out
    assert text.index("## Continuity") < text.index("## Episodes")
    assert "(No continuity file yet.)" in text
    assert len([line for line in text.splitlines() if line.startswith("### 20")]) == 1
    assert "  \\# not a heading" in text
    assert "**decision**" in text
    assert [line for line in text.splitlines() if line.startswith("#")][:3] == [
        "# Agent — anneal-memory export",
        "## Continuity",
        "## Episodes",
    ]
    target = tmp_path / "dump.md"
    data = run_cli("export", "--format", "markdown", "-o", str(target), "--json").assert_ok()
    assert data.json() == {"path": str(target), "format": "markdown", "episodes": 2}
    assert target.read_text(encoding="utf-8").startswith("# Agent")


def test_import_from_stdin_names_stdin_in_errors(run_cli):
    run_cli("init").assert_ok()
    err = run_cli("import", "-", stdin='{"format": "anneal-memory-export", "format_version": 1, '
                  '"episodes": [{"id": "nothex!!"}]}').assert_error(1)  # fmt: skip
    assert "episodes[0] has an invalid id" in err
    assert "anneal-import-" not in err
