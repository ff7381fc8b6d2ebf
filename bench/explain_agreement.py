#!/usr/bin/env python3
"""Does ``explain recall`` show recall's own order? Every LoCoMo dev question, both backends.

Data: LoCoMo (Maharana et al., ACL 2024, CC BY-NC 4.0), never copied into this repository.

Method: per backend (SQLite file; PostgreSQL schema when a URL is given or
``$ANNEAL_TEST_PG_URL`` is set) and per conversation, a fresh store holds every dialogue turn
as one episode (``locomo_recall.load_turns``: ``[session date] Speaker: text`` at the
session's time). Every question of every category is then asked twice, interleaved:
``Store.recall(question, limit=L)`` and ``explain_recall(store, question, limit=L)``, for
L = 10 and 20. A question agrees when both list the same episode ids in the same order and
the same ``total_matching``. Disagreements are listed (the first 10). The time of both calls
is reported side by side (median ms): the explanation's cost over the recall it explains.

Usage:
  .venv/bin/python bench/explain_agreement.py [../shared/data/locomo-dev.json]
      [--pg-url URL] [--quick] [--out f.json]
``--quick``: one conversation, 25 questions (CI). Prints ONE JSON summary on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from _common import emit, log, machine_facts
from anneal_memory import Store
from anneal_memory.explain import explain_recall
from locomo_recall import load_turns

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_LOCOMO = ROOT.parent / "shared" / "data" / "locomo-dev.json"
LIMITS = (10, 20)


def _fill(store: Store, sample: dict[str, Any]) -> None:
    for turn in load_turns(sample):
        store.record(turn["text"], "observation", source="locomo", timestamp=turn["timestamp"])


def _ask(store: Store, question: str, limit: int, times: dict[str, list[float]]) -> bool:
    start = time.perf_counter()
    recalled = store.recall(question, limit=limit)
    middle = time.perf_counter()
    explained = explain_recall(store, question, limit=limit)
    end = time.perf_counter()
    times["recall"].append(middle - start)
    times["explain"].append(end - middle)
    same_order = [e.id for e in recalled.episodes] == [h.id for h in explained.results]
    return same_order and recalled.total_matching == explained.total_matching


def run_backend(target: Any, samples: list[dict[str, Any]], max_questions: int) -> dict[str, Any]:
    agreed = dict.fromkeys(LIMITS, 0)
    asked = 0
    misses: list[dict[str, Any]] = []
    times: dict[str, list[float]] = {"recall": [], "explain": []}
    for sample in samples:
        with Store(target(sample["sample_id"]), project_name="LoCoMo") as store:
            _fill(store, sample)
            questions = [qa["question"] for qa in sample["qa"] if qa.get("question")]
            for question in questions[: max_questions or None]:
                asked += 1
                for limit in LIMITS:
                    if _ask(store, question, limit, times):
                        agreed[limit] += 1
                    elif len(misses) < 10:
                        misses.append({"conversation": sample["sample_id"], "limit": limit,
                                       "question": question})  # fmt: skip
        log(f"{sample['sample_id']}: {asked} questions so far")
    return {
        "questions": asked,
        "agree": {str(limit): agreed[limit] for limit in LIMITS},
        "agreement": {str(limit): round(agreed[limit] / max(asked, 1), 4) for limit in LIMITS},
        "disagreements": misses,
        "median_ms": {k: round(statistics.median(v) * 1000, 2) for k, v in times.items() if v},
    }


def _pg_targets(base: str, schemas: list[str]) -> Any:
    from backends import with_schema

    def target(name: str) -> str:
        schema = f"bench_explain_{uuid.uuid4().hex[:8]}"
        schemas.append(schema)
        return with_schema(base, schema)

    return target


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", nargs="?", default=str(DEFAULT_LOCOMO), help="locomo-dev.json")
    ap.add_argument("--pg-url", default=os.environ.get("ANNEAL_TEST_PG_URL"))
    ap.add_argument("--quick", action="store_true", help="one conversation, 25 questions")
    ap.add_argument("--out", help="also write the summary to this file")
    args = ap.parse_args()
    if not Path(args.data).is_file():
        log(f"{args.data} not found: nothing measured")
        emit({"bench": "explain_agreement", "skipped": "no LoCoMo file"}, args.out)
        return
    samples = json.loads(Path(args.data).read_text(encoding="utf-8"))
    max_questions = 25 if args.quick else 0
    if args.quick:
        samples = samples[:1]
    summary: dict[str, Any] = {
        "bench": "explain_agreement",
        "machine": machine_facts(),
        "conversations": [s["sample_id"] for s in samples],
    }
    with tempfile.TemporaryDirectory() as tmp:
        summary["sqlite"] = run_backend(
            lambda name: os.path.join(tmp, f"{name}.db"), samples, max_questions
        )
    if args.pg_url:
        from backends import drop_schema

        schemas: list[str] = []
        try:
            summary["postgresql"] = run_backend(
                _pg_targets(args.pg_url, schemas), samples, max_questions
            )
        finally:
            for schema in schemas:
                drop_schema(args.pg_url, schema)
    else:
        summary["postgresql"] = "skipped: no --pg-url and no $ANNEAL_TEST_PG_URL"
    emit(summary, args.out)
    for backend in ("sqlite", "postgresql"):
        found = summary[backend]
        if isinstance(found, dict) and found["questions"] and found["disagreements"]:
            sys.exit(f"{backend}: explain recall disagrees with recall (see the summary)")


if __name__ == "__main__":
    main()
