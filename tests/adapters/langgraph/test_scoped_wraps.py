"""Per-user wraps end to end: each user's continuity reaches only that user's next session."""

from __future__ import annotations

from typing import Any

import _contract
from anneal_langgraph import AnnealMiddleware
from anneal_langgraph._convert import message_text
from anneal_memory import AgentMemory, Store
from langchain.agents import create_agent


def _continuity(store: Store, user: str) -> str:
    return "\n".join(
        [
            f"# {store.project_name} — Memory (v1)",
            "",
            "## State",
            f"- Only {user} was told the secret word {user.upper()}-WORD.",
            "",
            "## Patterns",
            "",
            "## Decisions",
            "- none yet",
            "",
            "## Context",
            f"- {user} asked about the staging database.",
            "",
        ]
    )


def _session(store: Store, model_class: Any, user: str, steps: list[Any]) -> str:
    """One session of ``user`` in a fresh AgentMemory; what its first model call received."""
    model = model_class(steps=steps)
    middleware = AnnealMiddleware(AgentMemory(store), wrap_on_end=True)
    agent = create_agent(model, tools=[_contract.lookup_fact], middleware=[middleware])
    state = {"messages": [{"role": "user", "content": _contract.FIRST_PROMPT}]}
    agent.invoke(state, config={"configurable": {"user_id": user}})
    assert middleware.last_wrap is not None
    assert middleware.last_wrap.status == "saved", middleware.last_wrap.message
    return "\n".join(message_text(m) for m in model.received[0])


def test_each_users_continuity_reaches_only_that_users_next_session(
    store: Store, scripted_model: Any
) -> None:
    packages: dict[str, str] = {}

    def compress(user: str) -> Any:
        def step(text: str) -> _contract.Reply:
            packages[user] = text
            return _contract.Reply(_continuity(store, user))

        return step

    answer = _contract.answer(_contract.ANSWER)
    _session(store, scripted_model, "alice", [_contract.call_tool, answer, compress("alice")])
    _session(store, scripted_model, "bob", [answer, compress("bob")])
    assert _contract.TOOL_OUTPUT in packages["alice"]
    assert _contract.TOOL_OUTPUT not in packages["bob"]  # Bob's wrap saw only Bob's episodes
    alice_next = _session(store, scripted_model, "alice", [answer, compress("alice")])
    bob_next = _session(store, scripted_model, "bob", [answer, compress("bob")])
    assert "ALICE-WORD" in alice_next
    assert "BOB-WORD" not in alice_next
    assert "BOB-WORD" in bob_next
    assert "ALICE-WORD" not in bob_next
    assert store.load_continuity() is None  # the shared scope was never wrapped
    assert "ALICE-WORD" in (store.load_continuity("user:alice") or "")


def test_an_explicit_wrap_outside_a_run_names_the_users_conversation(
    store: Store, scripted_model: Any
) -> None:
    model = scripted_model(
        steps=[
            _contract.answer(_contract.ANSWER),
            lambda _: _contract.Reply(_continuity(store, "carol")),
        ]
    )
    middleware = AnnealMiddleware(AgentMemory(store))
    agent = create_agent(model, middleware=[middleware])
    state = {"messages": [{"role": "user", "content": _contract.FIRST_PROMPT}]}
    agent.invoke(state, config={"configurable": {"user_id": "carol"}})
    assert middleware.wrap().status == "empty"  # the AgentMemory's own (shared) scope
    assert middleware.wrap(configurable={"user_id": "carol"}).status == "saved"
    assert "CAROL-WORD" in (store.load_continuity("user:carol") or "")
