"""A wrap per scope: each scope's wraps, continuity and pattern levels stand alone.

The continuity of a scope is its own file beside a SQLite store and its own row on
PostgreSQL; every test not about files runs on both backends.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from anneal_memory import (
    AgentMemory,
    InvalidEpisodeError,
    InvalidInputError,
    Store,
    prepare_wrap,
    validated_save_continuity,
)
from anneal_memory.continuity import (
    continuity_path,
    pattern_history,
    unwrapped_in_scope,
    wrap_cancel,
    wrap_history,
    wrap_status,
)
from anneal_memory.errors import WrapInProgressError
from test_save import build_text

ALICE, BOB = "user:alice", "user:bob"


def _record(store: Store, scope: str, *texts: str) -> list[str]:
    return [store.record(text, "observation", scope=scope).id for text in texts]


def _files(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir() if p.name.endswith(".md")}


def _places(store: Store) -> set[str]:
    """Where a continuity text was written: the ``.md`` files, or the labels of the rows."""
    if store.url is None:
        return {str(p) for p in store.path.parent.iterdir() if p.name.endswith(".md")}
    with store.reading("test") as reader:
        rows = reader.conn.execute("SELECT scope FROM continuity").fetchall()
    return {str(store.continuity_place(str(scope)).label) for (scope,) in rows}


def test_a_wrap_packages_only_its_scope_and_writes_only_its_file(store: Store) -> None:
    alice = _record(store, ALICE, "Alice prefers the window seat", "Alice drinks tea")
    bob = _record(store, BOB, "Bob prefers the aisle seat")
    shared = _record(store, "", "The office opens at nine")
    prep = prepare_wrap(store, scope=ALICE)
    assert prep.status == "ready"
    assert [e.id for e in prep.package.episodes] == alice
    assert "aisle" not in (prep.text or "")
    assert "office" not in (prep.text or "")
    saved = validated_save_continuity(store, build_text(context="- alice's session"), scope=ALICE)
    assert saved.episodes_compressed == 2
    assert saved.path == store.continuity_place(ALICE).label
    assert _places(store) == {str(saved.path)}
    assert "alice's session" in (store.load_continuity(ALICE) or "")
    assert store.load_continuity() is None
    assert store.load_continuity(BOB) is None
    # Bob's and the shared episodes stay unwrapped; Alice has nothing left.
    assert unwrapped_in_scope(store, BOB) == 1
    assert unwrapped_in_scope(store, "") == 1
    assert unwrapped_in_scope(store, ALICE) == 0
    assert store.status().episodes_since_wrap == 2
    assert prepare_wrap(store, scope=ALICE).status == "empty"
    assert [e.id for e in prepare_wrap(store, scope=BOB).package.episodes] == bob
    assert [e.id for e in prepare_wrap(store).package.episodes] == shared


def test_one_open_wrap_per_scope(store: Store) -> None:
    _record(store, ALICE, "Alice asked about invoices")
    _record(store, BOB, "Bob asked about refunds")
    a = prepare_wrap(store, scope=ALICE)
    b = prepare_wrap(store, scope=BOB)  # another scope's open wrap does not block it
    assert a.status == b.status == "ready"
    with pytest.raises(WrapInProgressError):
        prepare_wrap(store, scope=ALICE)
    assert wrap_status(store, ALICE).token == a.wrap_token  # type: ignore[union-attr]
    assert wrap_status(store, BOB).token == b.wrap_token  # type: ignore[union-attr]
    assert wrap_status(store) is None
    # The token names its wrap: no scope needed to save or cancel it.
    saved = validated_save_continuity(store, build_text(), wrap_token=b.wrap_token)
    assert saved.path == store.continuity_place(BOB).label
    cancelled = wrap_cancel(store, wrap_token=a.wrap_token)
    assert cancelled.wrap_id == a.wrap_id
    assert unwrapped_in_scope(store, ALICE) == 1
    history = wrap_history(store)
    assert [(w.scope, w.status) for w in history] == [(BOB, "completed"), (ALICE, "cancelled")]
    assert [w.scope for w in wrap_history(store, scope=BOB)] == [BOB]
    assert wrap_history(store, scope="") == ()


def test_pattern_levels_are_per_scope(store: Store) -> None:
    def wrap_in(scope: str, level: str) -> str:
        ids = _record(
            store,
            scope,
            "The connection pool ran out of sockets under heavy load",
            "Doubling the connection pool size stopped the socket exhaustion",
        )
        line = (
            f"- pool_sizing | {level} (2026-03-02) "
            f'[evidence: {ids[0]}, {ids[1]} "connection pool sockets ran out under load"]'
        )
        validated_save_continuity(
            store, build_text([line]), wrap_token=prepare_wrap(store, scope=scope).wrap_token
        )
        text = store.load_continuity(scope) or ""
        return next(x for x in text.splitlines() if x.startswith("- pool_sizing |"))

    assert wrap_in(ALICE, "1x").startswith("- pool_sizing | 1x")
    assert wrap_in(ALICE, "2x").startswith("- pool_sizing | 2x")  # climbs on its history
    # Bob's first claim of 2x has no history in Bob's scope: it is held at 1x.
    assert wrap_in(BOB, "2x").startswith("- pool_sizing | 1x")
    assert [e.level for e in pattern_history(store, "pool_sizing", scope=ALICE)] == [2, 1]
    assert [e.level for e in pattern_history(store, "pool_sizing", scope=BOB)] == [1]
    assert pattern_history(store, "pool_sizing") == ()


def test_another_scopes_episodes_are_no_evidence(store: Store) -> None:
    theirs = _record(
        store, BOB, "The cache warmed up slowly after deploys", "Cache warm-up took minutes"
    )
    _record(store, ALICE, "Alice read the deploy notes")
    prepare_wrap(store, scope=ALICE)
    line = f'- cache_warmup | 2x (2026-03-02) [evidence: {theirs[0]}, {theirs[1]} "cache warm"]'
    result = validated_save_continuity(store, build_text([line]), scope=ALICE)
    assert "zero-resolved-citations" in [f.code.value for f in result.findings]


HOSTILE = ("../x", "/etc/passwd", "..", "CON", "nul", "Alice", "alice", "ALICE", "a/../../b",
           "C:\\Windows", "\u00fcber", "\U0001f600", " ", "-", "x" * 64)  # fmt: skip


@pytest.mark.sqlite_only(reason="checks the continuity file names")
def test_hostile_scopes_never_escape_the_folder_or_collide(store: Store) -> None:
    folder = store.path.parent
    paths = [continuity_path(store, scope) for scope in HOSTILE]
    for path in paths:
        assert path.parent == folder
        assert path.name.startswith(store.path.stem + ".continuity.")
        assert path.name.endswith(".md")
        assert "/" not in path.name
        assert "\\" not in path.name
        assert path.name.isascii()
        assert path.name.isprintable()
    names = [p.name.casefold() for p in paths] + [continuity_path(store).name.casefold()]
    assert len(set(names)) == len(names)  # distinct even on a case-insensitive file system
    for scope in ("../x", "Alice", "alice"):
        _record(store, scope, f"An episode of {scope!r}")
        saved = validated_save_continuity(
            store,
            build_text(context=f"- session of {scope!r}"),
            wrap_token=prepare_wrap(store, scope=scope).wrap_token,
        )
        assert saved.path.parent == folder
        assert repr(scope) in (store.load_continuity(scope) or "")
    assert not (folder.parent / "x").exists()
    assert len(_files(folder)) == 3
    assert "'Alice'" not in (store.load_continuity("alice") or "")


def test_hostile_scopes_keep_their_continuity_apart(store: Store) -> None:
    for scope in ("../x", "Alice", "alice", "CON"):
        _record(store, scope, f"An episode of {scope!r}")
        saved = validated_save_continuity(
            store,
            build_text(context=f"- session of {scope!r}"),
            wrap_token=prepare_wrap(store, scope=scope).wrap_token,
        )
        assert str(saved.path) in _places(store)
    assert len(_places(store)) == 4
    for scope in ("../x", "Alice", "alice", "CON"):
        text = store.load_continuity(scope) or ""
        assert repr(scope) in text
        assert [s for s in ("'../x'", "'Alice'", "'alice'", "'CON'") if s in text] == [repr(scope)]
    assert store.load_continuity() is None


@pytest.mark.parametrize("scope", ["a\x00b", "x" * 10_000, "line\nbreak", 7])
def test_an_invalid_scope_is_refused_with_a_clear_error(store: Store, scope: object) -> None:
    for call in (
        lambda: prepare_wrap(store, scope=scope),  # type: ignore[arg-type]
        lambda: store.load_continuity(scope),  # type: ignore[arg-type]
        lambda: wrap_status(store, scope),  # type: ignore[arg-type]
        lambda: validated_save_continuity(store, build_text(), scope=scope),  # type: ignore[arg-type]
    ):
        with pytest.raises(InvalidInputError, match=r"^scope (must be|contains|is )"):
            call()
    with pytest.raises(InvalidEpisodeError, match=r"^scope (must be|contains|is )"):
        store.record("x", "observation", scope=scope)  # type: ignore[arg-type]
    assert _places(store) == set()


def _compress(text: str) -> str:
    del text
    return build_text(context="- consolidated by the fake model")


def test_agent_memory_wraps_and_starts_in_its_own_scope(store: Store) -> None:
    alice = AgentMemory(store, scope=ALICE)
    bob = AgentMemory(store, scope=BOB)
    shared = AgentMemory(store)
    alice.record_tool_result("lookup", "Alice's invoice is number 4711")
    bob.record_tool_result("lookup", "Bob's invoice is number 1234")
    assert alice.wrap_due(1)
    outcome = alice.wrap(lambda package: build_text(context="- alice: invoice 4711"))
    assert outcome.saved, outcome.message
    assert not alice.wrap_due(1)
    assert bob.wrap_due(1)
    assert "invoice 4711" in alice.start()
    assert "invoice 4711" not in bob.start()
    assert "invoice 4711" not in shared.start()
    assert "invoice 4711" in shared.start(scope=ALICE)
    assert bob.wrap(_compress).saved
    assert "consolidated by the fake model" in bob.start()
    assert "consolidated by the fake model" not in alice.start()
    assert shared.wrap(_compress).status == "empty"


def test_a_baton_holder_wraps_two_scopes_at_once(store: Store) -> None:
    from anneal_memory.gate import claim_baton, set_consolidate_policy

    set_consolidate_policy(store, True)
    claim_baton(store, "holder")
    _record(store, ALICE, "Alice asked about invoices")
    _record(store, BOB, "Bob asked about refunds")
    a = prepare_wrap(store, scope=ALICE, session_id="holder")
    b = prepare_wrap(store, scope=BOB, session_id="holder")
    # Opening Bob's wrap keeps Alice's wrap bound to the baton: both saves are allowed.
    for prep in (a, b):
        saved = validated_save_continuity(
            store, build_text(), wrap_token=prep.wrap_token, session_id="holder"
        )
        assert saved.episodes_compressed == 1
    assert prepare_wrap(store, scope=ALICE, session_id="someone").status == "downgraded"


@pytest.mark.sqlite_only(reason="store.check() checks a SQLite file and its continuity files")
def test_the_store_check_compares_the_shared_continuity_with_the_shared_wrap(
    store: Store,
) -> None:
    _record(store, "", "The office opens at nine")
    validated_save_continuity(store, build_text(), wrap_token=prepare_wrap(store).wrap_token)
    _record(store, ALICE, "Alice prefers tea")
    validated_save_continuity(
        store, build_text(context="- alice"), wrap_token=prepare_wrap(store, scope=ALICE).wrap_token
    )
    codes = [p.code for p in store.check().problems]
    assert not [c for c in codes if c.startswith("continuity")], codes


def test_a_wrap_cannot_supersede_another_scopes_episode(store: Store) -> None:
    [theirs] = _record(store, BOB, "The user lives in Porto and works remotely")
    [mine] = _record(store, ALICE, "The user now lives in Lisbon and works remotely")
    prepare_wrap(store, scope=ALICE)
    text = build_text(context=f"- moved to Lisbon [supersedes: {theirs} by {mine}]")
    result = validated_save_continuity(store, text, scope=ALICE)
    rejected = [f for f in result.findings if theirs in f.message]
    assert rejected
    assert "another scope" in rejected[0].message
    assert store.get(theirs).superseded_by is None  # type: ignore[union-attr]


@pytest.mark.sqlite_only(reason="edits and removes the continuity files by hand")
def test_the_store_check_finds_a_changed_or_missing_scope_continuity(store: Store) -> None:
    for scope in (ALICE, BOB):
        _record(store, scope, f"A note of {scope}")
        validated_save_continuity(
            store, build_text(), wrap_token=prepare_wrap(store, scope=scope).wrap_token
        )
    assert not [p for p in store.check().problems if p.code.startswith("continuity")]
    continuity_path(store, ALICE).write_text("# edited by hand\n", encoding="utf-8")
    continuity_path(store, BOB).unlink()
    found = {(p.code, p.message.split()[0]) for p in store.check().problems}
    assert ("continuity-changed", continuity_path(store, ALICE).name) in found
    assert ("continuity-missing", continuity_path(store, BOB).name) in found
