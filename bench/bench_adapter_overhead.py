#!/usr/bin/env python3
"""Adapter overhead per model call: what anneal-memory adds to each LLM call of an agent.

One model call of an agent with memory costs, on top of the model itself:
  recall   ``AgentMemory.context_for(prompt)``: FTS5 recall + rendering the bounded block
  record   ``AgentMemory.record_tool_result(...)``: one durable write (the store's own
           durability: WAL + fsync, plus the audit line when the audit trail is on)
  per_call recall + record, timed together (the goal: p50 <= 5 ms at 10k episodes)
a floor (one fsynced append; ``Store.record`` with the audit trail off) to show how much
of ``record`` is the store's durability rather than the adapter; and, when LangChain is
installed, the same through the LangGraph adapter's hooks with a
no-op model/tool handler (``AnnealMiddleware.wrap_model_call`` + ``wrap_tool_call``), so
message conversion and request overrides are counted too. Likewise, for each framework that
is installed, its adapter's per-call hook path with no model and no event loop (the async
hooks run on one event loop; their records go to the writer thread); every call is a new turn,
so it really recalls:
  openai_agents  ``AnnealHooks.filter_model_input`` + ``on_tool_end``
  pydantic_ai    ``AnnealCapability`` memory instructions + ``after_tool_execute``
  llamaindex     ``AnnealMemoryBlock.aget`` (new session id per call, so a new turn; the
                 block is not scoped by session, so it recalls from the whole corpus)
                 + ``AnnealSpanHandler`` span enter/exit of a ``FunctionTool.acall``
  dspy           ``AnnealModule.recall`` + ``AnnealCallback.on_tool_start`` / ``on_tool_end``

The store is pre-filled with ``--episodes`` seeded Zipf rows (bench/_common.Corpus); prompts
are 12-word user questions built from mid-band words, so most recalls find something.

Usage:
  .venv/bin/python bench/bench_adapter_overhead.py [--episodes 10000] [--calls 500]
      [--quick] [--out f.json]
Prints ONE JSON summary on stdout (progress on stderr). Seeded (--seed 42).
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import os
import random
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Coroutine
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import Corpus, emit, log, machine_facts, summarize
from anneal_memory import AgentMemory, Store

# Frameworks read these when first imported: no telemetry, LiteLLM's cost map kept local.
for _name, _value in {
    "OPENAI_AGENTS_DISABLE_TRACING": "1",
    "LOGFIRE_SEND_TO_LOGFIRE": "false",
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_TELEMETRY": "False",
    "DO_NOT_TRACK": "1",
    "OTEL_SDK_DISABLED": "true",
}.items():
    os.environ.setdefault(_name, _value)

pc = time.perf_counter
GOAL_MS = 5.0


def fill(store: Store, texts: list[str]) -> None:
    for start in range(0, len(texts), 10_000):
        chunk = texts[start : start + 10_000]
        store.import_json(
            {
                "format": "anneal-memory-export",
                "format_version": 1,
                "episodes": [
                    {
                        "id": f"{0x10000000 + start + i:08x}",
                        "timestamp": time.strftime(
                            "%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime(1_700_000_000 + start + i)
                        ),
                        "type": "observation",
                        "content": text,
                        "source": "agent",
                        "metadata": {},
                        "idempotency_key": None,
                    }
                    for i, text in enumerate(chunk)
                ],
                "tombstones": [],
            }
        )


def prompts(corpus: Corpus, n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    mid = corpus.query_words("mid", 20) + corpus.query_words("rare", 10)
    filler = ["please", "what", "should", "we", "do", "about", "the", "next", "step", "for"]
    out = []
    for _ in range(n):
        words = rng.sample(mid, 3) + rng.sample(filler, 6) + rng.sample(mid, 3)
        rng.shuffle(words)
        out.append(" ".join(words).capitalize() + "?")
    return out


def bench_core(memory: AgentMemory, questions: list[str], results: list[str]) -> dict:
    recall, record, per_call, sizes, hits = [], [], [], [], 0
    for i, (question, result) in enumerate(zip(questions, results, strict=True)):
        s = pc()
        block = memory.context_for(question)
        t = pc()
        memory.record_tool_result("search", f"{i}: {result}")
        e = pc()
        recall.append(t - s)
        record.append(e - t)
        per_call.append(e - s)
        sizes.append(len(block))
        hits += bool(block)
    return {
        "recall": summarize(recall),
        "record": summarize(record),
        "per_call": summarize(per_call),
        "recall_hit_rate": round(hits / len(questions), 3),
        "context_chars_median": sorted(sizes)[len(sizes) // 2],
    }


def bench_floor(folder: str, texts: list[str]) -> dict:
    """What one durable write costs here regardless of the adapter."""
    fsyncs, no_audit = [], []
    path = os.path.join(folder, "floor.bin")
    with open(path, "ab") as f:
        for text in texts:
            s = pc()
            f.write(text.encode() + b"\n")
            f.flush()
            os.fsync(f.fileno())
            fsyncs.append(pc() - s)
    store = Store(os.path.join(folder, "floor.db"), audit=False)
    for text in texts:
        s = pc()
        store.record(text, "observation")
        no_audit.append(pc() - s)
    store.close()
    return {"one_fsync": summarize(fsyncs), "store_record_audit_off": summarize(no_audit)}


def bench_langgraph(memory: AgentMemory, questions: list[str], results: list[str]) -> dict:
    try:
        from anneal_langgraph import AnnealMiddleware
        from langchain.agents.middleware import ModelRequest, ModelResponse
        from langchain.agents.middleware.types import ToolCallRequest
        from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
        from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
    except ImportError as exc:
        return {"skipped": f"LangChain not installed ({exc})"}
    middleware = AnnealMiddleware(memory, wrap_on_end=False)
    model = GenericFakeChatModel(messages=iter(()))
    reply = ModelResponse(result=[AIMessage(content="ok")])
    per_call = []
    for i, (question, result) in enumerate(zip(questions, results, strict=True)):
        request = ModelRequest(
            model=model,
            messages=[HumanMessage(content=question)],
            system_prompt="You are a helpful agent.",
            state={"messages": [], "anneal_run": f"run-{i}"},  # each call starts a new turn
        )
        call = {"name": "search", "args": {"q": question}, "id": f"c{i}", "type": "tool_call"}
        tool_request = ToolCallRequest(tool_call=call, tool=None, state={}, runtime=None)
        message = ToolMessage(content=f"{i}: {result}", tool_call_id=f"c{i}")
        s = pc()
        middleware.wrap_model_call(request, lambda r: reply)
        middleware.wrap_tool_call(tool_request, lambda r, m=message: m)
        per_call.append(pc() - s)
    return {"per_call": summarize(per_call)}


# -- the other adapters' per-call hook paths ---------------------------------------------------

Step = Callable[[int, str, str], None]


_LOOP: list[asyncio.AbstractEventLoop] = []


def drive(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run an async hook on one event loop kept for the whole run (as a framework would).

    Since #26 the async hooks keep store work off the loop: a record is handed to the memory's
    writer thread, so what is timed here is what the loop itself spends per call.
    """
    if not _LOOP:
        _LOOP.append(asyncio.new_event_loop())
    return _LOOP[0].run_until_complete(coro)


def time_steps(step: Step, questions: list[str], results: list[str]) -> dict:
    per_call = []
    for i, (question, result) in enumerate(zip(questions, results, strict=True)):
        s = pc()
        step(i, question, f"{i}: {result}")
        per_call.append(pc() - s)
    return {"per_call": summarize(per_call)}


def search(q: str) -> str:
    """Search the corpus."""
    return q


def openai_agents_step(memory: AgentMemory) -> Step:
    from agents import Agent, RunContextWrapper, function_tool
    from agents.run_config import CallModelData, ModelInputData
    from anneal_openai_agents import AnnealHooks

    hooks = AnnealHooks(memory, wrap_on_end=False)
    agent: Agent[Any] = Agent(name="bench")
    tool = function_tool(search, name_override="search")

    def step(i: int, question: str, result: str) -> None:
        data = ModelInputData(
            input=[{"role": "user", "content": question}], instructions="You are helpful."
        )
        hooks.filter_model_input(CallModelData(model_data=data, agent=agent, context=None))
        drive(hooks.on_tool_end(RunContextWrapper(context=None), agent, tool, result))

    return step


def pydantic_ai_step(memory: AgentMemory) -> Step:
    from anneal_pydantic_ai import AnnealCapability
    from pydantic_ai.messages import ToolCallPart

    cap = AnnealCapability(memory, wrap_on_end=False)

    def step(i: int, question: str, result: str) -> None:
        drive(cap._memory_instructions(SimpleNamespace(prompt=question)))  # type: ignore[arg-type]
        call = ToolCallPart("search", {"q": question})
        drive(cap.after_tool_execute(None, call=call, tool_def=None, args={}, result=result))  # type: ignore[arg-type]

    return step


def llamaindex_step(memory: AgentMemory) -> Step:
    from anneal_llamaindex import AnnealMemoryBlock, AnnealSpanHandler
    from llama_index.core.base.llms.types import ChatMessage
    from llama_index.core.tools import FunctionTool, ToolOutput

    block = AnnealMemoryBlock(memory=memory, scope_by_session=False)
    handler = AnnealSpanHandler(memory)
    tool = FunctionTool.from_defaults(fn=search, name="search")
    no_args = inspect.signature(lambda: None).bind()

    def step(i: int, question: str, result: str) -> None:
        drive(block.aget([ChatMessage(role="user", content=question)], session_id=str(i)))
        span = f"FunctionTool.acall-{uuid.uuid4()}"
        handler.span_enter(id_=span, bound_args=no_args, instance=tool)
        output = ToolOutput(content=result, tool_name="search", raw_input={}, raw_output=result)
        handler.span_exit(id_=span, bound_args=no_args, instance=tool, result=output)

    return step


def dspy_step(memory: AgentMemory) -> Step:
    import dspy
    from anneal_dspy import AnnealModule

    module = AnnealModule(dspy.Predict("question -> answer"), memory)
    callback = module.callback
    assert callback is not None
    tool = dspy.Tool(search)

    def step(i: int, question: str, result: str) -> None:
        module.recall(question=question)
        callback.on_tool_start(f"c{i}", tool, {})
        callback.on_tool_end(f"c{i}", result)

    return step


FRAMEWORKS: dict[str, Callable[[AgentMemory], Step]] = {
    "openai_agents": openai_agents_step,
    "pydantic_ai": pydantic_ai_step,
    "llamaindex": llamaindex_step,
    "dspy": dspy_step,
}


def bench_framework(
    name: str, memory: AgentMemory, questions: list[str], results: list[str]
) -> dict:
    try:
        step = FRAMEWORKS[name](memory)
    except ImportError as exc:
        return {"skipped": f"{name} not installed ({exc})"}
    before = memory.store.status().total_episodes
    timed = time_steps(step, questions, results)
    # A hook path that silently recorded nothing would time nothing worth knowing.
    return {**timed, "recorded": memory.store.status().total_episodes - before}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--quick", action="store_true", help="1,000 episodes, 100 calls")
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.quick:
        args.episodes, args.calls = 1_000, 100
    corpus = Corpus(seed=args.seed)
    with tempfile.TemporaryDirectory(prefix="anneal-bench-") as folder:
        store = Store(os.path.join(folder, "memory.db"))
        log(f"filling {args.episodes:,} episodes")
        fill(store, corpus.texts(0, args.episodes))
        questions = prompts(corpus, args.calls, args.seed)
        results = corpus.texts(args.episodes, 2 * args.calls)
        log(f"core: {args.calls} calls")
        core = bench_core(AgentMemory(store), questions, results[: args.calls])
        log(f"langgraph hooks: {args.calls} calls")
        langgraph = bench_langgraph(AgentMemory(store), questions, results[args.calls :])
        hooks = {}
        for name in FRAMEWORKS:
            log(f"{name} hooks: {args.calls} calls")
            hooks[name] = bench_framework(
                name, AgentMemory(store), questions, results[args.calls :]
            )
        total = store.status().total_episodes
        store.close()
        log("floor: fsync and record without audit")
        floor = bench_floor(folder, results[: args.calls])
    p50 = core["per_call"]["median_ms"]
    emit(
        {
            "bench": "adapter_overhead",
            "episodes_at_start": args.episodes,
            "episodes_at_end": total,
            "calls": args.calls,
            "goal_per_call_p50_ms": GOAL_MS,
            "per_call_p50_ms": p50,
            "meets_goal": p50 <= GOAL_MS,
            "core": core,
            "recall_plus_shaping_p50_ms": core["recall"]["median_ms"],
            "langgraph_hooks": langgraph,
            **{f"{name}_hooks": summary for name, summary in hooks.items()},
            "durability_floor": floor,
            "machine": machine_facts(),
        },
        args.out,
    )


if __name__ == "__main__":
    main()
