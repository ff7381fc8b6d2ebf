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
message conversion and request overrides are counted too.

The store is pre-filled with ``--episodes`` seeded Zipf rows (bench/_common.Corpus); prompts
are 12-word user questions built from mid-band words, so most recalls find something.

Usage:
  .venv/bin/python bench/bench_adapter_overhead.py [--episodes 10000] [--calls 500]
      [--quick] [--out f.json]
Prints ONE JSON summary on stdout (progress on stderr). Seeded (--seed 42).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import Corpus, emit, log, machine_facts, summarize
from anneal_memory import AgentMemory, Store

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
            state={"messages": [], "anneal_startup": ""},
        )
        call = {"name": "search", "args": {"q": question}, "id": f"c{i}", "type": "tool_call"}
        tool_request = ToolCallRequest(tool_call=call, tool=None, state={}, runtime=None)
        message = ToolMessage(content=f"{i}: {result}", tool_call_id=f"c{i}")
        s = pc()
        middleware.wrap_model_call(request, lambda r: reply)
        middleware.wrap_tool_call(tool_request, lambda r, m=message: m)
        per_call.append(pc() - s)
    return {"per_call": summarize(per_call)}


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
            "durability_floor": floor,
            "machine": machine_facts(),
        },
        args.out,
    )


if __name__ == "__main__":
    main()
