"""Export and import carry each episode's scope (both import paths, both backends).

A store of each backend exports; ``copy_target`` is a fresh store of the same backend (a new
file, or a new PostgreSQL schema) for the document to go into.
"""

from __future__ import annotations

import io
import json
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from anneal_memory import ImportFormatError, Store
from anneal_memory.continuity import unwrapped_in_scope
from anneal_memory.testing import FrozenClock

sys.path.insert(0, str(Path(__file__).parents[2]))

from backends import drop_schema, pg_base_url, pg_url, target, with_schema  # noqa: F401


@pytest.fixture
def store(target: str, clock: FrozenClock) -> Iterator[Store]:  # noqa: F811
    with Store(target, project_name="TestAgent", clock=clock) as opened:
        yield opened


@pytest.fixture
def copy_target(target: str, tmp_path: Path) -> Iterator[str]:  # noqa: F811
    """Another empty store of ``target``'s backend."""
    if not target.startswith("postgresql"):
        yield str(tmp_path / "copy" / "m.db")
        return
    base, schema = pg_base_url(), f"t_{uuid.uuid4().hex[:12]}"
    yield with_schema(base, schema)
    drop_schema(base, schema)


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
    store: Store, copy_target: str, clock: FrozenClock
) -> None:
    _seed(store)
    text = _exported(store)
    scopes = sorted(e.get("scope") for e in json.loads(text)["episodes"])
    assert scopes == ["", "user:alice", "user:bob"]
    with Store(copy_target, clock=clock) as copy:
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
