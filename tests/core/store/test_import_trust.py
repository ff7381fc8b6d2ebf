"""An import never creates more trust than the importer has: episode, tombstone and spore
trust is capped at the store's ceiling (``operator`` needs ``--operator``), and an imported
continuity's pattern levels are capped as a save would cap them.

``import_json`` runs on SQLite and on PostgreSQL; ``import_from`` (every file format) on SQLite.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from anneal_memory import Store
from anneal_memory.cli import main
from anneal_memory.errors import ImportFormatError
from anneal_memory.testing import FrozenClock
from anneal_memory.types import Trust

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import pg_url, target  # noqa: F401 - fixtures


def _export(tmp_path: Path) -> tuple[str, str, str]:
    """An export holding an operator episode and the tombstone of an operator episode."""
    with Store(tmp_path / "ops" / "memory.db", trust_ceiling="operator") as ops:
        rule = ops.record("Deploys need two approvals", "decision", trust="operator")
        gone = ops.record("The old rule: one approval", "decision", trust="operator")
        summary = ops.record("Two approvals per deploy", "decision", derived_from=[gone.id])
        ops.delete(gone.id)
        out = io.StringIO()
        ops.export_json(out)
    return out.getvalue(), rule.id, summary.id


@pytest.fixture
def importer(target: str, clock: FrozenClock) -> Iterator[Store]:  # noqa: F811
    with Store(target, project_name="TestAgent", clock=clock) as opened:
        yield opened


def test_import_json_caps_operator_trust_at_the_importers_ceiling(
    importer: Store, tmp_path: Path
) -> None:
    document, rule, summary = _export(tmp_path)
    result = importer.import_json(document)
    assert result.imported == 2
    assert importer.get(rule).trust is Trust.AGENT  # type: ignore[union-attr]
    assert result.trust_capped == 2  # the episode and the tombstone
    assert importer.effective_trusts([summary]) == {summary: Trust.AGENT}


def test_import_json_keeps_operator_trust_for_an_operator(
    target: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    document, rule, _summary = _export(tmp_path)
    with Store(target, trust_ceiling="operator") as ops_importer:
        result = ops_importer.import_json(document)
        assert ops_importer.get(rule).trust is Trust.OPERATOR  # type: ignore[union-attr]
        assert result.trust_capped == 0


def test_import_from_caps_and_says_so(tmp_path: Path) -> None:
    document, rule, _summary = _export(tmp_path)
    source = tmp_path / "export.json"
    source.write_text(document, encoding="utf-8")
    with Store(tmp_path / "into" / "memory.db") as store:
        report = store.import_from(source)
        assert store.get(rule).trust is Trust.AGENT  # type: ignore[union-attr]
    trust = report.count("trust")
    assert trust is not None
    assert trust.capped == 1
    assert "capped at this store's ceiling 'agent'" in (trust.reason or "")
    tombstones = report.count("tombstones")
    assert tombstones is not None
    assert tombstones.capped == 1


def test_cli_import_needs_operator_to_keep_operator_trust(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANNEAL_OPERATOR", raising=False)
    document, rule, _summary = _export(tmp_path)
    source = tmp_path / "export.json"
    source.write_text(document, encoding="utf-8")
    plain, ops = tmp_path / "plain" / "memory.db", tmp_path / "ops2" / "memory.db"
    assert main(["--db", str(plain), "import", str(source)]) == 0
    said = capsys.readouterr().out
    assert "capped at this store's ceiling 'agent'" in said
    assert "--operator" in said
    assert main(["--db", str(ops), "import", str(source), "--operator"]) == 0
    capsys.readouterr()
    with Store(plain) as a, Store(ops) as b:
        assert a.get(rule).trust is Trust.AGENT  # type: ignore[union-attr]
        assert b.get(rule).trust is Trust.OPERATOR  # type: ignore[union-attr]


def _hand_edit(v1_store: Path, level: str) -> None:
    path = v1_store.parent / "mem.continuity.md"
    text = path.read_text(encoding="utf-8")
    assert "| 1x (" in text
    path.write_text(text.replace("| 1x (", f"| {level} ("), encoding="utf-8")


def test_a_1_0_2_hand_written_9x_is_capped_at_its_saved_level(v1_store: Path, tmp_path: Path):
    _hand_edit(v1_store, "9x")
    with Store(tmp_path / "moved" / "memory.db") as store:
        report = store.import_from(v1_store)
        text = store.load_continuity() or ""
    line = next(x for x in text.splitlines() if x.startswith("- embedded_store"))
    assert "| 1x (" in line
    assert "9x" not in text
    assert "(level-capped)" in line
    continuity = report.count("continuity")
    assert continuity is not None
    assert continuity.capped == 1


def test_a_1_0_2_export_with_a_hand_written_level_is_capped_too(v1_store: Path, tmp_path: Path):
    export = v1_store.parent / "export.json"
    doc = json.loads(export.read_text(encoding="utf-8"))
    raw = json.dumps(doc)
    if "| 1x (" not in raw:
        pytest.skip("this 1.0.2 export carries no continuity text")
    export.write_text(raw.replace("| 1x (", "| 7x ("), encoding="utf-8")
    with Store(tmp_path / "moved" / "memory.db") as store:
        store.import_from(export)
        text = store.load_continuity() or ""
    assert "7x" not in text


def test_an_unreadable_level_claim_refuses_the_import(v1_store: Path, tmp_path: Path):
    path = v1_store.parent / "mem.continuity.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("## Patterns\n", "## Patterns\n- | 9x loose claim\n"), "utf-8")
    with Store(tmp_path / "moved" / "memory.db") as store:
        with pytest.raises(ImportFormatError, match="claim"):
            store.import_from(v1_store)
        assert store.status().total_episodes == 0
