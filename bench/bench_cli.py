#!/usr/bin/env python3
"""CLI wall time: ``anneal-memory record`` / ``search`` vs a bare Python start.

Each round runs every job once, order rotating per round, so noise hits all alike; cells
are medians over --reps rounds. The baseline is ``python -c "import sqlite3, json, hashlib"``
(the least any stdlib CLI of this kind has to pay). Jobs:

  python_pass          <python> -c pass
  python_import        <python> -c "import sqlite3, json, hashlib"
  ours_record          <cli> --db DB record TEXT --type observation
  ours_search          <cli> --db DB search WORD
  upstream_record/_search   the same on anneal-memory 1.0.2's CLI (with --upstream-cli, or
                       the ``anneal-memory`` next to --upstream-python)

Each store is created by its ``init`` first and starts with --prefill episodes recorded
through the CLI, so search has rows to rank. Texts and words come from the seeded corpus.

Usage:
  .venv/bin/python bench/bench_cli.py [--cli .venv/bin/anneal-memory]
      [--upstream-python /work/venv-upstream/bin/python] [--reps 20] [--out f.json]
Prints ONE JSON summary on stdout (progress on stderr).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import Corpus, emit, log, machine_facts, ratio, rotate, summarize


def run(argv: list[str], env: dict) -> float:
    s = time.perf_counter()
    p = subprocess.run(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, check=False
    )
    dt = time.perf_counter() - s
    if p.returncode != 0:
        raise RuntimeError(f"{argv[:5]} ... rc={p.returncode}: {p.stderr.decode()[-400:]}")
    return dt


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    here = os.path.dirname(sys.executable)
    ap.add_argument("--python", default=sys.executable, help="interpreter for the baseline")
    ap.add_argument("--cli", default=os.path.join(here, "anneal-memory"), help="our CLI")
    ap.add_argument("--upstream-python", default=None)
    ap.add_argument("--upstream-cli", default=None)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--prefill", type=int, default=20)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--tmpdir", default=None)
    ap.add_argument("--out", default=None)
    ap.add_argument("--quick", action="store_true", help="3 reps, 3 prefilled (CI smoke run)")
    args = ap.parse_args()
    if args.quick:
        args.reps, args.prefill = 3, 3
    upstream_cli = args.upstream_cli or (
        os.path.join(os.path.dirname(args.upstream_python), "anneal-memory")
        if args.upstream_python
        else None
    )

    corpus = Corpus(seed=args.seed)
    texts = corpus.texts(7_000_000, 2 * (args.reps + args.prefill))
    words = corpus.query_words("common") + corpus.query_words("mid")
    tmp = tempfile.mkdtemp(prefix="bench-cli-", dir=args.tmpdir)
    env = dict(os.environ, HOME=tmp)
    env.pop("ANNEAL_MEMORY_DB", None)
    clis = {"ours": [args.cli]}
    if upstream_cli:
        clis["upstream"] = [upstream_cli]
    res: dict = {
        "bench": "cli_wall_time",
        "machine": machine_facts(),
        "params": {
            "reps": args.reps,
            "prefill": args.prefill,
            "python": args.python,
            "cli": args.cli,
            "upstream_cli": upstream_cli,
        },
    }
    t0 = time.time()
    try:
        jobs: dict[str, list[str] | tuple] = {
            "python_pass": [args.python, "-c", "pass"],
            "python_import": [args.python, "-c", "import sqlite3, json, hashlib"],
        }
        for name, cli in clis.items():
            db = os.path.join(tmp, name, "memory.db")
            init = ["init", "--no-baton"] if name == "upstream" else ["init"]
            run([*cli, "--db", db, *init], env)
            for i in range(args.prefill):
                run([*cli, "--db", db, "record", texts[i], "--type", "observation"], env)
            jobs[f"{name}_record"] = ("record", [*cli, "--db", db])
            jobs[f"{name}_search"] = ("search", [*cli, "--db", db])
        times: dict[str, list[float]] = {j: [] for j in jobs}
        names = list(jobs)
        for r in range(args.reps):
            for j in rotate(names, r):
                spec = jobs[j]
                if isinstance(spec, list):
                    argv = spec
                elif spec[0] == "record":
                    argv = [*spec[1], "record", texts[args.prefill + r], "--type", "observation"]
                else:
                    argv = [*spec[1], "search", words[r % len(words)]]
                times[j].append(run(argv, env))
            log(f"round {r + 1}/{args.reps}")
        res["wall"] = {j: summarize(xs) for j, xs in times.items()}
        base = res["wall"]["python_import"]["median_ms"]
        res["ratios"] = {
            f"{j}/python_import": ratio(res["wall"][j]["median_ms"], base)
            for j in names
            if j not in ("python_import",)
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    res["wall_s"] = round(time.time() - t0, 1)
    res["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    emit(res, args.out)


if __name__ == "__main__":
    main()
