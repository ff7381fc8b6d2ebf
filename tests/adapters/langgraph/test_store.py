"""``AnnealStore`` against LangGraph's store contract, on SQLite and PostgreSQL.

LangGraph ships no store conformance suite (``langgraph-checkpoint-conformance`` covers
checkpointers only), so the cases of its own store tests (``InMemoryStore``, ``SqliteStore``:
batch order, get/put/delete, search with filters and pages, namespace listing, namespace
validation) are restated here, then what anneal-memory adds: supersession, scopes, recall.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest

pytest.importorskip("langgraph.store.base")

from anneal_langgraph import AnnealMiddleware, AnnealStore
from anneal_memory import AgentMemory, Store
from backends import backend_store, pg_url, target  # noqa: F401 - fixtures
from langchain.agents import create_agent
from langchain.tools import ToolRuntime, tool
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.store.base import (
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchOp,
)


@pytest.fixture
def kv(backend_store: Store) -> AnnealStore:  # noqa: F811
    return AnnealStore(backend_store)


def test_batch_keeps_the_order_of_mixed_operations(kv: AnnealStore) -> None:
    kv.put(("test", "foo"), "key1", {"data": "value1"})
    kv.put(("test", "bar"), "key2", {"data": "value2"})
    results = kv.batch(
        [
            GetOp(("test", "foo"), "key1"),
            PutOp(("test", "bar"), "key2", {"data": "value2"}),
            SearchOp(("test",), {"data": "value1"}, 10, 0),
            ListNamespacesOp(match_conditions=None, max_depth=None, limit=10, offset=0),
            GetOp(("test",), "key3"),
        ]
    )
    assert isinstance(results[0], Item)
    assert (results[0].namespace, results[0].key, results[0].value) == (
        ("test", "foo"),
        "key1",
        {"data": "value1"},
    )
    assert results[1] is None
    assert [(i.key, i.value) for i in results[2]] == [("key1", {"data": "value1"})]
    assert set(results[3]) == {("test", "foo"), ("test", "bar")}
    assert results[4] is None


def test_put_get_update_and_delete(kv: AnnealStore) -> None:
    namespace = ("test", "documents")
    kv.put(namespace, "doc1", {"title": "Test Document", "content": "Hello, World!"})
    first = kv.get(namespace, "doc1")
    assert first is not None
    assert first.value == {"title": "Test Document", "content": "Hello, World!"}
    kv.put(namespace, "doc1", {"title": "Updated Document", "content": "Hello, Updated!"})
    updated = kv.get(namespace, "doc1")
    assert updated is not None
    assert updated.value == {"title": "Updated Document", "content": "Hello, Updated!"}
    assert updated.created_at == first.created_at
    assert updated.updated_at >= first.updated_at
    assert kv.get(("test", "other_documents"), "doc1") is None
    kv.delete(namespace, "doc1")
    assert kv.get(namespace, "doc1") is None
    assert kv.store.recall(include_superseded=True).episodes == ()  # every value went


def test_a_put_of_none_in_a_batch_deletes(kv: AnnealStore) -> None:
    kv.batch(
        [
            PutOp(("test",), "key1", {"data": "value1"}),
            PutOp(("test",), "key2", {"data": "value2"}),
            PutOp(("test",), "key3", None),
        ]
    )
    assert kv.get(("test",), "key1").value == {"data": "value1"}  # type: ignore[union-attr]
    assert kv.get(("test",), "key3") is None


def test_search_by_prefix_filter_and_pages(kv: AnnealStore) -> None:
    kv.put(("test", "docs"), "doc1", {"title": "First", "author": "Alice", "rank": 1})
    kv.put(("test", "docs"), "doc2", {"title": "Second", "author": "Bob", "rank": 2})
    kv.put(("test", "images"), "img1", {"title": "Image", "author": "Alice", "rank": 3})
    assert len(kv.search(("test",))) == 3
    docs = kv.search(("test", "docs"))
    assert {i.key for i in docs} == {"doc1", "doc2"}
    assert {i.key for i in kv.search(("test",), filter={"author": "Alice"})} == {"doc1", "img1"}
    assert {i.key for i in kv.search(("test",), filter={"rank": {"$gte": 2}})} == {"doc2", "img1"}
    assert {i.key for i in kv.search(("test",), filter={"author": {"$ne": "Alice"}})} == {"doc2"}
    assert len(kv.search(("test",), limit=2)) == 2
    assert len(kv.search(("test",), offset=2)) == 1
    assert kv.search(("prod",)) == []


def test_search_with_a_query_ranks_through_recall(kv: AnnealStore) -> None:
    kv.put(("users", "alice"), "food", {"text": "Alice likes sushi on Fridays"})
    kv.put(("users", "alice"), "city", {"text": "Alice lives in Lisbon"})
    kv.put(("users", "bob"), "food", {"text": "Bob likes sushi too"})
    found = kv.search(("users", "alice"), query="where does she live? Lisbon")
    assert [i.key for i in found] == ["city"]
    assert found[0].score is not None
    assert {i.namespace for i in kv.search(("users",), query="sushi")} == {
        ("users", "alice"),
        ("users", "bob"),
    }


def test_list_namespaces_by_prefix_suffix_depth_and_page(kv: AnnealStore) -> None:
    for namespace in [
        ("test", "documents", "public"),
        ("test", "documents", "private"),
        ("test", "images", "public"),
        ("prod", "documents", "public"),
    ]:
        kv.put(namespace, "dummy", {"content": "dummy"})
    assert len(kv.list_namespaces()) == 4
    assert all(ns[0] == "test" for ns in kv.list_namespaces(prefix=("test",)))
    assert len(kv.list_namespaces(prefix=("test",))) == 3
    assert len(kv.list_namespaces(suffix=("public",))) == 3
    assert kv.list_namespaces(prefix=("test", "*", "public")) == [
        ("test", "documents", "public"),
        ("test", "images", "public"),
    ]
    assert kv.list_namespaces(max_depth=2) == [
        ("prod", "documents"),
        ("test", "documents"),
        ("test", "images"),
    ]
    assert len(kv.list_namespaces(limit=3)) == 3
    assert len(kv.list_namespaces(offset=3)) == 1
    suffix = ListNamespacesOp(
        match_conditions=(MatchCondition("suffix", ("public",)),), limit=10, offset=0
    )
    assert all(ns[-1] == "public" for ns in kv.batch([suffix])[0])


def test_namespace_labels_are_checked(kv: AnnealStore) -> None:
    with pytest.raises(InvalidNamespaceError):
        kv.put(("a.b",), "key", {"x": 1})
    with pytest.raises(InvalidNamespaceError):
        kv.put((), "key", {"x": 1})
    with pytest.raises(InvalidNamespaceError):
        kv.batch([GetOp(("a", ""), "key")])
    with pytest.raises(NotImplementedError):
        kv.put(("a",), "key", {"x": 1}, ttl=5)


def test_the_async_api_runs_off_the_loop(kv: AnnealStore) -> None:
    async def main() -> Any:
        await kv.aput(("users", "alice"), "k", {"text": "async value"})
        item = await kv.aget(("users", "alice"), "k")
        found = await kv.asearch(("users",), query="async")
        await kv.adelete(("users", "alice"), "k")
        return item, found, await kv.aget(("users", "alice"), "k")

    item, found, gone = asyncio.run(main())
    assert item.value == {"text": "async value"}
    assert [i.key for i in found] == ["k"]
    assert gone is None


def test_a_put_supersedes_the_old_value_through_its_state_key(kv: AnnealStore) -> None:
    kv.put(("users", "alice"), "food", {"text": "Alice likes sushi"})
    kv.put(("users", "alice"), "food", {"text": "Alice now prefers ramen"})
    history = kv.store.recall(include_superseded=True).episodes
    new, old = sorted(history, key=lambda e: e.superseded_by is not None)
    assert old.superseded_by == new.id  # replaced, not overwritten: both are kept
    assert old.state_key == new.state_key
    assert (new.trust.value, new.type.value, new.source) == ("agent", "context", "langgraph-store")
    assert [e.id for e in kv.store.recall("sushi").episodes] == []  # recall shows the current


def test_namespaces_name_the_scopes_of_the_scheme(kv: AnnealStore) -> None:
    kv.put(("users", "alice", "memories"), "a", {"text": "one"})
    kv.put(("user:bob",), "b", {"text": "two"})
    kv.put(("memories", "carol"), "c", {"text": "three"})
    assert [e.content for e in kv.store.recall(scope="user:alice").episodes] == ["a: one"]
    assert [e.content for e in kv.store.recall(scope="user:bob").episodes] == ["b: two"]
    assert [e.content for e in kv.store.recall(scope="ns:memories/carol").episodes] == ["c: three"]


@dataclasses.dataclass
class Context:
    user_id: str


@tool
def remember(fact: str, runtime: ToolRuntime[Context]) -> str:
    """Remember a fact about the user."""
    assert runtime.store is not None
    runtime.store.put(("users", runtime.context.user_id), "fact", {"text": fact})
    return "Remembered."


@tool
def recall_fact(runtime: ToolRuntime[Context]) -> str:
    """Read back what is remembered about the user."""
    assert runtime.store is not None
    item = runtime.store.get(("users", runtime.context.user_id), "fact")
    return "nothing" if item is None else str(item.value["text"])


class ToolModel(GenericFakeChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


def _call(name: str, args: dict[str, Any]) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": f"call-{name}"}])


def test_a_tool_writes_and_a_later_session_reads_through_runtime_store(
    backend_store: Store,  # noqa: F811
) -> None:
    """The create_agent example: session 1's tool puts a fact for Alice; session 2 (a new
    agent on the same store) reads it through ``runtime.store``, and the middleware recalls
    it for Alice's prompt too, while Bob gets nothing."""
    kv, fact = AnnealStore(backend_store), "Alice's invoices go to the Lisbon office."
    first = ToolModel(messages=iter([_call("remember", {"fact": fact}), "Noted."]))
    agent = create_agent(first, tools=[remember], store=kv, context_schema=Context)
    agent.invoke(
        {"messages": [{"role": "user", "content": "Remember this."}]}, context=Context("alice")
    )

    seen: list[str] = []

    class Reader(ToolModel):
        def _generate(self, messages: Any, *args: Any, **kwargs: Any) -> Any:
            seen.append("\n".join(str(m.content) for m in messages))
            return super()._generate(messages, *args, **kwargs)

    for user in ("alice", "bob"):
        reader = Reader(messages=iter([_call("recall_fact", {}), "Done."]))
        later = create_agent(
            reader,
            tools=[recall_fact],
            store=kv,
            context_schema=Context,
            middleware=[AnnealMiddleware(AgentMemory(backend_store))],
        )
        question = {"messages": [{"role": "user", "content": "Where do the invoices go?"}]}
        result = later.invoke(question, context=Context(user))
        tool_reply = next(m for m in result["messages"] if m.type == "tool").content
        assert tool_reply == (fact if user == "alice" else "nothing")
    assert "Lisbon" in seen[0]  # recalled from user:alice into Alice's prompt
    assert "Lisbon" not in seen[2]  # Bob's first model call
