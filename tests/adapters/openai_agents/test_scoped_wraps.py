"""Per-session wraps end to end: each session's continuity reaches only its own next run."""

from __future__ import annotations

import asyncio
from typing import Any

import _contract
from agents import Agent, RunConfig, SQLiteSession, function_tool
from anneal_memory import AgentMemory, Store
from anneal_openai_agents import AnnealHooks

CONFIG = RunConfig(tracing_disabled=True)


def _session(store: Store, scripted_model: Any, name: str, steps: list[Any], **kw: Any) -> str:
    """One run of session ``name`` in fresh hooks that wrap at its end; its first model input."""
    model = scripted_model(steps=steps)
    hooks = AnnealHooks(AgentMemory(store), wrap_on_end=True, **kw.pop("hooks", {}))
    agent = Agent(name="t", model=model, tools=[function_tool(_contract.lookup_fact)])
    session = SQLiteSession(name)
    asyncio.run(hooks.run(agent, _contract.FIRST_PROMPT, session=session, run_config=CONFIG, **kw))
    assert hooks.last_wrap is not None
    assert hooks.last_wrap.status == "saved", hooks.last_wrap.message
    return str(model.received[0])


def test_each_sessions_continuity_reaches_only_that_sessions_next_run(
    store: Store, scripted_model: Any
) -> None:
    packages: dict[str, str] = {}
    answer = _contract.answer(_contract.ANSWER)

    def wrap(name: str) -> Any:
        return _contract.scoped_compress(store, name, packages)

    _session(store, scripted_model, "alice", [_contract.call_tool, answer, wrap("alice")])
    _session(store, scripted_model, "bob", [answer, wrap("bob")])
    assert _contract.TOOL_OUTPUT in packages["alice"]
    assert _contract.TOOL_OUTPUT not in packages["bob"]  # Bob's wrap saw only Bob's episodes
    alice_next = _session(store, scripted_model, "alice", [answer, wrap("alice")])
    bob_next = _session(store, scripted_model, "bob", [answer, wrap("bob")])
    assert "ALICE-WORD" in alice_next
    assert "BOB-WORD" not in alice_next
    assert "BOB-WORD" in bob_next
    assert "ALICE-WORD" not in bob_next
    assert store.load_continuity() is None  # the shared scope was never wrapped
    assert "BOB-WORD" in (store.load_continuity("thread:bob") or "")


def test_wrap_every_counts_the_runs_own_session(store: Store, scripted_model: Any) -> None:
    """Episodes of other sessions never make a session's run-end wrap due."""
    memory = AgentMemory(store)
    memory.record("Someone else's note about the shared scope.")
    memory.record("Another note nobody in the session wrote.")
    model = scripted_model(steps=[_contract.answer(_contract.ANSWER)])
    hooks = AnnealHooks(memory, wrap_every=2)
    agent = Agent(name="t", model=model)
    asyncio.run(hooks.run(agent, "Hello", session=SQLiteSession("s"), run_config=CONFIG))
    assert hooks.last_wrap is None  # one episode waits in session_id=s: not due


def test_the_scope_from_scope_is_wrapped(store: Store, scripted_model: Any) -> None:
    steps = [_contract.answer(_contract.ANSWER), _contract.scoped_compress(store, "ann", {})]
    hooks = {"scope_from": lambda ctx: f"user:{ctx['user']}"}
    _session(store, scripted_model, "c", steps, hooks=hooks, context={"user": "ann"})
    assert "ANN-WORD" in (store.load_continuity("user:ann") or "")


def test_an_explicit_wrap_names_the_session_and_context(store: Store, scripted_model: Any) -> None:
    model = scripted_model(
        steps=[_contract.answer(_contract.ANSWER), _contract.scoped_compress(store, "carol", {})]
    )
    hooks = AnnealHooks(AgentMemory(store), scope_from=lambda ctx: ctx["user"])
    agent = Agent(name="t", model=model)
    session = SQLiteSession("chat")
    run = hooks.run(agent, "Hello", session=session, run_config=CONFIG, context={"user": "carol"})
    asyncio.run(run)
    assert hooks.wrap().status == "empty"  # the AgentMemory's own (shared) scope
    assert hooks.wrap(session=session).status == "empty"  # no context: scope_from not asked
    assert hooks.wrap(context={"user": "carol"}, session=session).status == "saved"
    assert "CAROL-WORD" in (store.load_continuity("carol") or "")
