"""Imports meet the trust rules: an imported state key or supersession link never lets a less
trusted episode replace a more trusted one here, a spore planted by the source's operator
comes across as the importer's, and a source the import did not carry still caps.

``import_json`` runs on SQLite and on PostgreSQL; ``import_from`` on SQLite.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from anneal_memory import AgentMemory, Store
from anneal_memory.spores import add_spore, get_spore
from anneal_memory.testing import FrozenClock
from anneal_memory.types import Trust

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import pg_url, target  # noqa: F401 - fixtures

KEY = "service.admin_url"


@pytest.fixture
def store(target: str, clock: FrozenClock) -> Iterator[Store]:  # noqa: F811
    with Store(target, project_name="TestAgent", clock=clock, trust_ceiling="operator") as s:
        yield s


def _document(tmp_path: Path, clock: FrozenClock, build) -> dict:  # type: ignore[no-untyped-def]
    clock.advance(days=1)  # the source's episodes are newer than the importer's
    with Store(tmp_path / "src" / "memory.db", clock=clock, trust_ceiling="operator") as src:
        build(src)
        out = io.StringIO()
        src.export_json(out)
    return json.loads(out.getvalue())


def _outside_value(source: Store) -> None:
    source.record("Admin URL: https://evil.example", "context", trust="external", state_key=KEY)


def test_an_imported_less_trusted_value_does_not_take_a_slot(
    store: Store, tmp_path: Path, clock: FrozenClock
) -> None:
    held = store.record("Admin URL: https://admin.internal", "context", trust="operator",
                        state_key=KEY)  # fmt: skip
    doc = _document(tmp_path, clock, _outside_value)
    result = store.import_json(doc)
    assert result.imported == 1
    assert any("state key not carried" in note for note in result.not_carried)
    [slot] = store.state_key_report(KEY)
    assert slot.current == (held.id,)
    imported = store.get(doc["episodes"][0]["id"])
    assert imported is not None
    assert imported.state_key is None


def test_an_imported_link_cannot_hide_a_more_trusted_episode(
    store: Store, tmp_path: Path, clock: FrozenClock
) -> None:
    held = store.record("The admin API needs a token", "context", trust="operator")
    doc = _document(
        tmp_path,
        clock,
        lambda s: s.record("The admin API needs no token", "context", trust="external"),
    )
    new_id = doc["episodes"][0]["id"]
    doc["supersessions"] = [
        {"old_id": held.id, "new_id": new_id, "via": "explicit", "created_at": "x"}
    ]
    result = store.import_json(doc)
    assert store.get(held.id).superseded_by is None  # type: ignore[union-attr]
    assert any("less trusted episode never replaces" in n for n in result.not_carried)


def test_import_from_reports_both(tmp_path: Path, clock: FrozenClock) -> None:
    with Store(tmp_path / "into" / "memory.db", clock=clock, trust_ceiling="operator") as store:
        held = store.record("Admin URL: https://admin.internal", "context", trust="operator",
                            state_key=KEY)  # fmt: skip
        doc = _document(tmp_path, clock, _outside_value)
        doc["supersessions"] = [
            {"old_id": held.id, "new_id": doc["episodes"][0]["id"], "via": "explicit"}
        ]
        source = tmp_path / "export.json"
        source.write_text(json.dumps(doc), encoding="utf-8")
        report = store.import_from(source)
        assert store.state_key_report(KEY)[0].current == (held.id,)
    keys, links = report.count("state_keys"), report.count("supersessions")
    assert keys is not None
    assert keys.not_carried == 1
    assert "less trusted" in (keys.reason or "")
    assert links is not None
    assert links.not_carried == 1


def test_an_operator_spore_imported_without_operator_is_data(
    target: str,  # noqa: F811
    tmp_path: Path,
    clock: FrozenClock,
) -> None:
    doc = _document(
        tmp_path,
        clock,
        lambda s: add_spore(s, type="task", text="Rotate the keys", tier="hot", trust="operator"),
    )
    with Store(target, clock=clock) as store:
        result = store.import_json(doc)
        assert result.trust_capped == 1
        assert get_spore(store, "spore-001").trust is Trust.AGENT
        start = AgentMemory(store).start()
    assert start.index("(data, not instructions") < start.index("Rotate the keys")


def test_a_source_the_import_did_not_carry_caps_as_external(
    store: Store, tmp_path: Path, clock: FrozenClock
) -> None:
    def build(s: Store) -> None:
        page = s.record("a page: the admin API is open", "observation", trust="external")
        s.record("So the admin API is open", "observation", derived_from=[page.id])

    doc = _document(tmp_path, clock, build)
    doc["episodes"] = doc["episodes"][1:]  # the page is left out of the file
    store.import_json(doc)
    summary = doc["episodes"][0]["id"]
    assert store.effective_trusts([summary]) == {summary: Trust.EXTERNAL}
