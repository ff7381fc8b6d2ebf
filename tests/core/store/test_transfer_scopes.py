"""Export and import carry each episode's scope (both import paths)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from anneal_memory import ImportFormatError, Store
from anneal_memory.continuity import unwrapped_in_scope
from anneal_memory.testing import FrozenClock


def _exported(store: Store) -> str:
    out = io.StringIO()
    store.export_json(out)
    return out.getvalue()


def _scopes(store: Store) -> dict[str, str]:
    return {
        e.content: scope
        for scope in ("", "user:alice", "user:bob")
        for e in store.recall(scope=scope, limit=50).episodes
    }


def _seed(store: Store) -> None:
    store.record("Alice keeps the blue folder", "observation", scope="user:alice")
    store.record("Bob keeps the red folder", "observation", scope="user:bob")
    store.record("The office opens at nine", "observation")


def test_export_then_import_json_keeps_scopes(
    store: Store, tmp_path: Path, clock: FrozenClock
) -> None:
    _seed(store)
    text = _exported(store)
    scopes = sorted(e.get("scope") for e in json.loads(text)["episodes"])
    assert scopes == ["", "user:alice", "user:bob"]
    with Store(tmp_path / "copy" / "m.db", clock=clock) as copy:
        assert copy.import_json(text).imported == 3
        assert _scopes(copy) == _scopes(store)
        assert unwrapped_in_scope(copy, "user:alice") == 1


def test_export_then_import_from_a_file_keeps_scopes(
    store: Store, tmp_path: Path, clock: FrozenClock
) -> None:
    _seed(store)
    path = tmp_path / "export.json"
    path.write_text(_exported(store), encoding="utf-8")
    with Store(tmp_path / "copy" / "m.db", clock=clock) as copy:
        copy.import_from(path)
        assert _scopes(copy) == _scopes(store)


def test_an_invalid_scope_in_an_export_is_refused(store: Store, tmp_path: Path) -> None:
    _seed(store)
    document = json.loads(_exported(store))
    document["episodes"][0]["scope"] = "bad\nscope"
    with pytest.raises(ImportFormatError, match="scope must be"):
        store.import_json(json.dumps(document))
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with Store(tmp_path / "fresh" / "m.db") as fresh, pytest.raises(ImportFormatError):
        fresh.import_from(path)
