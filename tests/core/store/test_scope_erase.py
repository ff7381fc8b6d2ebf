"""Erasing a scope removes its memory and every trace of its name (issue #24 item 16).

Deleting every episode of a scope left its name in ``wraps``, ``patterns``,
``pattern_history`` and the continuity file's name. ``erase_scope`` removes them all, in one
audited transaction whose entry keeps only the scope's salted hash; the shared scope needs
``allow_default``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from anneal_memory import Store, prepare_wrap, validated_save_continuity
from anneal_memory.errors import InvalidInputError
from backends import (  # noqa: F401 - fixtures
    audit_entries,
    backend_store,
    pg_url,
    store_on_both_backends,
    target,
)

NAME = "user:Alice-Smith"
TEXT = "## State\n- {s}\n## Patterns\n{p}## Decisions\n## Context\n- wrap\n"


def _wrapped(store: Store, scope: str, word: str) -> str:
    ident = store.record(f"{word} likes green tea", "context", scope=scope).id
    prep = prepare_wrap(store, scope=scope)
    pattern = f'- tea_{word} | 1x (2026-03-02) [evidence: {ident} "{word}"]\n'
    validated_save_continuity(
        store, TEXT.format(s=f"{word} state", p=pattern), wrap_token=prep.wrap_token, scope=scope
    )
    return ident


def _name_anywhere(store: Store, name: str) -> list[str]:
    found = []
    with store.reading("test traces") as reader:
        for table in ("episodes", "wraps", "patterns", "pattern_history"):
            n = reader.conn.execute(
                f"SELECT count(*) FROM {table} WHERE scope = ?",
                (name,),
            ).fetchone()[0]
            if n:
                found.append(table)
    if store.url is None:
        found += [p.name for p in store.path.parent.iterdir() if "alice" in p.name]
    else:
        with store.reading("test traces") as reader:
            if reader.conn.execute("SELECT 1 FROM continuity WHERE scope = ?", (name,)).fetchone():
                found.append("continuity row")
    found += ["audit"] * sum(name in json.dumps(e) for e in audit_entries(store))
    return found


def test_erase_scope_leaves_no_trace_of_the_name(store: Store) -> None:
    mine = _wrapped(store, NAME, "alice")
    store.record("alice again, not wrapped yet", "observation", scope=NAME)
    prepare_wrap(store, scope=NAME)  # an open wrap goes too
    other = _wrapped(store, "user:bob", "bob")
    shared = store.record("the team lunch is on friday", "context").id
    assert _name_anywhere(store, NAME)

    result = store.erase_scope(NAME)

    assert result.to_dict() == {
        "episodes": 2, "wraps": 2, "patterns": 1, "pattern_steps": 1, "continuity": True,
    }  # fmt: skip
    assert _name_anywhere(store, NAME) == []
    assert store.get(mine) is None
    assert store.recall(scope=NAME).total_matching == 0
    assert store.load_continuity(NAME) is None
    assert store.get(other) is not None
    assert store.get(shared) is not None
    assert store.load_continuity("user:bob") is not None
    [entry] = audit_entries(store, "scope_erased")
    assert entry["actor"] == "operator"
    assert entry["data"]["scope_hash"].startswith("hmac-sha256:")
    assert entry["data"]["episodes"] == 2
    assert "scope" not in entry["data"]
    again = store.erase_scope(NAME)
    assert not again.anything
    assert len(audit_entries(store, "scope_erased")) == 1


def test_the_default_scope_needs_allow_default(store: Store) -> None:
    store.record("shared memory", "observation")
    with pytest.raises(InvalidInputError, match="allow_default=True"):
        store.erase_scope("")
    assert store.status().total_episodes == 1
    assert store.erase_scope("", allow_default=True).episodes == 1
    assert store.status().total_episodes == 0


@pytest.mark.parametrize("bad", ["a\x00b", "x" * 65, "tab\there"])
def test_a_bad_scope_is_refused(store: Store, bad: str) -> None:
    with pytest.raises(InvalidInputError, match="scope"):
        store.erase_scope(bad)


def test_cli_erase_scope_confirms_and_refuses_the_default(run_cli, cli_db: Path) -> None:
    with Store(cli_db) as store:
        _wrapped(store, NAME, "alice")
    refused = run_cli("erase-scope", NAME)  # no terminal: needs --force
    assert "confirmation needs a terminal; pass --force" in refused.assert_error(1)
    assert "--default-scope" in run_cli("erase-scope", "", "--force").assert_error(1)
    done = run_cli("--json", "erase-scope", NAME, "--force").assert_ok().json()
    assert done["erased"]["episodes"] == 1
    assert done["erased"]["continuity"] is True
    assert "Nothing to erase" in run_cli("erase-scope", NAME, "--force").assert_ok().out
    leftovers: list[Any] = [p.name for p in cli_db.parent.iterdir() if "alice" in p.name]
    assert leftovers == []
