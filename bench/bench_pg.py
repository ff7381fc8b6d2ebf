#!/usr/bin/env python3
"""The same Store on PostgreSQL and SQLite, side by side in one run.

Jobs (each on a fresh SQLite file and a fresh PostgreSQL schema):

  record_1w     one process records --episodes seeded corpus rows (``Store.record``, one
                transaction each, audit on); per-call p50/p99 and episodes/s
  record_4w     four processes record --episodes/4 rows each into one store at once;
                episodes/s over the wall time (0 lost is checked)
  recall        on the record_1w store: ``recall(keyword=w, limit=10)`` for the corpus's
                common, mid and rare words; p50/p99 per band
  locomo        LoCoMo dev (if the file exists): every turn one episode, every question of
                categories 1-4 one recall; R@5, R@10, MRR on both backends (the method of
                ``locomo_recall.py``, whose loaders and scorer it uses)

PostgreSQL: --pg-url, else ``$ANNEAL_TEST_PG_URL``, else a throwaway cluster started with
``.ci/pg-cluster`` (needs the postgresql packages and root) and removed at the end.
``--quick``: 1,000 episodes and the first LoCoMo conversation (seconds, for CI).

Usage:
  .venv/bin/python bench/bench_pg.py [--quick] [--episodes 10000]
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
from _common import BANDS, Corpus, emit, log, machine_facts, ratio, summarize
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
with Store(target) as store:
    for text in Corpus().texts(start, count):
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


def record_one_writer(target: str, texts: list[str]) -> dict:
    times = []
    with Store(target) as store:
        start = pc()
        for text in texts:
            s = pc()
            store.record(text, "observation")
            times.append(pc() - s)
        wall = pc() - start
    cell = summarize(times)
    return {
        "p50_ms": cell["median_ms"],
        "p99_ms": cell["p99_ms"],
        "per_s": round(len(texts) / wall, 1),
    }


def record_writers(target: str, total: int, writers: int) -> dict:
    with Store(target):
        pass  # tables exist before the writers start
    each = total // writers
    here = os.path.dirname(os.path.abspath(__file__))
    start = pc()
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, target, str(i * each), str(each), here])
        for i in range(writers)
    ]
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


def recall_bands(target: str, reps: int) -> dict:
    corpus = Corpus()
    out = {}
    with Store(target) as store:
        for band in BANDS:
            times, hits = [], []
            for _ in range(reps):
                for word in corpus.query_words(band):
                    s = pc()
                    result = store.recall(keyword=word, limit=10)
                    times.append(pc() - s)
                    hits.append(result.total_matching)
            cell = summarize(times)
            out[band] = {
                "p50_ms": cell["median_ms"],
                "p99_ms": cell["p99_ms"],
                "mean_matching": round(sum(hits) / len(hits), 1),
            }
    return out


def locomo(targets: Targets, backend: str, path: Path, conversations: int | None) -> dict:
    import json

    import locomo_recall as lm

    samples = json.loads(path.read_text(encoding="utf-8"))[:conversations]
    rows, stats = (
        [],
        {"evidence_unparseable": 0, "evidence_missing_turn": 0, "questions_without_evidence": 0},
    )
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
                ranked = [
                    ids[e.id]
                    for e in store.recall(keyword=str(qa["question"]), limit=lm.K_MAX).episodes
                ]
                rows.append({"c": qa["category"], "m": lm.score(gold, ranked)})
    found = lm.aggregate(rows)
    return {k: found[k] for k in ("n", "recall@5", "recall@10", "mrr") if k in found}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--episodes", type=int)
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--pg-url", default=os.environ.get("ANNEAL_TEST_PG_URL"))
    parser.add_argument("--out")
    args = parser.parse_args()
    n = args.episodes or (1000 if args.quick else 10_000)
    texts = Corpus().texts(0, n)
    summary: dict = {
        "bench": "bench_pg",
        "machine": machine_facts(),
        "episodes": n,
        "quick": args.quick,
    }
    with pg_server(args.pg_url) as base, tempfile.TemporaryDirectory() as tmp:
        targets = Targets(base, tmp)
        try:
            for backend in ("sqlite", "postgresql"):
                log(f"{backend}: record {n} from one writer")
                one = targets.new(backend, "one")
                result = {"record_1w": record_one_writer(one, texts)}
                log(f"{backend}: recall by band")
                result["recall"] = recall_bands(one, 3 if args.quick else 10)
                log(f"{backend}: record {n} from four writers")
                result["record_4w"] = record_writers(targets.new(backend, "four"), n, 4)
                if args.locomo.exists():
                    log(f"{backend}: LoCoMo dev")
                    try:
                        result["locomo"] = locomo(
                            targets, backend, args.locomo, 1 if args.quick else None
                        )
                    except (ImportError, AttributeError, KeyError) as exc:  # its helpers moved
                        result["locomo"] = {"skipped": f"locomo_recall.py helpers: {exc!r}"}
                summary[backend] = result
        finally:
            targets.drop()
    sq, pg = summary["sqlite"], summary["postgresql"]
    summary["pg_over_sqlite"] = {
        "record_1w_per_s": ratio(pg["record_1w"]["per_s"], sq["record_1w"]["per_s"]),
        "record_4w_per_s": ratio(pg["record_4w"]["per_s"], sq["record_4w"]["per_s"]),
        **{
            f"recall_{b}_p50": ratio(pg["recall"][b]["p50_ms"], sq["recall"][b]["p50_ms"])
            for b in BANDS
        },
    }
    emit(summary, args.out)
    if sq["record_4w"]["lost"] or pg["record_4w"]["lost"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
