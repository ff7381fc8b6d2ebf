#!/usr/bin/env python3
"""Wrap benchmark: prepare + save of one wrap vs a raw floor, and prepare cost vs history size.

Phase ``wrap`` (interleaved call by call, rotating order):
  ours   ``prepare_wrap`` + ``validated_save_continuity`` of a wrap of 50 fresh episodes whose
         continuity has 10 grounded citations on 5 pattern lines (two wraps of history, so
         the lines climb). ``ours`` runs with the audit trail off (the floor has none);
         ``ours+audit`` with it on.
  raw    the same I/O done by hand on the same schema: BEGIN IMMEDIATE, select the unwrapped
         episodes, check the 10 citations of the same continuity text (cited id among the
         selected episodes + two meaningful words shared between the line's explanation and
         the episode), atomic write of the continuity (tmp + fsync + rename + dir fsync),
         insert one wrap row (its seq range marks the episodes as wrapped), COMMIT.
  The 50 episodes of each round are recorded before the timer starts. Writing the
  continuity text stands in for the model's compression and is left out of both timings.
  By design ours commits twice (prepare: the open-wrap marker with its frozen snapshot range;
  save: completion), so it pays one more durable commit than the floor.

  baseline  with ``--baseline-src NAME=DIR`` (repeatable): ``NAME`` and ``NAME+audit`` run
         the same round on our ``Store`` from another source tree (``git archive <commit>
         packages/anneal-core/src | tar -x -C /tmp/before``), each in a worker process that
         times itself, interleaved with the others; compare two workers (``before=...`` and
         ``after=packages/anneal-core/src``) with each other.

Phase ``history``: ``prepare_wrap`` (then ``wrap_cancel``, untimed) with 50 unwrapped episodes
on an empty store vs on a store holding 100,000 older, already wrapped episodes
(``--history 0`` leaves the phase out).

Usage: .venv/bin/python bench/bench_wrap.py [--rounds 30] [--history 100000] [--quick]
       [--baseline-src [NAME=]DIR ...] [--out f.json]
Prints ONE JSON summary on stdout (progress on stderr).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Corpus, emit, log, machine_facts, ratio, rotate, summarize
from anneal_memory import Store, prepare_wrap, validated_save_continuity, wrap_cancel
from anneal_memory._fsio import atomic_write_text
from anneal_memory.immune._grounding import grounding_words
from anneal_memory.store.sqlite._connection import connect

EPISODES = 50
CITED = 10


def _fill(store: Store, corpus: Corpus, start: int) -> None:
    for text in corpus.texts(start, EPISODES):
        store.record(text, "observation")


def _continuity(episodes: list, today: str, level: int) -> str:
    lines = []
    for k in range(CITED // 2):
        a, b = episodes[2 * k], episodes[2 * k + 1]
        words = " ".join(sorted(grounding_words(a.content))[:4])
        lines.append(
            f'- bench_pattern_{k} | {level}x ({today}) [evidence: {a.id}, {b.id} "{words}"]'
            " [no-contradicts]"
        )
    body = "\n".join(lines)
    return (
        "# Bench \u2014 Memory (v1)\n\n## State\n- benchmarking\n\n## Patterns\n"
        f"{body}\n\n## Decisions\n- none\n\n## Context\n" + "- context line\n" * 40
    )


def _ours_round(store: Store) -> float:
    t0 = time.perf_counter()
    prep = prepare_wrap(store)
    assert prep.package is not None
    level = _ours_round.levels.get(id(store), 0) + 1  # type: ignore[attr-defined]
    m0 = time.perf_counter()
    text = _continuity(list(prep.package.episodes), prep.package.today, level)
    model = time.perf_counter() - m0
    result = validated_save_continuity(store, text, wrap_token=prep.wrap_token)
    elapsed = time.perf_counter() - t0 - model
    assert result.episodes_compressed == EPISODES
    _ours_round.levels[id(store)] = level  # type: ignore[attr-defined]
    return elapsed


_ours_round.levels = {}  # type: ignore[attr-defined]


_CITATION = re.compile(r'\[evidence: (?P<ids>[^"\]]*) "(?P<why>[^"]*)"\]')


class _Row:
    __slots__ = ("content", "id")

    def __init__(self, ident: str, content: str) -> None:
        self.id, self.content = ident, content


class RawFloor:
    """The same schema as ours, driven by hand with the minimum the wrap must do."""

    def __init__(self, folder: Path) -> None:
        self.store = Store(folder / "raw.db", audit=False)  # creates the schema
        self.path = folder / "raw.continuity.md"
        self.conn = connect(folder / "raw.db")

    def round(self) -> float:
        t0 = time.perf_counter()
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        rows = conn.execute(
            "SELECT id, content FROM episodes WHERE seq > (SELECT coalesce(max(through_seq), 0)"
            " FROM wraps WHERE status = 'completed') ORDER BY seq"
        ).fetchall()
        snapshot = dict(rows)
        m0 = time.perf_counter()
        text = _continuity([_Row(i, c) for i, c in rows], "2026-01-01", 1)
        model = time.perf_counter() - m0
        resolved = grounded = 0
        for match in _CITATION.finditer(text):
            why = grounding_words(match.group("why"))
            ids = [i for i in match.group("ids").split(", ") if i in snapshot]
            resolved += len(ids)
            shared = [len(why & grounding_words(snapshot[i])) for i in ids]  # every id, as ours
            grounded += any(n >= 2 for n in shared)
        atomic_write_text(self.path, text)
        conn.execute(
            "INSERT INTO wraps (token, status, started_at, today, schema_name, max_chars,"
            " episode_count, through_seq) VALUES (hex(randomblob(16)), 'completed', 't', 'd',"
            " 'default', 20000, ?, (SELECT max(seq) FROM episodes))",
            (len(rows),),
        )
        conn.execute("COMMIT")
        assert resolved == CITED
        assert grounded == CITED // 2
        return time.perf_counter() - t0 - model


class Worker:
    """Our wrap round from another source tree, in a process of its own (``--worker``)."""

    def __init__(self, src: str, audit: bool, folder: Path) -> None:
        env = {**os.environ, "PYTHONPATH": src}
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--worker", "on" if audit else "off", str(folder)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )

    def round(self, index: int) -> float:
        """Record the round's episodes, then time one prepare + save (the worker times it)."""
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.proc.stdin.write(f"{index}\n")
        self.proc.stdin.flush()
        return float(json.loads(self.proc.stdout.readline()))

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def worker(mode: str, folder: str) -> None:
    """``--worker on|off DIR``: one store in DIR; per input line N, fill round N, time it."""
    store = Store(Path(folder) / "worker.db", audit=mode == "on")
    corpus = Corpus(seed=42)
    for line in sys.stdin:
        _fill(store, corpus, int(line) * EPISODES)
        print(json.dumps(_ours_round(store)), flush=True)
    store.close()


def _baselines(specs: list[str], folder: Path) -> dict[str, Worker]:
    workers: dict[str, Worker] = {}
    for spec in specs:
        name, _, src = spec.rpartition("=")
        name = name or Path(src).name
        for audit in (False, True):
            where = folder / f"{name}{'+audit' if audit else ''}"
            where.mkdir()
            workers[f"{name}+audit" if audit else name] = Worker(src, audit, where)
    return workers


def phase_wrap(rounds: int, folder: Path, corpus: Corpus, baselines: list[str]) -> dict:
    ours = Store(folder / "ours.db", audit=False)
    audited = Store(folder / "audited.db")
    raw = RawFloor(folder)
    workers = _baselines(baselines, folder)
    times: dict[str, list[float]] = {"ours": [], "ours+audit": [], "raw": []}
    times.update({name: [] for name in workers})
    runners = {
        "ours": lambda: _ours_round(ours),
        "ours+audit": lambda: _ours_round(audited),
        "raw": raw.round,
    }
    stores = {"ours": ours, "ours+audit": audited, "raw": raw.store}
    for i in range(rounds + 2):
        for name in rotate([*runners, *workers], i):
            if name in workers:
                elapsed = workers[name].round(i)
                if i >= 2:
                    times[name].append(elapsed)
                continue
            _fill(stores[name], corpus, i * EPISODES)
            elapsed = runners[name]()
            if i >= 2:  # two warm-up rounds give the patterns a history
                times[name].append(elapsed)
        if i % 10 == 0:
            log(f"wrap round {i}/{rounds + 2}")
    for s in (ours, audited, raw.store):
        s.close()
    raw.conn.close()
    for w in workers.values():
        w.close()
    out = {name: summarize(xs) for name, xs in times.items()}
    out["ratio_ours_to_raw_p50"] = ratio(out["ours"]["median_ms"], out["raw"]["median_ms"])
    out["ratio_ours_audit_to_raw_p50"] = ratio(
        out["ours+audit"]["median_ms"], out["raw"]["median_ms"]
    )
    for name in workers:
        out[f"ratio_{name}_to_raw_p50"] = ratio(out[name]["median_ms"], out["raw"]["median_ms"])
    return out


def _bulk_history(path: Path, corpus: Corpus, n: int) -> None:
    with Store(path, audit=False):
        pass
    conn = sqlite3.connect(str(path))
    conn.execute("PRAGMA journal_mode=WAL")
    ts = dt.datetime(2025, 1, 1, tzinfo=dt.timezone.utc)
    with conn:
        conn.execute(
            "INSERT INTO wraps (token, status, started_at, today, schema_name, max_chars,"
            " episode_count, through_seq, save_no) VALUES ('old', 'completed', 't', 'd',"
            " 'default', 20000, ?, ?, 1)",
            (n, n),
        )
        conn.executemany(
            "INSERT INTO episodes (seq, id, ts, type, content, source)"
            " VALUES (?, ?, ?, 'observation', ?, 'agent')",
            (
                (
                    i + 1,
                    f"{i:08x}",
                    (ts + dt.timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
                    t,
                )
                for i, t in enumerate(corpus.texts(0, n))
            ),
        )
    conn.close()


def phase_history(rounds: int, folder: Path, corpus: Corpus, history: int) -> dict:
    log(f"building a store with {history} wrapped episodes")
    _bulk_history(folder / "big.db", corpus, history)
    stores = {
        "empty": Store(folder / "small.db", audit=False),
        "100k": Store(folder / "big.db", audit=False),
    }
    for s in stores.values():
        _fill(s, corpus, 10_000_000)
    times: dict[str, list[float]] = {name: [] for name in stores}
    for i in range(rounds + 2):
        for name in rotate(list(stores), i):
            t0 = time.perf_counter()
            prep = prepare_wrap(stores[name])
            elapsed = time.perf_counter() - t0
            assert prep.episode_count == EPISODES
            wrap_cancel(stores[name])
            if i >= 2:
                times[name].append(elapsed)
    for s in stores.values():
        s.close()
    out = {name: summarize(xs) for name, xs in times.items()}
    out["ratio_100k_to_empty_p50"] = ratio(out["100k"]["median_ms"], out["empty"]["median_ms"])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--history", type=int, default=100_000)
    parser.add_argument("--out")
    parser.add_argument("--quick", action="store_true", help="3 rounds, 2,000 history (CI)")
    parser.add_argument(
        "--baseline-src", action="append", default=[], metavar="[NAME=]DIR",
        help="also run the round on the Store of this source tree, in a worker (repeatable)",
    )  # fmt: skip
    parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker)
        return
    if args.quick:
        args.rounds, args.history = 3, 2_000
    corpus = Corpus(seed=42)
    with tempfile.TemporaryDirectory(prefix="bench-wrap-") as tmp:
        folder = Path(tmp)
        summary = {
            "bench": "wrap",
            "machine": machine_facts(),
            "episodes_per_wrap": EPISODES,
            "citations": CITED,
            "wrap": phase_wrap(args.rounds, folder, corpus, args.baseline_src),
        }
        if args.history:
            summary["history"] = phase_history(args.rounds, folder, corpus, args.history)
    emit(summary, args.out)


if __name__ == "__main__":
    main()
