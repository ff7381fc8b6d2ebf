"""Scoped wraps: a listener on a scoped ``AgentMemory`` records, starts and wraps in that scope."""

from __future__ import annotations

from typing import Any

import _contract
from anneal_crewai import AnnealListener
from anneal_memory import AgentMemory, Store
from crewai.events import crewai_event_bus


def _kickoff(store: Store, make_llm: Any, make_crew: Any, crew_name: str, steps: list[Any]) -> str:
    """One kickoff of ``crew_name``'s crew that wraps at its end; its first model input."""
    llm = make_llm(steps)
    memory = AgentMemory(store, scope=f"crew:{crew_name}")
    crew = make_crew(llm, _contract.FIRST_PROMPT)
    with AnnealListener(memory, crews=[crew], wrap_on_end=True) as listener:
        crew.kickoff()
        crewai_event_bus.flush()
    assert listener.last_error is None, listener.last_error
    assert listener.last_wrap is not None
    assert listener.last_wrap.status == "saved", listener.last_wrap.message
    return str(llm.received[0])


def test_each_crews_continuity_reaches_only_that_crews_next_kickoff(
    store: Store, make_llm: Any, make_crew: Any
) -> None:
    packages: dict[str, str] = {}
    answer = _contract.answer(_contract.ANSWER)

    def wrap(name: str) -> Any:
        return _contract.scoped_compress(store, name, packages)

    _kickoff(store, make_llm, make_crew, "alice", [_contract.call_tool, answer, wrap("alice")])
    _kickoff(store, make_llm, make_crew, "bob", [answer, wrap("bob")])
    assert _contract.TOOL_OUTPUT in packages["alice"]
    assert _contract.TOOL_OUTPUT not in packages["bob"]
    alice_next = _kickoff(store, make_llm, make_crew, "alice", [answer, wrap("alice")])
    bob_next = _kickoff(store, make_llm, make_crew, "bob", [answer, wrap("bob")])
    assert "ALICE-WORD" in alice_next
    assert "BOB-WORD" not in alice_next
    assert "BOB-WORD" in bob_next
    assert "ALICE-WORD" not in bob_next
    assert store.load_continuity() is None
