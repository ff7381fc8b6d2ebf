"""``AnnealSession``: the SDK's session contract (its own session tests' cases), then memory.

The cases of the SDK's ``SQLiteSession`` tests (add and get, ``limit``, ``pop_item``,
``clear_session``, sessions kept apart, a runner continuing a conversation) run against
``AnnealSession`` on SQLite and PostgreSQL; then what it adds: long-term memory, recording,
the wrap, the bound on items, and a user named by the run context.
"""

from __future__ import annotations

import asyncio
from typing import Any

import _contract
import pytest
from agents import Agent, Runner, function_tool
from agents.memory.session import SessionABC
from anneal_memory import AgentMemory, EpisodeType, InvalidInputError, Store
from anneal_openai_agents import AnnealSession
from anneal_openai_agents._session import MEMORY_ITEM_PREFIX
from backends import backend_store, pg_url, target  # noqa: F401 - fixtures


@pytest.fixture
def db(backend_store: Store) -> Store:  # noqa: F811
    return backend_store


def _run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_it_is_an_sdk_session() -> None:
    assert issubclass(AnnealSession, SessionABC)


def test_add_get_pop_and_clear(db: Store) -> None:
    session = AnnealSession("s-1", db)
    items = [
        {"role": "user", "content": "Hello"},
        {"role": "assistant", "content": "Hi there!"},
        {"role": "user", "content": "How are you?"},
    ]

    async def main() -> None:
        await session.add_items(items[:2])
        await session.add_items(items[2:])
        assert await session.get_items() == items
        assert await session.get_items(limit=2) == items[1:]
        assert await session.get_items(limit=0) == []
        assert await session.pop_item() == items[2]
        assert await session.get_items() == items[:2]
        await session.clear_session()
        assert await session.get_items() == []
        assert await session.pop_item() is None

    _run(main())


def test_sessions_are_kept_apart_and_outlive_their_objects(db: Store) -> None:
    async def main() -> None:
        await AnnealSession("a", db).add_items([{"role": "user", "content": "for a"}])
        await AnnealSession("b", db).add_items([{"role": "user", "content": "for b"}])
        assert await AnnealSession("a", db).get_items() == [{"role": "user", "content": "for a"}]
        await AnnealSession("a", db).clear_session()
        assert await AnnealSession("b", db).get_items() == [{"role": "user", "content": "for b"}]

    _run(main())


def test_items_are_bounded_and_bad_items_are_refused(db: Store) -> None:
    session = AnnealSession("bounded", db, max_items=3)

    async def main() -> None:
        for n in range(5):
            await session.add_items([{"role": "user", "content": f"message {n}"}])
        assert [i["content"] for i in await session.get_items()] == [
            "message 2",
            "message 3",
            "message 4",
        ]

    _run(main())
    from anneal_memory.sessions import add_items

    with pytest.raises(InvalidInputError, match="not JSON"):
        add_items(db, "bounded", [{"bad": object()}])
    with pytest.raises(InvalidInputError, match="session_id"):
        add_items(db, "", [{"role": "user", "content": "x"}])


def _agent(model: Any) -> Agent[Any]:
    return Agent(name="assistant", model=model, tools=[function_tool(_contract.lookup_fact)])


def test_runner_with_the_session_alone_gives_history_memory_recording_and_the_wrap(
    db: Store, scripted_model: Any
) -> None:
    """Session 1 calls the tool and answers; session 2 (new objects, the same id) gets the
    history and the memory item; clearing the session wraps its scope and deletes the items."""
    first = scripted_model(steps=[_contract.call_tool, _contract.answer(_contract.ANSWER)])
    _run(Runner.run(_agent(first), _contract.FIRST_PROMPT, session=AnnealSession("user-42", db)))
    scope = "thread:user-42"
    kinds = [e.type for e in db.recall(scope=scope).episodes]
    assert sorted(kinds) == [EpisodeType.OBSERVATION, EpisodeType.OUTCOME]

    second = scripted_model(steps=[_contract.answer(_contract.SECOND_ANSWER)])
    packages: list[str] = []
    wrapper = scripted_model(steps=[_contract.compress_step(db, packages)])
    session = AnnealSession("user-42", db, wrap_model=wrapper)
    _run(Runner.run(_agent(second), _contract.SECOND_PROMPT, session=session))
    received = second.received[0]
    assert _contract.FIRST_PROMPT in received  # the history
    assert MEMORY_ITEM_PREFIX in received  # the memory item
    assert _contract.TOOL_OUTPUT in received
    history = _run(session.get_items())
    assert all(MEMORY_ITEM_PREFIX not in str(item) for item in history)  # never saved

    _run(session.clear_session())
    assert session.last_wrap is not None
    assert session.last_wrap.status == "saved"
    assert len(packages) == 1
    assert db.load_continuity(scope) is not None
    assert _run(session.get_items()) == []


def test_a_user_in_the_run_context_names_the_scope(db: Store, scripted_model: Any) -> None:
    model = scripted_model(steps=[_contract.call_tool, _contract.answer(_contract.ANSWER)])
    session = AnnealSession("chat-1", db)
    _run(
        Runner.run(
            _agent(model), _contract.FIRST_PROMPT, session=session, context={"user_id": "alice"}
        )
    )
    assert db.recall(scope="user:alice").total_matching == 2
    assert session.scope == "user:alice"


def test_a_named_user_shares_memory_across_sessions(db: Store, scripted_model: Any) -> None:
    """Monday's conversation ends (cleared: wrapped into Alice's continuity); Tuesday's new
    conversation starts with it, without Monday's items."""
    first = scripted_model(steps=[_contract.call_tool, _contract.answer(_contract.ANSWER)])
    packages: list[str] = []
    wrapper = scripted_model(steps=[_contract.compress_step(db, packages)])
    monday = AnnealSession("monday", db, user_id="alice", wrap_model=wrapper)
    _run(Runner.run(_agent(first), _contract.FIRST_PROMPT, session=monday))
    _run(monday.clear_session())
    assert monday.last_wrap is not None
    assert monday.last_wrap.status == "saved"
    later = scripted_model(steps=[_contract.answer(_contract.SECOND_ANSWER)])
    tuesday = AnnealSession("tuesday", AgentMemory(db), user_id="alice")
    _run(Runner.run(_agent(later), _contract.SECOND_PROMPT, session=tuesday))
    assert _contract.FIRST_PROMPT not in later.received[0]  # another conversation
    assert _contract.PATTERN_NAME in later.received[0]  # the same user's continuity
    bob = scripted_model(steps=[_contract.answer(_contract.SECOND_ANSWER)])
    _run(
        Runner.run(
            _agent(bob), _contract.SECOND_PROMPT, session=AnnealSession("t", db, user_id="bob")
        )
    )
    assert _contract.PATTERN_NAME not in bob.received[0]
