#!/usr/bin/env python3
"""Recall quality on LoCoMo: every dialogue turn one episode, every question one recall.

Data: LoCoMo (Maharana et al., ACL 2024, CC BY-NC 4.0). Pass the file's path; it is never
copied into this repository (see ``shared/data/locomo-dev.NOTICE.md``).

Method:
  * per conversation, a fresh store; each dialogue turn is recorded as one episode with the
    text ``[<session date/time>] <Speaker>: <text>`` (+ `` [shared a photo: <caption>]``) and
    the timestamp session date + turn index seconds;
  * each question of categories 1-4 (multi-hop, temporal, open-domain, single-hop) is passed
    verbatim as ``Store.recall(keyword=question, limit=20)``;
  * per question: recall@k = |evidence in top k| / |evidence|, MRR = 1/rank of the first
    evidence turn in the top 20 (else 0), empty = nothing returned; averaged over questions.
    Evidence ids are normalised (``D:11:26`` -> ``D11:26``, ``D30:05`` -> ``D30:5``); ids that
    do not exist are dropped; questions left without evidence are skipped (counted).

Engines: ``ours`` (the anneal_memory importable by this interpreter), ``upstream`` (the
PyPI anneal-memory 1.0.2: its ``Store.recall`` and, for reference, ``search_episodes``).
``--upstream-python PATH`` runs the upstream engine in a subprocess with that interpreter
and nests its summary under ``"upstream"``.

Haystack mode (``--haystack 0,20000,100000,1000000``): per conversation a cached store
holds its turns, then N NEWER distractor episodes (the other conversations' turns, repeated,
speaker names swapped for names absent from the file, years moved +2; see ``_haystack.py``).
Per size it reports recall@1/5/10/20, MRR and empty for ``ours`` and for ``raw`` (plain FTS5
porter on the same file, OR of the question's content words, bm25 over every match,
``ORDER BY rank``), ours' recall@10 by category and by conversation
(``ours_recall@10_by``), and the latency of both at limit 10, interleaved. Stores are built once
into ``--cache`` (1M episodes: about 2 minutes per conversation) and reused. ``--shapes``
adds worst-case query shapes (huge limit, deep offset, filters matching nothing) on the
20,000 store, as multiples of a normal question.

Usage:
  .venv/bin/python bench/locomo_recall.py ../shared/data/locomo-dev.json \
      [--upstream-python /work/venv-upstream/bin/python] [--tmpdir /dev/shm] [--out f.json]
  .venv/bin/python bench/locomo_recall.py ../shared/data/locomo-dev.json \
      --haystack 0,20000,100000 [--shapes] [--cache /tmp/anneal-locomo-cache] \
      [--upstream-python /work/venv-upstream/bin/python]   # 1.0.2 at no haystack
  .venv/bin/python bench/locomo_recall.py ../shared/data/locomo-dev.json --quick
Prints ONE JSON object on stdout. Deterministic except the latency figures.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta

KS = (1, 5, 10, 20)
K_MAX = 20
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
_EVIDENCE = re.compile(r"^D:?(\d+):0*(\d+)$")
_SESSION = re.compile(r"^session_(\d+)$")


def load_turns(sample: dict) -> list[dict]:
    """The conversation's turns in order: dia_id, episode text and timestamp."""
    conv = sample["conversation"]
    sessions = sorted((int(m.group(1)), k) for k in conv if (m := _SESSION.match(k)))
    turns = []
    for num, key in sessions:
        date_str = conv.get(f"{key}_date_time", "")
        try:
            base = datetime.strptime(date_str, "%I:%M %p on %d %B, %Y")
        except ValueError:
            base = datetime(2000, 1, 1) + timedelta(days=num)
        for i, turn in enumerate(conv[key]):
            text = f"{turn['speaker']}: {turn.get('text', '')}"
            if turn.get("blip_caption"):
                text += f" [shared a photo: {turn['blip_caption']}]"
            if date_str:
                text = f"[{date_str}] {text}"
            ts = base + timedelta(seconds=i)
            turns.append(
                {
                    "dia_id": turn["dia_id"],
                    "text": text,
                    "timestamp": ts.strftime("%Y-%m-%dT%H:%M:%SZ"),
                }
            )
    return turns


def clean_evidence(raw: list, valid: set[str], stats: dict) -> list[str]:
    out: list[str] = []
    for entry in raw or []:
        for piece in re.split(r"[;,\s]+", str(entry).strip()):
            if not piece:
                continue
            m = _EVIDENCE.match(piece)
            if not m:
                stats["evidence_unparseable"] += 1
                continue
            norm = f"D{int(m.group(1))}:{int(m.group(2))}"
            if norm not in valid:
                stats["evidence_missing_turn"] += 1
                continue
            if norm not in out:
                out.append(norm)
    return out


def score(gold: list[str], ranked: list[str]) -> dict[str, float]:
    g = set(gold)
    m = {f"recall@{k}": len(g & set(ranked[:k])) / len(g) for k in KS}
    m["mrr"] = next((1.0 / r for r, d in enumerate(ranked[:K_MAX], 1) if d in g), 0.0)
    m["empty"] = 0.0 if ranked else 1.0
    return m


def aggregate(rows: list[dict]) -> dict:
    if not rows:
        return {"n": 0}
    out: dict = {"n": len(rows)}
    for k in rows[0]["m"]:
        out[k] = round(sum(r["m"][k] for r in rows) / len(rows), 4)
    return out


# ------------------------------------------------------------------------------ engines


class Ours:
    def __init__(self, tmp: str) -> None:
        from anneal_memory import Store

        self.store = Store(os.path.join(tmp, "memory.db"), project_name="LoCoMo")
        self.ids: dict[str, str] = {}

    def index(self, turns: list[dict]) -> None:
        for t in turns:
            ep = self.store.record(
                t["text"], "observation", source="locomo", timestamp=t["timestamp"]
            )
            self.ids[ep.id] = t["dia_id"]

    def search(self, question: str) -> list[str]:
        res = self.store.recall(keyword=question, limit=K_MAX)
        return [self.ids[e.id] for e in res.episodes]

    def close(self) -> None:
        self.store.close()


class UpstreamRecall(Ours):
    def __init__(self, tmp: str) -> None:
        from anneal_memory import Store

        self.store = Store(os.path.join(tmp, "memory.db"), project_name="LoCoMo", audit=False)
        self.ids = {}


class UpstreamSearch(UpstreamRecall):
    def search(self, question: str) -> list[str]:
        from anneal_memory import search_episodes

        return [self.ids[m.episode.id] for m in search_episodes(self.store, question, limit=K_MAX)]


ENGINES = {
    "ours": {"recall": Ours},
    "upstream": {"recall": UpstreamRecall, "search_episodes": UpstreamSearch},
}


def run_engine(
    cls: type, samples: list[dict], tmpdir: str | None, pq, max_questions: int = 0
) -> dict:
    stats = {"evidence_unparseable": 0, "evidence_missing_turn": 0, "questions_without_evidence": 0}
    rows: list[dict] = []
    lat: list[float] = []
    n_turns = 0
    for sample in samples:
        turns = load_turns(sample)
        n_turns += len(turns)
        valid = {t["dia_id"] for t in turns}
        with tempfile.TemporaryDirectory(prefix="locomo-", dir=tmpdir) as tmp:
            eng = cls(tmp)
            eng.index(turns)
            for qi, qa in enumerate(sample["qa"]):
                if qa.get("category") not in CATEGORIES:
                    continue
                if max_questions and qi >= max_questions:
                    break
                gold = clean_evidence(qa.get("evidence", []), valid, stats)
                if not gold:
                    stats["questions_without_evidence"] += 1
                    continue
                t0 = time.perf_counter()
                ranked = eng.search(str(qa["question"]))
                lat.append(time.perf_counter() - t0)
                rows.append({"c": qa["category"], "m": score(gold, ranked)})
                if pq:
                    pq.write(
                        json.dumps(
                            {
                                "sample": sample["sample_id"],
                                "qa": qi,
                                "category": qa["category"],
                                "question": qa["question"],
                                "gold": gold,
                                "ranked": ranked,
                            }
                        )
                        + "\n"
                    )
            eng.close()
    return {
        "turns_indexed": n_turns,
        "overall_1to4": aggregate(rows),
        "by_category": {
            f"{c}-{name}": aggregate([r for r in rows if r["c"] == c])
            for c, name in CATEGORIES.items()
        },
        "latency_ms": {
            "p50": round(statistics.median(lat) * 1e3, 4) if lat else None,
            "p95": round(sorted(lat)[int(0.95 * (len(lat) - 1))] * 1e3, 4) if lat else None,
        },
        "evidence_cleanup": stats,
    }


def headline(res: dict) -> dict:
    o = res["overall_1to4"]
    return {
        k: o.get(k) for k in ("n", "recall@1", "recall@5", "recall@10", "recall@20", "mrr", "empty")
    } | {"latency_p50_ms": res["latency_ms"]["p50"]}


def run_upstream(python: str, data: str, tmpdir: str | None) -> dict:
    argv = [python, os.path.abspath(__file__), data, "--engine", "upstream"]
    if tmpdir:
        argv += ["--tmpdir", tmpdir]
    p = subprocess.run(argv, capture_output=True, text=True, check=False)
    if p.returncode != 0:
        return {"error": p.stderr.strip()[-600:]}
    return json.loads(p.stdout)


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("data", help="path of locomo-dev.json (or locomo10.json)")
    ap.add_argument("--engine", choices=sorted(ENGINES), default="ours")
    ap.add_argument(
        "--upstream-python", default=None, help="interpreter with anneal-memory==1.0.2 installed"
    )
    ap.add_argument("--tmpdir", default=None, help="where the temporary stores live")
    ap.add_argument("--per-question", default=None, help="write one JSON line per question")
    ap.add_argument("--out", default=None)
    ap.add_argument(
        "--haystack", default=None, help="comma-separated distractor counts, e.g. 0,20000,100000"
    )
    ap.add_argument("--cache", default="/tmp/anneal-locomo-cache", help="haystack store cache")
    ap.add_argument("--conversations", default=None, help="comma-separated sample ids")
    ap.add_argument("--max-questions", type=int, default=0, help="per conversation (0: all)")
    ap.add_argument("--shapes", action="store_true", help="worst-case query shapes at 20,000")
    ap.add_argument("--quick", action="store_true", help="seconds: one conversation, few questions")
    args = ap.parse_args()

    raw = open(args.data, "rb").read()  # noqa: SIM115
    samples = json.loads(raw)
    import anneal_memory

    if args.quick:
        args.max_questions = args.max_questions or 25
        args.conversations = args.conversations or samples[1]["sample_id"]
    if args.haystack is not None or args.quick:
        return haystack_main(args, samples, raw)
    if args.conversations:
        samples = [s for s in samples if s["sample_id"] in args.conversations.split(",")]

    res: dict = {
        "bench": "locomo_recall",
        "engine": args.engine,
        "version": getattr(anneal_memory, "__version__", "?"),
        "data_sha256": hashlib.sha256(raw).hexdigest(),
        "conversations": [s["sample_id"] for s in samples],
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "method": {
            "episode_text": "[session date] Speaker: text",
            "limit": K_MAX,
            "categories": sorted(CATEGORIES),
        },
    }
    pq = open(args.per_question, "w", encoding="utf-8") if args.per_question else None  # noqa: SIM115
    try:
        res["results"] = {
            name: run_engine(cls, samples, args.tmpdir, pq, args.max_questions)
            for name, cls in ENGINES[args.engine].items()
        }
    finally:
        if pq:
            pq.close()
    res["headline"] = {name: headline(r) for name, r in res["results"].items()}
    if args.upstream_python:
        res["upstream"] = run_upstream(args.upstream_python, args.data, args.tmpdir)
    text = json.dumps(res, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    return 0


def haystack_main(args: argparse.Namespace, samples: list[dict], raw: bytes) -> int:
    """Quality and cost of ours vs raw FTS5 with N newer distractors (see the docstring)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import _locomo_haystack as hs
    import anneal_memory
    from _common import machine_facts

    sizes = [int(x) for x in (args.haystack or "0,2000").split(",")]
    wanted = args.conversations.split(",") if args.conversations else None
    picks = [i for i, s in enumerate(samples) if wanted is None or s["sample_id"] in wanted]
    scratch = tempfile.TemporaryDirectory(prefix="locomo-quick-") if args.quick else None
    cache = scratch.name if scratch else args.cache

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    res: dict = {
        "bench": "locomo_recall --haystack",
        "version": getattr(anneal_memory, "__version__", "?"),
        "data_sha256": hashlib.sha256(raw).hexdigest(),
        "conversations": [samples[i]["sample_id"] for i in picks],
        "max_questions": args.max_questions,
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": machine_facts(),
        "sizes": [],
    }
    try:
        for size in sizes:
            log(f"haystack {size:,}")
            res["sizes"].append(hs.run_size(samples, picks, size, cache, args.max_questions, log))
        if args.shapes or args.quick:
            res["shapes"] = hs.run_shapes(
                samples, cache, 2000 if args.quick else 20_000, 3 if args.quick else 5, log
            )
        if args.upstream_python:
            log("anneal-memory 1.0.2, no haystack (fresh store per conversation)")
            res["upstream_no_haystack"] = run_upstream(args.upstream_python, args.data, args.tmpdir)
    finally:
        if scratch:
            scratch.cleanup()
    base = res["sizes"][0]
    for row in res["sizes"]:
        row["ours_r10_over_ours_at_first_size"] = round(
            row["ours"]["recall@10"] / base["ours"]["recall@10"], 4
        )
        row["p50_growth_from_first_size"] = {
            name: round(
                row[name]["latency_limit10_ms"]["p50"] / base[name]["latency_limit10_ms"]["p50"], 2
            )
            for name in ("ours", "raw")
        }
    text = json.dumps(res, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
