#!/usr/bin/env python3
"""An async agent's event loop while another process holds the store's write lock.

A LangGraph ``create_agent`` agent with ``AnnealMiddleware`` (LangChain's fake chat model:
one tool call, then the answer) runs with ``ainvoke`` while a second process holds the
SQLite write lock for ``--lock-seconds``. A ticker task on the same loop wakes every 10 ms;
its longest gap is how long the loop froze. Reported: that gap, the run's wall time, and the
episodes in the store once the lock is gone (after waiting for queued records, when the
installed anneal-memory has a writer thread). Works against older anneal-memory trees too
(put their ``packages/*/src`` first on ``PYTHONPATH``) to measure before/after.

Usage:
  .venv/bin/python bench/bench_loop_stall.py [--lock-seconds 60] [--quick] [--out f.json]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import emit, log

HOLD = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
conn.execute("ROLLBACK")
"""


def agent(path: str) -> tuple[Any, Any]:
    from anneal_langgraph import AnnealMiddleware
    from langchain.agents import create_agent
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    class Model(GenericFakeChatModel):
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    def lookup(topic: str) -> str:
        """Look up a fact."""
        return "The staging database listens on port 6543."

    call = {"name": "lookup", "args": {"topic": "staging"}, "id": "call-1"}
    model = Model(messages=iter([AIMessage("", tool_calls=[call]), "Port 6543."]))
    middleware = AnnealMiddleware(path)
    return create_agent(model, tools=[lookup], middleware=[middleware]), middleware


async def run_with_ticker(graph: Any) -> tuple[float, float]:
    gaps = [0.0]
    done = asyncio.Event()

    async def ticker() -> None:
        last = time.monotonic()
        while not done.is_set():
            await asyncio.sleep(0.01)
            now = time.monotonic()
            gaps.append(now - last)
            last = now

    task = asyncio.ensure_future(ticker())
    start = time.monotonic()
    await graph.ainvoke({"messages": [{"role": "user", "content": "Which port?"}]})
    wall = time.monotonic() - start
    done.set()
    await task
    return max(gaps), wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lock-seconds", type=float, default=60.0)
    parser.add_argument("--quick", action="store_true", help="a 6 s lock (CI)")
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.quick:
        args.lock_seconds = 6.0
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "memory.db")
    graph, middleware = agent(path)
    memory = middleware.memory
    memory.record("warm-up: the store exists before the lock")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, path, str(args.lock_seconds)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == "locked"
    log(f"another process holds the write lock for {args.lock_seconds} s; running the agent")
    longest, wall = asyncio.run(run_with_ticker(graph))
    held_through_run = holder.poll() is None
    holder.communicate(timeout=args.lock_seconds + 60)
    offloop = getattr(memory, "offloop", None)
    if offloop is not None:
        offloop.drain(120)
    episodes = len(memory.store.recall(limit=100).episodes) - 1  # minus the warm-up
    emit(
        {
            "bench": "loop_stall",
            "lock_seconds": args.lock_seconds,
            "longest_loop_stall_s": round(longest, 3),
            "run_wall_s": round(wall, 3),
            "run_ended_while_locked": held_through_run,
            "episodes_written_after_the_lock": episodes,
            "failures_counted": memory.failures.total,
        },
        args.out,
    )
    memory.close()


if __name__ == "__main__":
    main()
