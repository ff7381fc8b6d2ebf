"""``scope_from_keys``: the scope an adapter derives from its framework's user or session id."""

from __future__ import annotations

import pytest
from anneal_memory import AgentMemory, Store
from anneal_memory.scopes import scope_from_keys


def test_keys_with_a_value_name_the_scope_in_order_after_the_base() -> None:
    assert scope_from_keys([("session_id", "alice")]) == "session_id=alice"
    assert scope_from_keys([("session_id", "alice")], base="team") == "team,session_id=alice"
    assert scope_from_keys([("user_id", 42), ("thread_id", "t1")]) == "user_id=42,thread_id=t1"
    assert scope_from_keys([("user_id", None), ("thread_id", "  ")], base="team") == "team"
    assert scope_from_keys([("user_id", None), ("thread_id", "")]) is None
    assert scope_from_keys([]) is None


@pytest.mark.parametrize("odd", ["x" * 200, "tab\there", "new\nline", "nul\x00", "é" * 70])
def test_any_id_gives_a_valid_scope_of_its_own(odd: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    scope = scope_from_keys([("session_id", odd)])
    assert scope is not None
    assert scope.startswith("sha256:")
    assert len(scope) == len("sha256:") + 32
    assert scope != scope_from_keys([("session_id", odd + "!")])
    with Store(tmp_path / "m.db") as store:  # the store accepts it as a scope
        AgentMemory(store, scope=scope).record("noted", "observation")
        assert store.recall(scope=scope).total_matching == 1
