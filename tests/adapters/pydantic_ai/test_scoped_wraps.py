"""Per-user wraps end to end: each user's continuity reaches only that user's next run."""

from __future__ import annotations

import asyncio
from typing import Any

import _contract
from anneal_memory import AgentMemory, Store
from anneal_pydantic_ai import AnnealCapability
from pydantic_ai import Agent
from pydantic_ai.models.function import FunctionModel


def _user(ctx: Any) -> str:
    return f"user_id={ctx.deps}"


def _agent(function: Any, capability: AnnealCapability) -> Agent[str, str]:
    return Agent(
        FunctionModel(function),
        deps_type=str,
        tools=[_contract.lookup_fact],
        capabilities=[capability],
    )


def _session(store: Store, scripted_function: Any, user: str, steps: list[Any]) -> str:
    """One run of ``user`` in a fresh capability that wraps at its end; its first model input."""
    function = scripted_function(steps)
    capability = AnnealCapability(AgentMemory(store), wrap_on_end=True, scope_from=_user)
    asyncio.run(_agent(function, capability).run(_contract.FIRST_PROMPT, deps=user))
    assert capability.last_wrap is not None
    assert capability.last_wrap.status == "saved", capability.last_wrap.message
    return str(function.received[0])


def test_each_users_continuity_reaches_only_that_users_next_run(
    store: Store, scripted_function: Any
) -> None:
    packages: dict[str, str] = {}
    answer = _contract.answer(_contract.ANSWER)

    def wrap(user: str) -> Any:
        return _contract.scoped_compress(store, user, packages)

    _session(store, scripted_function, "alice", [_contract.call_tool, answer, wrap("alice")])
    _session(store, scripted_function, "bob", [answer, wrap("bob")])
    assert _contract.TOOL_OUTPUT in packages["alice"]
    assert _contract.TOOL_OUTPUT not in packages["bob"]  # Bob's wrap saw only Bob's episodes
    alice_next = _session(store, scripted_function, "alice", [answer, wrap("alice")])
    bob_next = _session(store, scripted_function, "bob", [answer, wrap("bob")])
    assert "ALICE-WORD" in alice_next
    assert "BOB-WORD" not in alice_next
    assert "BOB-WORD" in bob_next
    assert "ALICE-WORD" not in bob_next
    assert store.load_continuity() is None  # the shared scope was never wrapped
    assert "ALICE-WORD" in (store.load_continuity("user_id=alice") or "")


def test_wrap_every_counts_the_runs_own_scope(store: Store, scripted_function: Any) -> None:
    """Episodes of other users never make a user's run-end wrap due."""
    memory = AgentMemory(store)
    memory.record("Someone else's note about the shared scope.")
    memory.record("Another note nobody in this conversation wrote.")
    function = scripted_function([_contract.answer(_contract.ANSWER)])
    capability = AnnealCapability(memory, wrap_every=2, scope_from=_user)
    asyncio.run(_agent(function, capability).run("Hello", deps="dave"))
    assert capability.last_wrap is None  # one episode waits in user_id=dave: not due


def test_an_explicit_wrap_names_the_users_scope(store: Store, scripted_function: Any) -> None:
    steps = [_contract.answer(_contract.ANSWER), _contract.scoped_compress(store, "carol", {})]
    capability = AnnealCapability(AgentMemory(store), scope_from=_user)
    asyncio.run(_agent(scripted_function(steps), capability).run("Hello", deps="carol"))
    assert capability.wrap().status == "empty"  # the AgentMemory's own (shared) scope
    assert capability.wrap(scope="user_id=carol").status == "saved"
    assert "CAROL-WORD" in (store.load_continuity("user_id=carol") or "")


def test_the_recall_tool_searches_the_runs_scope_only(store: Store, scripted_function: Any) -> None:
    memory = AgentMemory(store)
    memory.record_tool_result(_contract.TOOL_NAME, _contract.TOOL_OUTPUT, scope="user_id=alice")
    capability = AnnealCapability(memory, recall_tool=True, scope_from=_user)
    recall = _contract.ToolCall("recall_memory", {"query": "staging database port"})
    received = {}
    for user in ("bob", "alice"):
        function = scripted_function([lambda _: recall, _contract.answer("ok")])
        asyncio.run(_agent(function, capability).run("Hello there", deps=user))
        received[user] = function.received[1]
    assert "Nothing relevant in memory." in received["bob"]
    assert _contract.TOOL_OUTPUT in received["alice"]
