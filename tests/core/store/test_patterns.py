from __future__ import annotations

from anneal_memory import Store
from anneal_memory.store.wraps import load_prior


def _wrap(store: Store, token: str) -> int:
    with store.writing("test") as tx:
        return tx.inserted_id(
            "INSERT INTO wraps (token, status, started_at, today, schema_name, max_chars,"
            " episode_count) VALUES (?, 'completed', 't', '2026-01-01', 'default', 20000, 1)",
            (token,),
            "id",
        )


def _history(store: Store, identity: str, wrap_id: int, explanation: str, validated: int) -> None:
    with store.writing("test") as tx:
        tx.conn.execute(
            "INSERT INTO pattern_history (identity, wrap_id, level, written_level, line_date,"
            " explanation, validated, marks) VALUES (?, ?, 2, 2, NULL, ?, ?, '')",
            (identity, wrap_id, explanation, validated),
        )


def _pattern(store: Store, identity: str, last_wrap_id: int) -> None:
    with store.writing("test") as tx:
        tx.conn.execute(
            "INSERT INTO patterns (identity, name, level, max_level, first_wrap_id, last_wrap_id,"
            " last_grounded) VALUES (?, ?, 2, 3, 1, ?, '2026-01-01')",
            (identity, identity, last_wrap_id),
        )


def test_load_prior_keeps_the_newest_twenty_validated_explanations(store: Store) -> None:
    wraps = [_wrap(store, f"t{i}") for i in range(30)]
    for i, wrap_id in enumerate(wraps):
        _history(store, "cache", wrap_id, f"reason {i}", 1)
        _history(store, "cache", wrap_id, f"unvalidated {i}", 0)
        _history(store, "cache", wrap_id, "", 1)
    _history(store, "pool", wraps[0], "pool sizing", 1)
    _history(store, "other", wraps[1], "never asked for", 1)
    _pattern(store, "cache", wraps[-1])
    _pattern(store, "pool", wraps[0])
    _pattern(store, "other", wraps[1])

    with store.reading("test") as reader:
        prior = load_prior(reader.conn, {"pool", "absent"}, wraps[-1])

    assert sorted(prior) == ["cache", "pool"]
    assert prior["cache"].explanations == tuple(f"reason {i}" for i in range(29, 9, -1))
    assert prior["cache"].in_last_save
    assert prior["pool"].explanations == ("pool sizing",)
    assert not prior["pool"].in_last_save
    assert (prior["pool"].level, prior["pool"].max_level) == (2, 3)


def test_load_prior_without_a_saved_wrap_reads_only_what_is_asked(store: Store) -> None:
    wrap_id = _wrap(store, "t")
    _pattern(store, "seen", wrap_id)
    _pattern(store, "unasked", wrap_id)

    with store.reading("test") as reader:
        prior = load_prior(reader.conn, {"seen"}, None)

    assert list(prior) == ["seen"]
    assert prior["seen"].explanations == ()
    assert not prior["seen"].in_last_save
