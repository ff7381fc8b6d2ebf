#!/usr/bin/env python3
"""MCP server: start-up to the first ``tools/list`` reply, and recall through MCP vs the library.

Jobs:

  python_import     <python> -c "import sqlite3, json, hashlib" (spawn to exit): the baseline
  serve_first_list  spawn ``<python> -m anneal_memory --db DB serve``, send one ``tools/list``
                    line, time until its reply line arrives (the store is not opened for it)
  recall_library    ``Store.recall(keyword=w, limit=20)`` in this process
  recall_handle     the same recall as a ``tools/call`` line through ``McpServer.handle`` in
                    this process (decode + validate + recall + render + encode)
  recall_stdio      the same ``tools/call`` sent to a running ``serve`` process over its pipes,
                    timed from write to reply line (what a client sees)

The store is bulk-filled with --episodes (default 100,000) seeded corpus rows through
``import_json``. Query words come from the corpus's common, mid and rare bands. Rounds rotate
the job order; cells are medians.

Usage:
  .venv/bin/python bench/bench_mcp.py [--reps 20] [--episodes 100000] [--out f.json]
Prints ONE JSON summary on stdout (progress on stderr).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import BANDS, Corpus, emit, log, machine_facts, ratio, summarize
from anneal_memory import Store
from anneal_memory.mcp import McpServer, ServerConfig

pc = time.perf_counter
LIST = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n'


def serve_argv(python: str, db: Path) -> list[str]:
    return [python, "-m", "anneal_memory", "--db", str(db), "serve", "--session-id", "bench"]


def time_baseline(python: str) -> float:
    s = pc()
    subprocess.run([python, "-c", "import sqlite3, json, hashlib"], check=True)
    return pc() - s


def time_first_list(python: str, db: Path) -> float:
    s = pc()
    proc = subprocess.Popen(serve_argv(python, db), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None
    assert proc.stdout is not None
    proc.stdin.write(LIST)
    proc.stdin.flush()
    line = proc.stdout.readline()
    dt = pc() - s
    proc.stdin.close()
    proc.wait(timeout=30)
    if not line.startswith(b'{"jsonrpc":"2.0","id":1,"result":{"tools":'):
        raise RuntimeError(f"unexpected first reply: {line[:200]!r}")
    return dt


def startup(python: str, reps: int, tmp: Path) -> dict:
    db = tmp / "startup.db"
    base, ours = [], []
    for i in range(reps):
        jobs = [
            lambda: base.append(time_baseline(python)),
            lambda: ours.append(time_first_list(python, db)),
        ]
        for job in jobs if i % 2 == 0 else jobs[::-1]:
            job()
    b, o = summarize(base), summarize(ours)
    return {
        "python_import": b,
        "serve_first_list": o,
        "ratio_median": ratio(o["median_ms"], b["median_ms"]),
        "goal_ratio": 3.0,
        "store_opened": (tmp / "startup.db").exists(),
    }


def fill(store: Store, corpus: Corpus, n: int) -> None:
    for start in range(0, n, 10_000):
        texts = corpus.texts(start, min(10_000, n - start))
        episodes = [
            {
                "id": f"{0x10000000 + start + i:08x}",
                "timestamp": f"2026-01-{1 + (start + i) // 86_400 % 28:02d}T"
                f"{(start + i) // 3600 % 24:02d}:{(start + i) // 60 % 60:02d}:"
                f"{(start + i) % 60:02d}.000000Z",
                "type": "observation",
                "content": t,
                "source": "agent",
                "metadata": {},
                "idempotency_key": None,
            }
            for i, t in enumerate(texts)
        ]
        store.import_json(
            {
                "format": "anneal-memory-export",
                "format_version": 1,
                "episodes": episodes,
                "tombstones": [],
            }
        )
        log(f"filled {start + len(texts):,}")


def call_line(word: str, request_id: int) -> bytes:
    message = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": "recall", "arguments": {"keyword": word, "limit": 20}},
    }
    return (json.dumps(message) + "\n").encode()


def recall(python: str, reps: int, tmp: Path, n: int, seed: int) -> dict:
    db = tmp / "recall.db"
    corpus = Corpus(seed)
    store = Store(db)
    fill(store, corpus, n)
    server = McpServer(ServerConfig(db_path=db), store=store)
    proc = subprocess.Popen(serve_argv(python, db), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None
    assert proc.stdout is not None
    words = [w for band in BANDS for w in corpus.query_words(band)]
    results: dict[str, list[float]] = {"library": [], "handle": [], "stdio": []}
    request_id = 0

    def lib(word: str) -> None:
        s = pc()
        store.recall(keyword=word, limit=20)
        results["library"].append(pc() - s)

    def handle(word: str) -> None:
        s = pc()
        reply = server.handle(call_line(word, 7))
        results["handle"].append(pc() - s)
        assert reply is not None
        assert reply["result"]["isError"] is False

    def stdio(word: str) -> None:
        nonlocal request_id
        request_id += 1
        s = pc()
        proc.stdin.write(call_line(word, request_id))
        proc.stdin.flush()
        line = proc.stdout.readline()
        results["stdio"].append(pc() - s)
        assert b'"isError":false' in line, line[:300]

    for word in words:  # warm every path once
        lib(word), handle(word), stdio(word)
    for key in results:
        results[key].clear()
    jobs = [lib, handle, stdio]
    for i in range(reps):
        for job in jobs[i % 3 :] + jobs[: i % 3]:
            for word in words:
                job(word)
    proc.stdin.close()
    proc.wait(timeout=30)
    store.close()
    summary = {key: summarize(values) for key, values in results.items()}
    return {
        "episodes": n,
        "queries": words,
        "recall_library": summary["library"],
        "recall_handle": summary["handle"],
        "recall_stdio": summary["stdio"],
        "ratio_handle_vs_library": ratio(
            summary["handle"]["median_ms"], summary["library"]["median_ms"]
        ),
        "ratio_stdio_vs_library": ratio(
            summary["stdio"]["median_ms"], summary["library"]["median_ms"]
        ),
        "goal_ratio": 1.5,
    }


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--episodes", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--out", default=None)
    ap.add_argument("--quick", action="store_true", help="3 reps on 2,000 episodes (CI)")
    args = ap.parse_args()
    if args.quick:
        args.reps, args.episodes = 3, 2_000
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        log("startup ...")
        start = startup(args.python, args.reps, tmp)
        log("recall ...")
        rec = recall(args.python, args.reps, tmp, args.episodes, args.seed)
    emit({"bench": "mcp", "machine": machine_facts(), "startup": start, "recall": rec}, args.out)


if __name__ == "__main__":
    main()
