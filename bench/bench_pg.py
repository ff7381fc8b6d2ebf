#!/usr/bin/env python3
"""The same Store on PostgreSQL and SQLite, side by side in one run, with raw floors.

Jobs (fresh SQLite files and fresh PostgreSQL schemas; every timed call interleaved across
the four engines so load from other jobs hits them alike):

  size N        for each --sizes N: a store of N seeded corpus rows (ours: ``import_json``;
                raw: one bulk insert), then
    record      --record more rows one call at a time (``Store.record``: one transaction,
                audit on); p50/p99 and episodes/s
    recall      ``recall(keyword=w, limit=10)`` for the corpus's common, mid, rare words
    forget      "does not forget": --probes episodes spread evenly from the oldest to the
                newest; each is looked up by its two rarest words (``recall(limit=10)``);
                share found in the top 10 (and top 100), per age fifth
  writers       1, 4, 16 processes recording --writer-total rows into one store at once;
                episodes/s over the wall time, 0 lost checked
  locomo        LoCoMo dev (if the file exists): every turn one episode, every question of
                categories 1-4 one recall; R@5, R@10, MRR (``locomo_recall.py``'s loaders)
                and the p50/p90 of those question recalls (about 600 episodes a store)

Raw floors (no library): ``raw_sqlite`` (WAL, synchronous=FULL, FTS5 porter by trigger, one
INSERT + commit; FTS5 ``ORDER BY rank LIMIT 10``) and ``raw_pg`` (the same row in a table with
a generated ``english`` tsvector and a GIN index, one INSERT in autocommit; ``ts_rank`` top 10
of ``plainto_tsquery``).

PostgreSQL: --pg-url, else ``$ANNEAL_TEST_PG_URL``, else a throwaway cluster started with
``.ci/pg-cluster`` (needs the postgresql packages and root) and removed at the end.
``--quick``: one size of 1,000, 100 records, writers 1/4 of 200 rows, first LoCoMo
conversation (seconds, for CI).

Usage:
  .venv/bin/python bench/bench_pg.py [--quick] [--sizes 10000,100000] [--record 2000]
      [--locomo ../shared/data/locomo-dev.json] [--pg-url URL] [--out f.json]
Prints ONE JSON summary on stdout (progress on stderr).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from _common import BANDS, Corpus, emit, log, machine_facts, ratio, rotate, summarize
from _pg_engines import Ours, RawPg, RawSqlite, fill_id, probes
from anneal_memory import Store
from backends import drop_schema, with_schema

pc = time.perf_counter
ROOT = Path(__file__).resolve().parents[1]
DEFAULT_LOCOMO = (
    next(
        (p for p in (ROOT.parent / "shared", ROOT.parents[1] / "shared") if p.is_dir()),
        ROOT.parent / "shared",
    )
    / "data"
    / "locomo-dev.json"
)
WRITER = """
import sys
sys.path.insert(0, sys.argv[4])
from _common import Corpus
from anneal_memory import Store
target, start, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
texts = Corpus().texts(start, count)
with Store(target) as store:
    print("ready", flush=True)
    sys.stdin.readline()  # every writer starts at once, after its imports and its open
    for text in texts:
        store.record(text, "observation")
"""


@contextlib.contextmanager
def pg_server(url: str | None):
    if url:
        yield url
        return
    folder = tempfile.mkdtemp(prefix="bench-pg-")
    script = str(ROOT / ".ci" / "pg-cluster")
    started = subprocess.run([script, "start", folder], capture_output=True, text=True, check=True)
    try:
        yield started.stdout.strip()
    finally:
        subprocess.run([script, "stop", folder], check=False)


class Targets:
    """Fresh stores: SQLite files in a temp dir, PostgreSQL schemas dropped at the end."""

    def __init__(self, pg_base: str, tmp: str) -> None:
        self.pg_base, self.tmp, self.schemas = pg_base, tmp, []

    def new(self, backend: str, name: str) -> str:
        if backend == "sqlite":
            return os.path.join(self.tmp, f"{name}-{uuid.uuid4().hex[:6]}.db")
        schema = f"bench_{name}_{uuid.uuid4().hex[:8]}"
        self.schemas.append(schema)
        return with_schema(self.pg_base, schema)

    def drop(self) -> None:
        for schema in self.schemas:
            drop_schema(self.pg_base, schema)


def record_writers(target: str, total: int, writers: int) -> dict:
    with Store(target):
        pass  # tables exist before the writers start
    each = total // writers
    here = os.path.dirname(os.path.abspath(__file__))
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, target, str(i * each), str(each), here],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for i in range(writers)
    ]
    for proc in procs:
        proc.stdout.readline()
    start = pc()
    for proc in procs:
        proc.stdin.write("go\n")
        proc.stdin.flush()
    codes = [p.wait() for p in procs]
    wall = pc() - start
    with Store(target) as store:
        found = store.recall(limit=1).total_matching
    return {
        "writers": writers,
        "per_s": round(each * writers / wall, 1),
        "lost": each * writers - found,
        "exit_codes": codes,
    }


def size_job(targets: Targets, folder: str, size: int, args: argparse.Namespace) -> dict:
    """Fill four engines to ``size`` rows, then record, recall and probe them interleaved."""
    corpus = Corpus()
    texts = corpus.texts(0, size)
    engines = [
        Ours("sqlite", targets.new("sqlite", f"s{size}")),
        Ours("postgresql", targets.new("postgresql", f"s{size}")),
        RawSqlite(tempfile.mkdtemp(dir=folder)),
        RawPg(targets.new("postgresql", f"raw{size}")),
    ]
    try:
        for engine in engines:
            log(f"size {size:,}: fill {engine.name}")
            engine.fill(texts)
        out: dict = {"record": {}, "recall": {}, "forget": {}}
        extra = corpus.texts(size, args.record)
        times: dict[str, list[float]] = {e.name: [] for e in engines}
        log(f"size {size:,}: record {args.record} per engine, interleaved")
        for start in range(0, len(extra), 50):
            for engine in rotate(engines, start // 50):
                times[engine.name] += [engine.record(t) for t in extra[start : start + 50]]
        for name, seconds in times.items():
            cell = summarize(seconds)
            out["record"][name] = {
                "p50_ms": cell["median_ms"],
                "p99_ms": cell["p99_ms"],
                "per_s": round(len(seconds) / sum(seconds), 1),
            }
        log(f"size {size:,}: recall by band")
        for band in (*BANDS, "question"):
            spent: dict[str, list[float]] = {e.name: [] for e in engines}
            for rep in range(args.reps):
                for i, word in enumerate(queries(corpus, band)):
                    for engine in rotate(engines, rep + i):
                        spent[engine.name].append(engine.recall(word)[0])
            out["recall"][band] = {
                name: {"p50_ms": summarize(v)["median_ms"], "p99_ms": summarize(v)["p99_ms"]}
                for name, v in spent.items()
            }
        log(f"size {size:,}: does not forget ({args.probes} probes)")
        for engine in engines[:2]:
            out["forget"][engine.name] = forget(engine, probes(texts, args.probes))
        return out
    finally:
        for engine in engines:
            engine.close()


def queries(corpus: Corpus, band: str) -> list[str]:
    """The band's five single words, or five 8-word questions mixing the bands' words."""
    if band != "question":
        return corpus.query_words(band)
    words = {b: corpus.query_words(b) for b in BANDS}
    return [
        f"what about {words['common'][i]} and {words['mid'][i]} with the "
        f"{words['rare'][i]} {words['mid'][(i + 1) % 5]}"
        for i in range(5)
    ]


def forget(engine: Ours, pairs: list[tuple[int, str, str]]) -> dict:
    """Share of probed episodes found in the top 10 / 100 by their two rarest words, and in
    the top 100 by a part of their rarest long word."""
    top10, top100, part, fifths = 0, 0, 0, [[0, 0] for _ in range(5)]
    for k, (row, keyword, inner) in enumerate(pairs):
        found = engine.recall_ids(keyword, 100)
        hit = fill_id(row) in found[:10]
        top10 += hit
        top100 += fill_id(row) in found
        part += fill_id(row) in engine.recall_ids(inner, 100)
        fifth = fifths[min(4, k * 5 // len(pairs))]
        fifth[0] += hit
        fifth[1] += 1
    n = len(pairs)
    return {
        "probes": n,
        "found_top10": round(top10 / n, 4),
        "found_top100": round(top100 / n, 4),
        "found_by_part_top100": round(part / n, 4),
        "top10_by_age_fifth_oldest_first": [round(h / max(t, 1), 4) for h, t in fifths],
    }


def locomo(targets: Targets, backend: str, path: Path, conversations: int | None) -> dict:
    import json

    import locomo_recall as lm

    samples = json.loads(path.read_text(encoding="utf-8"))[:conversations]
    rows, stats = (
        [],
        {"evidence_unparseable": 0, "evidence_missing_turn": 0, "questions_without_evidence": 0},
    )
    spent: list[float] = []
    for sample in samples:
        turns = lm.load_turns(sample)
        valid = {t["dia_id"] for t in turns}
        with Store(targets.new(backend, "locomo"), project_name="LoCoMo") as store:
            ids = {}
            for t in turns:
                ids[
                    store.record(
                        t["text"], "observation", source="locomo", timestamp=t["timestamp"]
                    ).id
                ] = t["dia_id"]
            for qa in sample["qa"]:
                if qa.get("category") not in lm.CATEGORIES:
                    continue
                gold = lm.clean_evidence(qa.get("evidence", []), valid, stats)
                if not gold:
                    continue
                s = pc()
                result = store.recall(keyword=str(qa["question"]), limit=lm.K_MAX)
                spent.append(pc() - s)
                ranked = [ids[e.id] for e in result.episodes]
                rows.append({"c": qa["category"], "m": lm.score(gold, ranked)})
    found = lm.aggregate(rows)
    cell = summarize(spent)
    return {k: found[k] for k in ("n", "recall@5", "recall@10", "mrr") if k in found} | {
        "question_p50_ms": cell["median_ms"],
        "question_p90_ms": cell["p90_ms"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--record", type=int, default=2000)
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--probes", type=int, default=500)
    parser.add_argument("--writers", default="1,4,16")
    parser.add_argument("--writer-total", type=int, default=8000)
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--pg-url", default=os.environ.get("ANNEAL_TEST_PG_URL"))
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.record, args.reps, args.probes = "1000", 100, 2, 50
        args.writers, args.writer_total = "1,4", 200
    sizes = [int(x) for x in args.sizes.split(",")]
    summary: dict = {
        "bench": "bench_pg",
        "machine": machine_facts(),
        "quick": args.quick,
        "args": {k: str(v) for k, v in vars(args).items() if k != "pg_url"},
    }
    with pg_server(args.pg_url) as base, tempfile.TemporaryDirectory() as tmp:
        targets = Targets(base, tmp)
        try:
            summary["sizes"] = {str(n): size_job(targets, tmp, n, args) for n in sizes}
            summary["writers"] = writers_job(targets, args)
            if args.locomo.exists():
                summary["locomo"] = {}
                for backend in ("sqlite", "postgresql"):
                    log(f"{backend}: LoCoMo dev")
                    summary["locomo"][backend] = locomo(
                        targets, backend, args.locomo, 1 if args.quick else None
                    )
        finally:
            targets.drop()
    summary["ratios"] = ratios(summary)
    emit(summary, args.out)
    lost = [w["lost"] for per in summary["writers"].values() for w in per.values()]
    if any(lost):
        sys.exit(1)


def writers_job(targets: Targets, args: argparse.Namespace) -> dict:
    out: dict = {}
    for backend in ("sqlite", "postgresql"):
        out[backend] = {}
        for count in (int(x) for x in args.writers.split(",")):
            log(f"{backend}: {args.writer_total} records from {count} writers")
            out[backend][str(count)] = record_writers(
                targets.new(backend, f"w{count}"), args.writer_total, count
            )
    return out


def ratios(summary: dict) -> dict:
    out: dict = {}
    for size, cell in summary["sizes"].items():
        rec = cell["record"]
        out[f"record_p50@{size}"] = {
            "sqlite/raw_sqlite": ratio(rec["sqlite"]["p50_ms"], rec["raw_sqlite"]["p50_ms"]),
            "postgresql/raw_pg": ratio(rec["postgresql"]["p50_ms"], rec["raw_pg"]["p50_ms"]),
            "postgresql/sqlite": ratio(rec["postgresql"]["p50_ms"], rec["sqlite"]["p50_ms"]),
        }
        for band in (*BANDS, "question"):
            q = cell["recall"][band]
            out[f"recall_p50@{size}:{band}"] = {
                "sqlite/raw_sqlite": ratio(q["sqlite"]["p50_ms"], q["raw_sqlite"]["p50_ms"]),
                "postgresql/raw_pg": ratio(q["postgresql"]["p50_ms"], q["raw_pg"]["p50_ms"]),
                "postgresql/sqlite": ratio(q["postgresql"]["p50_ms"], q["sqlite"]["p50_ms"]),
            }
    for backend, per in summary["writers"].items():
        one = per.get("1", {}).get("per_s")
        out[f"writers_scaling:{backend}"] = {n: ratio(w["per_s"], one) for n, w in per.items()}
    return out


if __name__ == "__main__":
    main()
