#!/usr/bin/env python3
"""LangGraph store slot: ``AnnealStore`` put / get / search p50 against LangGraph's own stores.

Each store is filled with ``--items`` items (seeded Zipf text, bench/_common.Corpus) in one
namespace per user (``("users", "u<n>")``, 20 users), then timed:
  put     a new value for an existing key (AnnealStore: a new episode superseding the old)
  get     the current value of a random key
  search  ``search(("users", "u<n>"), query=<3 mid-band words>, limit=10)``; LangGraph's
          stores without an index configured match no query text (they filter and page), so
          their figure is the cost of a prefix scan, not of a ranked search.
Stores: AnnealStore on SQLite (the file store with its durability: WAL + fsync, audit trail
on), LangGraph's ``InMemoryStore``, and ``SqliteStore`` when ``langgraph-checkpoint-sqlite``
is installed (``--with langgraph-checkpoint-sqlite``).

Usage:
  .venv/bin/python bench/bench_langgraph_store.py [--items 10000] [--ops 200] [--quick]
      [--out f.json]
Prints ONE JSON summary on stdout (progress on stderr). Seeded (--seed 42).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import Corpus, emit, log, machine_facts, summarize

USERS = 20


def fill(store: Any, corpus: Corpus, items: int) -> None:
    texts = corpus.texts(0, items)
    for i, text in enumerate(texts):
        store.put(("users", f"u{i % USERS}"), f"k{i}", {"text": text, "n": i})


def timed(op: Callable[[int], object], ops: int) -> dict:
    seconds = []
    for i in range(ops):
        start = time.perf_counter()
        op(i)
        seconds.append(time.perf_counter() - start)
    return summarize(seconds)


def measure(store: Any, corpus: Corpus, items: int, ops: int, seed: int) -> dict:
    rng = random.Random(seed)
    keys = [rng.randrange(items) for _ in range(ops)]
    queries = [" ".join(corpus.query_words("mid", k=3)) for _ in range(ops)]
    fresh = corpus.texts(items, ops)
    return {
        "put": timed(
            lambda i: store.put(
                ("users", f"u{keys[i] % USERS}"), f"k{keys[i]}", {"text": fresh[i], "n": i}
            ),
            ops,
        ),
        "get": timed(lambda i: store.get(("users", f"u{keys[i] % USERS}"), f"k{keys[i]}"), ops),
        "search": timed(
            lambda i: store.search(("users", f"u{i % USERS}"), query=queries[i], limit=10), ops
        ),
    }


def stores(folder: str) -> list[tuple[str, Callable[[], Any]]]:
    from anneal_langgraph import AnnealStore
    from langgraph.store.memory import InMemoryStore

    found: list[tuple[str, Callable[[], Any]]] = [
        ("anneal_sqlite", lambda: AnnealStore(os.path.join(folder, "anneal.db"))),
        ("langgraph_in_memory", InMemoryStore),
    ]
    try:
        from langgraph.store.sqlite import SqliteStore
    except ImportError:
        log("langgraph-checkpoint-sqlite is not installed: no SqliteStore figures")
    else:
        import sqlite3

        def sqlite_store() -> Any:
            conn = sqlite3.connect(
                os.path.join(folder, "lg.db"), check_same_thread=False, isolation_level=None
            )
            store = SqliteStore(conn)
            store.setup()
            return store

        found.append(("langgraph_sqlite", sqlite_store))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--ops", type=int, default=200)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--quick", action="store_true", help="500 items, 30 ops (CI)")
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.quick:
        args.items, args.ops = 500, 30
    corpus = Corpus(seed=args.seed)
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        for name, make in stores(folder):
            log(f"{name}: filling {args.items} items")
            store = make()
            start = time.perf_counter()
            fill(store, corpus, args.items)
            fill_s = time.perf_counter() - start
            results[name] = {
                "fill_s": round(fill_s, 2),
                **measure(store, corpus, args.items, args.ops, args.seed),
            }
            close = getattr(store, "close", None)
            if callable(close):
                close()
    p50 = {
        name: {op: r[op]["median_ms"] for op in ("put", "get", "search")}
        for name, r in results.items()
    }
    emit(
        {
            "bench": "langgraph_store",
            "items": args.items,
            "ops": args.ops,
            "p50_ms": p50,
            "stores": results,
            "machine": machine_facts(),
        },
        args.out,
    )


if __name__ == "__main__":
    main()
