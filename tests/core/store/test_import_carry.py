"""``import`` carries trust, supersession links, state keys, derived_from, crystals and spores.

Sources: a store and an export written by the real public anneal-memory 1.0.2 (see
tests/fixtures/public102_build.py), and our own export (which must come across through
``import_from`` exactly as through ``import_json``).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from anneal_memory import ImportFormatError, ImportReport, Store
from anneal_memory.crystal import crystallize, get_crystal, list_crystals, retire_crystal
from anneal_memory.spores import add_spore, descend_spore, get_spore, list_spores, update_spore
from anneal_memory.testing import FrozenClock

_CARRIED = ("trust", "supersessions", "state_keys", "derived_from", "crystals", "spores")


def _kinds(report: ImportReport) -> dict[str, tuple[int, int, int, int]]:
    return {c.kind: (c.found, c.imported, c.skipped, c.not_carried) for c in report.counts}


def _by_content(store: Store) -> dict[str, str]:
    with store.reading("t") as reader:
        return dict(reader.conn.execute("SELECT content, id FROM episodes"))


def test_a_1_0_2_database_brings_its_provenance_crystals_and_spores(v1_store: Path, store: Store):
    expected = json.loads((v1_store.parent / "expected.json").read_text(encoding="utf-8"))
    report = store.import_from(v1_store)
    for kind, n in (("trust", 2), ("supersessions", 1), ("state_keys", 1), ("crystals", 1)):
        assert _kinds(report)[kind] == (n, n, 0, 0), kind
    ids = _by_content(store)
    page = store.get(ids["A web page says the local store uses SQLite WAL mode"])
    tension = store.get(ids["Is the FTS index needed?"])
    city = store.get(ids["The user lives in Berlin"])
    assert page is not None
    assert tension is not None
    assert city is not None
    assert (page.trust.value, tension.trust.value) == ("external", "tool")
    assert page.superseded_by == expected["superseded"][page.id]
    assert [(link.old_id, link.via) for link in store.supersession_links()] == [
        (page.id, "explicit")
    ]
    assert city.state_key == "user.city"
    assert [s.key for s in store.state_key_report()] == ["user.city"]

    crystal = get_crystal(store, "embedded_store")
    assert crystal is not None
    assert (crystal.level, crystal.explanation) == (2, "SQLite for local agents")
    assert crystal.evidence == (expected["ids"][0],)
    assert crystal.retirement is None
    spores = {s.text: s for s in list_spores(store, status="all")}
    task, question = spores["Benchmark WAL checkpoints"], spores["Is the FTS index needed?"]
    assert (task.id, task.status, task.domain) == ("spore-001", "resolved", "storage")
    assert task.resolution is not None
    assert (task.resolution.direction, task.resolution.kind) == ("descend", "done")
    assert (question.id, question.status, question.salience) == ("spore-002", "open", 2)


_DERIVE = """
import sys
from anneal_memory import EpisodeType, Store
store = Store(sys.argv[1], project_name="Test")
rows = store._conn.execute("SELECT id FROM episodes WHERE content LIKE 'A web page%'").fetchall()
store.record("Summary of the page: WAL mode", EpisodeType.OBSERVATION, derived_from=[rows[0][0]])
store.close()
"""


def test_a_1_0_2_derivation_edge_comes_across_and_caps_trust(
    v1_store: Path, store: Store, public102_python: Path
):
    import subprocess

    subprocess.run(
        [str(public102_python), "-c", _DERIVE, str(v1_store)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    report = store.import_from(v1_store)
    assert _kinds(report)["derived_from"] == (1, 1, 0, 0)
    ids = _by_content(store)
    page, summary = (
        ids["A web page says the local store uses SQLite WAL mode"],
        ids["Summary of the page: WAL mode"],
    )
    episode = store.get(summary)
    assert episode is not None
    assert episode.derived_from == (page,)
    assert episode.trust.value == "agent"
    assert store.effective_trusts([summary])[summary].value == "external"


def test_a_1_0_2_export_brings_trust_and_links(v1_store: Path, store: Store):
    report = store.import_from(v1_store.parent / "export.json")
    assert _kinds(report)["trust"] == (2, 2, 0, 0)
    assert _kinds(report)["supersessions"] == (1, 1, 0, 0)
    ids = _by_content(store)
    page = store.get(ids["A web page says the local store uses SQLite WAL mode"])
    assert page is not None
    assert page.trust.value == "external"
    assert page.superseded_by == ids["The local store uses SQLite WAL mode with a busy timeout"]


def test_dry_run_counts_them_and_a_re_run_imports_nothing_twice(v1_store: Path, store: Store):
    dry = store.import_from(v1_store, dry_run=True)
    assert store.status().total_episodes == 0
    assert list_crystals(store, status="all") == []
    real = store.import_from(v1_store)
    assert _kinds(dry) == _kinds(real)
    for kind in ("trust", "supersessions", "state_keys", "crystals", "spores"):
        assert _kinds(real)[kind][1] > 0, kind
    again = store.import_from(v1_store)
    for kind in ("trust", "supersessions", "state_keys", "crystals", "spores"):
        found, imported, skipped, not_carried = _kinds(again)[kind]
        assert (imported, not_carried) == (0, 0), kind
        assert skipped == found, kind
    assert len(list_spores(store, status="all")) == 2
    assert len(store.supersession_links()) == 1


def _rich(store: Store) -> None:
    page = store.record("The web says the pool holds ten workers", "observation", trust="external")
    note = store.record(
        "Summary: the pool holds ten workers", "observation", derived_from=[page.id]
    )
    old = store.record("The pool holds ten workers at most today", "observation")
    store.record("The pool holds twelve workers at most today", "observation", supersedes=[old.id])
    store.record("The user lives in Berlin", "context", state_key="user.city")
    store.record("The user lives in Hamburg", "context", state_key="user.city")
    store.record("An operator note", "decision", trust="tool")
    crystallize(store, "pool_sizing", level=3, explanation="Pool = workers.", evidence=[note.id])
    crystallize(store, "old_rule", level=2, explanation="Old.")
    retire_crystal(store, "old_rule", "falsified", reason="disproved")
    add_spore(store, type="task", text="bump pool", tier="hot", salience=2)
    update_spore(store, "spore-001", add_note="asked ops", next="2026-04-01")
    add_spore(store, type="question", text="why p99?")
    descend_spore(store, "spore-002", "answered")


def _document(store: Store) -> dict[str, object]:
    out = io.StringIO()
    store.export_json(out)
    document = json.loads(out.getvalue())
    del document["exported_at"]
    return document


def test_our_export_comes_across_through_import_from_as_through_import_json(
    store: Store, tmp_path: Path, clock: FrozenClock
):
    _rich(store)
    source = tmp_path / "export.json"
    with source.open("w", encoding="utf-8") as handle:
        store.export_json(handle)
    original = _document(store)
    with (
        Store(tmp_path / "by_path.db", clock=clock) as by_path,
        Store(tmp_path / "by_json.db", clock=clock) as by_json,
    ):
        dry = by_path.import_from(source, dry_run=True)
        report = by_path.import_from(source)
        assert _kinds(dry) == _kinds(report)
        by_json.import_json(source.read_text(encoding="utf-8"))
        assert _document(by_path) == original
        assert _document(by_json) == original
        kinds = _kinds(report)
        assert kinds["trust"] == (2, 2, 0, 0)
        assert kinds["state_keys"] == (2, 2, 0, 0)
        assert kinds["derived_from"] == (1, 1, 0, 0)
        assert kinds["supersessions"] == (1, 1, 0, 0)
        assert kinds["crystals"] == (2, 2, 0, 0)
        assert kinds["spores"] == (2, 2, 0, 0)
        assert get_spore(by_path, "spore-001") == get_spore(store, "spore-001")
        assert get_crystal(by_path, "old_rule") == get_crystal(store, "old_rule")

        again = by_path.import_from(source)
        assert all(c.imported == 0 and c.not_carried == 0 for c in again.counts), again.counts
        assert _document(by_path) == original


def test_a_crystal_name_here_with_other_content_is_kept_and_reported(
    store: Store, tmp_path: Path, clock: FrozenClock
):
    _rich(store)
    source = tmp_path / "export.json"
    with source.open("w", encoding="utf-8") as handle:
        store.export_json(handle)
    with Store(tmp_path / "other.db", clock=clock) as other:
        crystallize(other, "pool_sizing", level=2, explanation="A different rule.")
        report = other.import_from(source)
        count = report.count("crystals")
        assert count is not None
        assert (count.found, count.imported, count.not_carried) == (2, 1, 1)
        assert "same name is already here with different content" in (count.reason or "")
        kept = get_crystal(other, "pool_sizing")
        assert kept is not None
        assert kept.explanation == "A different rule."


def test_an_episode_already_here_keeps_its_own_trust(
    store: Store, tmp_path: Path, clock: FrozenClock
):
    _rich(store)
    source = tmp_path / "export.json"
    with source.open("w", encoding="utf-8") as handle:
        store.export_json(handle)
    with Store(tmp_path / "other.db", clock=clock) as other:
        other.import_from(source)
        ident = _by_content(other)["An operator note"]
        other.set_trust(ident, "external")
        report = other.import_from(source)
        count = report.count("trust")
        assert count is not None
        assert count.not_carried == 1
        assert "keeps" in (count.reason or "")
        episode = other.get(ident)
        assert episode is not None
        assert episode.trust.value == "external"


def _export_with(store: Store, path: Path, key: str, entry: dict[str, object]) -> None:
    document = _document(store)
    document[key] = [entry]
    path.write_text(json.dumps(document), encoding="utf-8")


def test_a_bad_crystal_spore_or_link_in_our_export_refuses_everything(
    store: Store, tmp_path: Path, clock: FrozenClock
):
    _rich(store)
    document = _document(store)
    crystal = dict(document["crystals"][0])  # type: ignore[index]
    spore = dict(document["spores"][0])  # type: ignore[index]
    link = dict(document["supersessions"][0])  # type: ignore[index]
    cases = [
        ("crystals", {**crystal, "level": 1}, r"crystals\[0\] is invalid"),
        ("crystals", {**crystal, "tags": "db"}, r"crystals\[0\] has an invalid 'tags'"),
        ("spores", {**spore, "tier": "lukewarm"}, r"spores\[0\] is invalid"),
        ("spores", {**spore, "notes": ["x"]}, r"spores\[0\] has an invalid 'notes'"),
        ("supersessions", {**link, "via": "magic"}, r"supersessions\[0\] has an invalid via"),
        ("supersessions", {**link, "old_id": "nope"}, r"supersessions\[0\] has an invalid old_id"),
    ]
    for index, (key, entry, message) in enumerate(cases):
        source = tmp_path / f"bad{index}.json"
        _export_with(store, source, key, entry)
        with Store(tmp_path / f"t{index}.db", clock=clock) as target:
            with pytest.raises(ImportFormatError, match=message):
                target.import_from(source)
            assert target.status().total_episodes == 0
            assert list_crystals(target, status="all") == []


def test_a_bad_1_0_2_crystal_file_is_refused_by_name(v1_store: Path, store: Store):
    path = v1_store.with_name("mem.crystal.json")
    document = json.loads(path.read_text(encoding="utf-8"))
    document["crystal"][0]["permanence"] = "forever"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(ImportFormatError, match=r"mem\.crystal\.json crystal\[0\] is invalid"):
        store.import_from(v1_store)
    assert store.status().total_episodes == 0
    assert list_spores(store, status="all") == []
