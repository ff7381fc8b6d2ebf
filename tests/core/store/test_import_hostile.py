"""Bad or hostile files given to ``import_from``: an error naming the place, nothing written."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path

import pytest
from anneal_memory import ImportFormatError, Store


def _export(store: Store, n: int = 3) -> str:
    for i in range(n):
        store.record(f"fact number {i}", "observation")
    buffer = io.StringIO()
    store.export_json(buffer)
    return buffer.getvalue()


@pytest.fixture
def target(tmp_path: Path) -> Store:
    with Store(tmp_path / "target" / "memory.db") as opened:
        yield opened


def _refused(target: Store, path: Path, match: str) -> None:
    with pytest.raises(ImportFormatError, match=match):
        target.import_from(path)
    with pytest.raises(ImportFormatError, match=match):
        target.import_from(path, dry_run=True)
    assert target.status().total_episodes == 0
    assert target.status().deleted_episodes == 0


def test_our_export_still_round_trips_through_import_from(store: Store, target: Store, tmp_path):
    source = tmp_path / "export.json"
    source.write_text(_export(store), encoding="utf-8")
    report = target.import_from(source)
    assert report.format == "anneal-memory-export"
    assert report.count("episodes").imported == 3
    assert [e.to_dict() for e in target.recall(limit=9).episodes] == [
        e.to_dict() for e in store.recall(limit=9).episodes
    ]
    assert target.import_from(source).count("episodes").skipped == 3


def test_a_truncated_export_names_the_episode_it_stops_in(store, target, tmp_path: Path):
    text = _export(store)
    source = tmp_path / "cut.json"
    source.write_text(text[: text.index("fact number 2") + 4], encoding="utf-8")
    _refused(target, source, r"episodes\[2\] \(truncated\)")


def test_wrong_types_are_named(store, target, tmp_path: Path):
    document = json.loads(_export(store))
    document["episodes"][1]["content"] = 42
    source = tmp_path / "typed.json"
    source.write_text(json.dumps(document), encoding="utf-8")
    _refused(target, source, r"episodes\[1\] .* content must be text")
    document["episodes"] = {"not": "a list"}
    source.write_text(json.dumps(document), encoding="utf-8")
    _refused(target, source, "episodes .*must be a list")


def test_deep_nesting_is_refused(store, target, tmp_path: Path):
    text = _export(store, 1)
    deep = "[" * 200_000 + "]" * 200_000
    source = tmp_path / "deep.json"
    source.write_text(text.replace('"metadata": {}', f'"metadata": {{"x": {deep}}}'), "utf-8")
    _refused(target, source, r"episodes\[0\] is nested too deeply")


def test_deep_metadata_within_the_parser_limit_is_still_refused(target, tmp_path: Path):
    nested: object = 1
    for _ in range(40):
        nested = {"k": nested}
    line = {"id": "0a0b0c0d", "timestamp": "2026-01-01T00:00:00Z", "type": "decision",
            "content": "x", "source": "agent", "metadata": nested}  # fmt: skip
    source = tmp_path / "v1.json"
    source.write_text(
        json.dumps({"anneal_memory_export": True, "format_version": 1, "episodes": [line]}),
        encoding="utf-8",
    )
    _refused(target, source, r"episodes\[0\]: metadata is nested more than 32 levels")


def test_a_100_mb_line_is_refused_after_reading_a_bounded_part(target, tmp_path: Path):
    source = tmp_path / "memory.json"
    with source.open("wb") as out:
        out.write(b'{"type":"entity","name":"A","entityType":"t","observations":["')
        block = b"x" * (1024 * 1024)
        for _ in range(100):
            out.write(block)
        out.write(b'"]}\n')
    _refused(target, source, "line 1 is longer than 16 MiB")


def test_a_huge_single_value_in_an_export_is_refused(target, tmp_path: Path):
    source = tmp_path / "big.json"
    with source.open("w", encoding="utf-8") as out:
        out.write('{"format": "anneal-memory-export", "format_version": 1, "episodes": [')
        out.write('{"id": "0a0b0c0d", "content": "' + "y" * (17 * 1024 * 1024) + '"}]}')
    _refused(target, source, r"episodes\[0\] is over 16 MiB")


def test_repeated_ids_with_different_content_in_one_source(store, target, tmp_path: Path):
    document = json.loads(_export(store, 2))
    document["episodes"][1]["id"] = document["episodes"][0]["id"]
    source = tmp_path / "twice.json"
    source.write_text(json.dumps(document), encoding="utf-8")
    _refused(target, source, r"episodes\[1\]: id .* appears twice .*first at episodes\[0\]")


def test_server_memory_lines_with_wrong_shapes(target, tmp_path: Path):
    source = tmp_path / "memory.json"
    source.write_text(
        '{"type":"entity","name":"A","entityType":"t","observations":["ok"]}\n'
        '{"type":"entity","name":"B","entityType":"t","observations":[7]}',
        encoding="utf-8",
    )
    _refused(target, source, "line 2 observation 1 must be text")
    source.write_text(
        '{"type":"entity","name":"A","entityType":"t","observations":[]}\n{"type":"relation"',
        encoding="utf-8",
    )
    _refused(target, source, "line 2 is not valid JSON .*truncated")


def test_files_that_are_no_known_format(target, tmp_path: Path):
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    _refused(target, empty, "empty")
    text = tmp_path / "notes.txt"
    text.write_text("just some notes", encoding="utf-8")
    _refused(target, text, "not a format anneal-memory can import")
    other = tmp_path / "other.json"
    other.write_text('{"not": "an export", "episodes": []}', encoding="utf-8")
    _refused(target, other, "not an export anneal-memory can read")
    binary = tmp_path / "bad.json"
    binary.write_bytes(b'{"format": "\xff\xfe"}')
    _refused(target, binary, "not UTF-8")
    _refused(target, tmp_path / "missing.json", "No such file")


def test_foreign_databases_are_refused_by_name(store: Store, target: Store, tmp_path: Path):
    store.record("mine", "observation")
    _refused(target, store.path, "is an anneal-memory 2 store")
    plain = tmp_path / "plain.db"
    conn = sqlite3.connect(plain)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    _refused(target, plain, "not an anneal-memory 1.0.2 store")
    with pytest.raises(ImportFormatError, match="own database"):
        target.import_from(target.path)


def test_a_byte_order_mark_is_accepted(store: Store, target: Store, tmp_path: Path):
    source = tmp_path / "bom.json"
    source.write_bytes(b"\xef\xbb\xbf" + _export(store, 2).encode("utf-8"))
    assert target.import_from(source).count("episodes").imported == 2
    lines = tmp_path / "memory.json"
    lines.write_bytes(
        b'\xef\xbb\xbf{"type":"entity","name":"A","entityType":"t","observations":[]}'
    )
    assert target.import_from(lines).count("episodes").imported == 1


def _v1_episode(ident: str, content: str) -> dict[str, object]:
    fields = {"timestamp": "2026-10-01T10:00:00.000000Z", "type": "observation", "source": "agent"}
    return {"id": ident, "content": content, "session_id": None, "metadata": None, **fields}


def test_a_1_0_2_episode_over_our_size_limit_is_reported_not_carried(target, tmp_path: Path):
    source = tmp_path / "v1.json"
    episodes = [_v1_episode("0a0b0c0d", "fits"), _v1_episode("1a1b1c1d", "z" * 70_000)]
    source.write_text(
        json.dumps({"anneal_memory_export": True, "format_version": 1, "episodes": episodes}),
        encoding="utf-8",
    )
    count = target.import_from(source).count("episodes")
    assert (count.found, count.imported, count.not_carried) == (2, 1, 1)
    assert "1a1b1c1d" in (count.reason or "")
    assert target.get("0a0b0c0d") is not None


def test_a_live_episode_wins_over_a_tombstone_of_its_id(store: Store, target: Store, tmp_path):
    document = json.loads(_export(store, 2))
    alive = document["episodes"][0]["id"]
    document["tombstones"] = [{"id": alive, "deleted_at": "2026-01-01T00:00:00Z", "reason": "x"}]
    source = tmp_path / "reused.json"
    source.write_text(json.dumps(document), encoding="utf-8")
    report = target.import_from(source)
    assert (report.count("tombstones").found, report.count("tombstones").skipped) == (1, 1)
    assert target.get(alive) is not None
    assert target.status().deleted_episodes == 0


@pytest.mark.reliability  # a sweep over every truncation point: the battery's CI tier runs it
@pytest.mark.parametrize("kind", ["export", "memory"])
def test_every_truncation_point_is_a_clean_refusal(store: Store, target: Store, tmp_path, kind):
    if kind == "export":
        data = _export(store, 3).encode("utf-8")
    else:
        data = (
            b'{"type":"entity","name":"A","entityType":"t","observations":["x","y"]}\n'
            b'{"type":"relation","from":"A","to":"B","relationType":"knows"}'
        )
    source = tmp_path / "cut"
    outcomes = set()
    for end in range(1, len(data)):
        source.write_bytes(data[:end])
        try:
            target.import_from(source, dry_run=True)
            outcomes.add("ok")
        except ImportFormatError:
            outcomes.add("refused")
        assert target.status().total_episodes == 0
    assert "refused" in outcomes


def test_1_0_2_wraps_become_consecutive_ranges_over_their_episodes(target, tmp_path: Path):
    sessions = ["3", "1", None, "2", "1", "4"]  # newest first would not matter: order by wrap
    episodes = [
        {**_v1_episode(f"{i:08x}", f"episode {i}"), "session_id": s, "timestamp":
         f"2026-10-0{i + 1}T10:00:00.000000Z"}
        for i, s in enumerate(sessions)
    ]  # fmt: skip
    wraps = [
        {"id": n, "wrapped_at": f"2026-10-1{n}T00:00:00Z", "episodes_compressed": c}
        for n, c in ((1, 2), (2, 1), (3, 1))
    ]
    source = tmp_path / "v1.json"
    source.write_text(
        json.dumps(
            {"anneal_memory_export": True, "format_version": 1, "episodes": episodes,
             "wraps": wraps}
        ),
        encoding="utf-8",
    )  # fmt: skip
    assert target.import_from(source).count("wraps").imported == 3
    with target.reading("t") as reader:
        rows = reader.conn.execute(
            "SELECT after_seq, through_seq, save_no FROM wraps ORDER BY id"
        ).fetchall()
    assert rows == [(0, 2, 1), (2, 3, 2), (3, 4, 3)]
    assert target.status().episodes_since_wrap == 2  # session 4 (not wrapped yet) and None
    with target.reading("t") as reader:
        order = reader.conn.execute("SELECT id FROM episodes ORDER BY seq").fetchall()
    assert [r[0] for r in order][:4] == ["00000001", "00000004", "00000003", "00000000"]
