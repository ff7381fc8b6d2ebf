#!/usr/bin/env python3
"""Exposures (issue 28): what recording one costs, and what they take on disk.

Measures, on a SQLite store pre-filled with ``--episodes`` seeded rows:
  exposure   ``worth.record_exposure`` of a 4-item block (what ``context_for``, a recall
             over MCP or the CLI adds to the call: one non-durable insert, no audit entry;
             every 512th also prunes), next to
  raw_floor  the same row inserted with bare ``sqlite3`` (autocommit, WAL, synchronous=NORMAL):
             the least such a write can cost on this machine;
  storage    database bytes per exposure (after a WAL checkpoint; pages actually used);
  retention  ``--total`` exposures recorded with the retention on (the newest ``--keep``
             kept, the rest folded into per-item totals): rows left, database size, and the
             time per exposure including the prunes;
  worth_of   then one item's counts (what ``explain episode`` / ``explain pattern`` and the
             inspector add): 20 episodes, and the crystal every exposure shows, next to
             ``raw_like_scan``: bare ``sqlite3`` counting the exposures whose items hold one
             episode (the scan that lookup rests on).
The public 1.0.2 has no exposure path to compare with (its outcomes file records only what an
outcome names).

Usage:
  .venv/bin/python bench/bench_exposures.py [--episodes 10000] [--calls 2000]
      [--total 1000000] [--keep 100000] [--quick] [--out f.json]
Prints ONE JSON summary on stdout (progress on stderr). Seeded (--seed 42).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import Corpus, emit, log, machine_facts, summarize
from anneal_memory import Store
from anneal_memory.worth import _exposures, record_exposure, worth_of, worth_report


def _used_bytes(path: Path) -> int:
    con = sqlite3.connect(path)
    try:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = con.execute("PRAGMA page_count").fetchone()[0]
        free = con.execute("PRAGMA freelist_count").fetchone()[0]
        size = con.execute("PRAGMA page_size").fetchone()[0]
        return int((pages - free) * size)
    finally:
        con.close()


def _items(rng: random.Random, ids: list[str]) -> list[str]:
    return [f"e:{i}" for i in rng.sample(ids, 3)] + ["c:pool_sizing"]


def _raw_floor(folder: Path, calls: int, rng: random.Random, ids: list[str]) -> dict:
    con = sqlite3.connect(folder / "raw.db", isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=NORMAL")
    con.execute(
        "CREATE TABLE exposures (id TEXT PRIMARY KEY, at TEXT, via TEXT, scope TEXT,"
        " session_id TEXT, items TEXT) WITHOUT ROWID"
    )
    took = []
    for n in range(calls):
        row = (f"x{n:012x}", f"2026-12-02T10:00:{n % 60:02d}.000000Z", "bench", "", None,
               json.dumps(_items(rng, ids)))  # fmt: skip
        t = time.perf_counter()
        con.execute("INSERT INTO exposures VALUES (?, ?, ?, ?, ?, ?)", row)
        took.append(time.perf_counter() - t)
    con.close()
    return summarize(took)


def _raw_scan(path: Path, ids: list[str]) -> dict:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    took = []
    for ident in ids:
        t = time.perf_counter()
        con.execute(
            "SELECT count(*) FROM exposures WHERE items LIKE ?", (f'%"e:{ident}"%',)
        ).fetchone()
        took.append(time.perf_counter() - t)
    con.close()
    return summarize(took)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=2_000)
    parser.add_argument("--total", type=int, default=1_000_000)
    parser.add_argument("--keep", type=int, default=_exposures.MAX_EXPOSURES)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--quick", action="store_true", help="small sizes, for CI")
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.quick:
        args.episodes, args.calls, args.total, args.keep = 1_000, 300, 3_000, 1_000
    rng = random.Random(args.seed)
    folder = Path(tempfile.mkdtemp(prefix="anneal-bench-exposures-"))
    with Store(folder / "memory.db") as store:
        log(f"filling {args.episodes} episodes")
        ids = [store.record(t, "observation").id for t in Corpus(args.seed).texts(0, args.episodes)]
        before = _used_bytes(folder / "memory.db")
        took = []
        for _ in range(args.calls):
            items = _items(rng, ids)
            t = time.perf_counter()
            record_exposure(store, "bench", items)
            took.append(time.perf_counter() - t)
        per_exposure = (_used_bytes(folder / "memory.db") - before) / args.calls
        log(f"retention: {args.total} exposures, newest {args.keep} kept")
        _exposures.MAX_EXPOSURES = args.keep
        t0 = time.perf_counter()
        for _ in range(args.total - args.calls):
            record_exposure(store, "bench", _items(rng, ids))
        elapsed = time.perf_counter() - t0
        with store.reading("bench") as reader:
            rows = reader.conn.execute("SELECT count(*) FROM exposures").fetchone()[0]
            totals = reader.conn.execute("SELECT count(*) FROM worth_totals").fetchone()[0]
        t = time.perf_counter()
        report = worth_report(store)
        report_s = time.perf_counter() - t
        surfaced = sum(r.counts["surfaced"] for r in report)
        db_bytes = _used_bytes(folder / "memory.db")
        lookups = []
        for ident in ids[:20]:
            t = time.perf_counter()
            worth_of(store, "episode", ident)
            lookups.append(time.perf_counter() - t)
        t = time.perf_counter()
        every = worth_of(store, "crystal", "POOL_SIZING")
        every_s = time.perf_counter() - t
    summary = {
        "episodes": args.episodes,
        "exposure": summarize(took),
        "raw_floor": _raw_floor(folder, args.calls, rng, ids),
        "storage": {"bytes_per_exposure": round(per_exposure, 1), "items_per_exposure": 4},
        "retention": {
            "recorded": args.total,
            "keep": args.keep,
            "rows_left": rows,
            "item_totals": totals,
            "surfaced_counted": surfaced,
            "database_bytes": db_bytes,
            "seconds_per_exposure_with_prunes": round(elapsed / max(1, args.total - args.calls), 7),
            "worth_report_seconds": round(report_s, 3),
        },
        "worth_of": {
            "episode": summarize(lookups),
            "crystal_on_every_exposure_seconds": round(every_s, 4),
            "raw_like_scan": _raw_scan(folder / "memory.db", ids[:20]),
        },
        "machine": machine_facts(),
    }
    assert surfaced == args.total * 4, "every exposure's items are counted, pruned or not"
    assert every.counts["surfaced"] == args.total, "one item's counts agree with the report"
    emit(summary, args.out)


if __name__ == "__main__":
    main()
