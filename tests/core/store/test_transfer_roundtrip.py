"""Export then import gives back the store that was exported (issue #24 item 18).

An export used to lose the continuity files, the wrap history (every episode waited to be
wrapped again) and the baton policy. Now a store that was empty before the import gets all
of it back: episodes with provenance, tombstones, continuity of every scope, completed
wraps (episodes already wrapped stay wrapped), pattern levels and their history, links
between episodes and the baton policy, on both backends and across them.
"""

from __future__ import annotations

import io
import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from anneal_memory import Store, prepare_wrap, validated_save_continuity
from anneal_memory.gate import consolidate_requires_baton, set_consolidate_policy
from anneal_memory.sessions import add_items
from anneal_memory.testing import FrozenClock
from backends import drop_schema, pg_base_url, pg_url, target, with_schema  # noqa: F401
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

TEXT = "## State\n- {state}\n## Patterns\n{patterns}## Decisions\n## Context\n- wrap {n}\n"


def _save(store: Store, n: int, scope: str = "", cite: tuple[str, ...] = ()) -> None:
    prep = prepare_wrap(store, scope=scope)
    lines = "".join(
        f"- theme_{_letters(n)}{'xyz'[i]} | 1x (2026-03-02) [evidence: {ident} "
        f'"{_quote(store, ident)}"]\n'
        for i, ident in enumerate(cite)
    )
    text = TEXT.format(state=f"state {n} {scope}", patterns=lines, n=n)
    validated_save_continuity(store, text, wrap_token=prep.wrap_token, scope=scope)


def _letters(n: int) -> str:
    return "".join("abcdefghij"[int(d)] for d in str(n))


def _quote(store: Store, ident: str) -> str:
    episode = store.get(ident)
    assert episode is not None
    return episode.content.split()[0]


def _rows(store: Store, sql: str) -> list[tuple[Any, ...]]:
    with store.reading("test fingerprint") as reader:
        return [tuple(r) for r in reader.conn.execute(sql).fetchall()]


def fingerprint(store: Store) -> dict[str, Any]:
    """Everything a restore must give back, in a form both backends write alike."""
    scopes = sorted({""} | {str(r[0]) for r in _rows(store, "SELECT DISTINCT scope FROM wraps")})
    return {
        "episodes": _rows(
            store,
            "SELECT id, ts, type, content, source, trust, state_key, superseded_by,"
            " derived_from, scope FROM episodes ORDER BY id",
        ),
        "tombstones": _rows(store, "SELECT id, reason, trust FROM tombstones ORDER BY id"),
        "continuity": {s: store.load_continuity(s) for s in scopes},
        "wraps": _rows(
            store,
            "SELECT token, scope, status, continuity_sha256, save_no, episode_count"
            " FROM wraps WHERE status = 'completed' ORDER BY token",
        ),
        "wrapped": {s: _unwrapped(store, s) for s in scopes},
        "patterns": _rows(
            store, "SELECT scope, identity, name, level, max_level FROM patterns ORDER BY 1, 2"
        ),
        "steps": _rows(
            store,
            "SELECT scope, identity, level, written_level, validated, cited_ids, validated_ids"
            " FROM pattern_history ORDER BY 1, 2, 3",
        ),
        "links": [
            (a, b, round(float(strength), 6), tag)
            for a, b, strength, tag in _rows(
                store, "SELECT a, b, strength, affect_tag FROM associations ORDER BY 1, 2"
            )
        ],
        "policy": consolidate_requires_baton(store),
        "session_items": _rows(
            store, "SELECT session_id, position, item FROM session_items ORDER BY 1, 2"
        ),
    }


def _unwrapped(store: Store, scope: str) -> list[str]:
    from anneal_memory.store.wraps import unwrapped_prefix  # noqa: F401 - the room's reader

    with store.reading("test unwrapped") as reader:
        row = reader.conn.execute(
            "SELECT coalesce(max(through_seq), 0) FROM wraps WHERE scope = ? AND"
            " status = 'completed'",
            (scope,),
        ).fetchone()
        rows = reader.conn.execute(
            "SELECT id FROM episodes WHERE scope = ? AND seq > ? ORDER BY seq",
            (scope, int(row[0])),
        ).fetchall()
    return [str(r[0]) for r in rows]


def _exported(store: Store) -> str:
    out = io.StringIO()
    store.export_json(out)
    return out.getvalue()


def _rich(store: Store) -> None:
    a = store.record("deploy pipeline broke on friday", "observation").id
    b = store.record("flaky tests again in the pipeline", "observation", trust="tool").id
    store.record("alice prefers tea", "context", scope="alice", state_key="alice.drink")
    _save(store, 1, cite=(a, b))
    _save(store, 2, scope="alice")
    with store.writing("test link") as tx:  # a link as a wrap with proven lines leaves one
        tx.conn.execute(
            "INSERT INTO associations (a, b, strength, affect_tag, affect_intensity,"
            " created_wrap_id, last_wrap_id, last_save_no, decay_key) VALUES (?, ?, 1.3,"
            " 'curious', 0.5, (SELECT min(id) FROM wraps), (SELECT max(id) FROM wraps), 2, 0.9)",
            (min(a, b), max(a, b)),
        )
    c = store.record("the fix was a retry", "decision", derived_from=[a]).id
    gone = store.record("to be deleted", "observation").id
    store.delete(gone)
    store.record("the fix was a retry with backoff", "decision", supersedes=[c])
    set_consolidate_policy(store, requires_baton=True)
    add_items(store, "thread-7", [{"role": "user", "content": "hi"}, {"role": "assistant"}])


@pytest.fixture
def other_pg() -> Iterator[str]:
    base = pg_base_url()
    schema = f"t_{uuid.uuid4().hex[:12]}"
    yield with_schema(base, schema)
    drop_schema(base, schema)


@pytest.mark.parametrize(
    "dest", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)]
)
def test_export_import_round_trips_the_whole_store(
    target: str,  # noqa: F811
    dest: str,
    tmp_path: Any,
    clock: FrozenClock,
    request: pytest.FixtureRequest,
) -> None:
    where = (
        str(tmp_path / "restored" / "memory.db")
        if dest == "sqlite"
        else request.getfixturevalue("other_pg")
    )
    with Store(target, clock=clock) as source:
        _rich(source)
        before = fingerprint(source)
        document = _exported(source)
    for part in ("wraps", "patterns", "links", "policy", "session_items"):
        assert before[part], part
    assert before["continuity"][""]
    assert before["continuity"]["alice"]
    with Store(where, clock=clock) as restored:
        result = restored.import_json(document)
        assert result.wraps_restored == 2
        assert result.continuity_restored == ("", "alice")
        assert fingerprint(restored) == before
        assert restored.status().episodes_since_wrap == before_unwrapped(before)
        if dest == "sqlite":
            assert restored.check(full=False).ok
        again = restored.import_json(document)  # a second import adds nothing
        assert again.imported == 0
        assert again.wraps_restored == 0
        assert fingerprint(restored) == before


def before_unwrapped(fp: dict[str, Any]) -> int:
    return sum(len(ids) for ids in fp["wrapped"].values())


def test_cli_export_import_round_trips_through_the_file(run_cli, tmp_path: Any) -> None:
    with Store(tmp_path / "store" / "memory.db") as source:
        _rich(source)
        before = fingerprint(source)
    run_cli("export", "-o", str(tmp_path / "backup.json")).assert_ok()
    restored_db = tmp_path / "restored.db"
    run_cli("--db", str(restored_db), "import", str(tmp_path / "backup.json"), db=False).assert_ok()
    with Store(restored_db) as restored:
        assert fingerprint(restored) == before
        assert restored.check(full=False).ok


def test_history_is_not_carried_into_a_store_with_its_own(tmp_path: Any) -> None:
    with Store(tmp_path / "a.db") as source:
        _rich(source)
        document = _exported(source)
    with Store(tmp_path / "b.db") as busy:
        busy.record("an episode of this store's own", "observation")
        result = busy.import_json(document)
        assert result.wraps_restored == 0
        assert any("not carried" in note for note in result.not_carried)
        assert busy.load_continuity() is None


def test_an_older_export_without_history_still_imports(tmp_path: Any) -> None:
    with Store(tmp_path / "a.db") as source:
        _rich(source)
        document = json.loads(_exported(source))
    for key in (
        "wraps", "patterns", "pattern_history", "associations", "continuity", "session_items",
        "policy",
    ):  # fmt: skip
        document.pop(key)
    with Store(tmp_path / "b.db") as restored:
        result = restored.import_json(document)
        assert result.imported == 5
        assert result.wraps_restored == 0


_EPISODES = st.lists(
    st.tuples(
        st.sampled_from(["deploy", "pipeline", "tea", "retry", "flaky", "tests"]),
        st.sampled_from(["", "alice", "bob"]),
        st.sampled_from(["agent", "tool", "external"]),
        st.booleans(),  # wrap this scope after this episode
    ),
    min_size=1,
    max_size=8,
)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=_EPISODES)
def test_round_trip_property(tmp_path_factory: pytest.TempPathFactory, plan: list[Any]) -> None:
    folder = tmp_path_factory.mktemp("trip")
    with Store(folder / "a.db") as source:
        for n, (word, scope, trust, wrap) in enumerate(plan):
            ident = source.record(f"{word} number {n}", "observation", scope=scope, trust=trust).id
            if wrap:
                _save(source, n, scope=scope, cite=(ident,))
        before = fingerprint(source)
        document = _exported(source)
    with Store(folder / "b.db") as restored:
        restored.import_json(document)
        assert fingerprint(restored) == before
