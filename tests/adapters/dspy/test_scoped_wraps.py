"""Scoped wraps: a module on a scoped ``AgentMemory`` records, starts and wraps in that scope."""

from __future__ import annotations

from typing import Any

import _contract
import dspy
from anneal_dspy import AnnealModule
from anneal_memory import AgentMemory, Store


def _session(store: Store, scripted_lm: Any, user: str, steps: list[Any]) -> str:
    """One session of ``user``'s module (call, then wrap); what its first model call got."""
    lm = scripted_lm(steps)
    program = dspy.ReAct("question -> answer", tools=[_contract.lookup_fact])
    agent = AnnealModule(program, AgentMemory(store, scope=f"user:{user}"))
    with dspy.context(lm=lm):
        agent(question=_contract.FIRST_PROMPT)
        outcome = agent.wrap()
    assert outcome.status == "saved", outcome.message
    return str(lm.received[0])


def test_each_users_continuity_reaches_only_that_users_next_session(
    store: Store, scripted_lm: Any
) -> None:
    packages: dict[str, str] = {}
    answer = _contract.answer(_contract.ANSWER)

    def wrap(user: str) -> Any:
        return _contract.scoped_compress(store, user, packages)

    _session(store, scripted_lm, "alice", [_contract.call_tool, answer, wrap("alice")])
    _session(store, scripted_lm, "bob", [answer, wrap("bob")])
    assert _contract.TOOL_OUTPUT in packages["alice"]
    assert _contract.TOOL_OUTPUT not in packages["bob"]
    alice_next = _session(store, scripted_lm, "alice", [answer, wrap("alice")])
    bob_next = _session(store, scripted_lm, "bob", [answer, wrap("bob")])
    assert "ALICE-WORD" in alice_next
    assert "BOB-WORD" not in alice_next
    assert "BOB-WORD" in bob_next
    assert "ALICE-WORD" not in bob_next
    assert store.load_continuity() is None
