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

Then, per size of --sizes (100,000 and 1,000,000; ``--quick``: 2,000), ``status`` and
``stats`` on a store of that many episodes (filled as bench_store.py fills, kept in
--cache when given): ours, and 1.0.2's up to 100,000 (--upstream-max-size), interleaved,
--big-reps rounds, wall medians in seconds beside the goals (status <= 0.15 s, stats <= 1 s).

Children run with bytecode caching on (PYTHONDONTWRITEBYTECODE removed, a cache folder
of their own), as an installed CLI runs from its second start on; one untimed warm-up.

Usage:
  .venv/bin/python bench/bench_cli.py [--cli .venv/bin/anneal-memory]
      [--upstream-python /work/venv-upstream/bin/python] [--reps 20] [--out f.json]
Prints ONE JSON summary on stdout (progress on stderr).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import Corpus, emit, log, machine_facts, ratio, rotate, summarize
from bench_store import Ours, Remote


def run(argv: list[str], env: dict) -> float:
    s = time.perf_counter()
    p = subprocess.run(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, check=False
    )
    dt = time.perf_counter() - s
    if p.returncode != 0:
        raise RuntimeError(f"{argv[:5]} ... rc={p.returncode}: {p.stderr.decode()[-400:]}")
    return dt


def _filled(kind: str, python: str | None, folder: str, corpus: Corpus, size: int) -> str:
    """A store of ``size`` episodes in ``folder`` (reused when already there); its path."""
    db = os.path.join(folder, "memory.db")
    if os.path.exists(os.path.join(folder, "filled")):
        return db
    os.makedirs(folder, exist_ok=True)
    log(f"filling {kind} to {size:,} in {folder}")
    target = Remote("upstream", python) if kind == "upstream" and python else Ours()
    target.open(folder)
    target.fill(corpus.texts(0, size))
    target.close()
    with open(os.path.join(folder, "filled"), "w", encoding="utf-8") as f:
        f.write(str(size))
    return db


def big_stores(args: argparse.Namespace, clis: dict, corpus: Corpus, env: dict, tmp: str) -> dict:
    """``status`` and ``stats`` wall time on large stores, ours and 1.0.2's, interleaved."""
    out: dict = {}
    root = args.cache or os.path.join(tmp, "big")
    for size in [int(x) for x in args.sizes.split(",") if x]:
        jobs: dict[str, list[str]] = {}
        for name, cli in clis.items():
            if name == "upstream" and size > args.upstream_max_size:
                continue
            python = args.upstream_python if name == "upstream" else None
            # A baseline CLI of ours reads our store (same files, same format).
            kind = "upstream" if name == "upstream" else "ours"
            db = _filled(kind, python, os.path.join(root, f"{kind}-{size}"), corpus, size)
            jobs[f"{name}_status"] = [*cli, "--db", db, "status"]
            jobs[f"{name}_stats"] = [*cli, "--db", db, "stats"]
        jobs["python_import"] = [args.python, "-c", "import sqlite3, json, hashlib"]
        for argv in jobs.values():
            run(argv, env)  # warm-up: page cache and bytecode
        times: dict[str, list[float]] = {j: [] for j in jobs}
        for r in range(args.big_reps):
            for j in rotate(list(jobs), r):
                times[j].append(run(jobs[j], env))
        cell: dict = {j: round(statistics.median(xs), 4) for j, xs in times.items()}
        cell["ratios_to_python_import"] = {
            j: ratio(v, cell["python_import"]) for j, v in cell.items() if j != "python_import"
        }
        cell["goals"] = {
            "ours_status <= 0.15 s": cell["ours_status"] <= 0.15,
            "ours_stats <= 1 s": cell["ours_stats"] <= 1.0,
        }
        out[str(size)] = {"wall_median_s": cell}
        log(f"status/stats @ {size:,}: {cell}")
    return out


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
    ap.add_argument(
        "--baseline-cli",
        action="append",
        default=[],
        metavar="NAME=ARGV",
        help="another CLI run side by side (e.g. before=/tmp/before/anneal-memory; a command "
        "line split on spaces); repeatable",
    )
    ap.add_argument("--sizes", default="100000,1000000", help="status/stats store sizes")
    ap.add_argument("--big-reps", type=int, default=5)
    ap.add_argument("--upstream-max-size", type=int, default=100_000)
    ap.add_argument("--cache", default=None, help="keep the status/stats stores here")
    ap.add_argument("--quick", action="store_true", help="3 reps, 3 prefilled (CI smoke run)")
    args = ap.parse_args()
    if args.quick:
        args.reps, args.prefill, args.sizes, args.big_reps = 3, 3, "2000", 2
    upstream_cli = args.upstream_cli or (
        os.path.join(os.path.dirname(args.upstream_python), "anneal-memory")
        if args.upstream_python
        else None
    )

    corpus = Corpus(seed=args.seed)
    texts = corpus.texts(7_000_000, 2 * (args.reps + args.prefill))
    words = corpus.query_words("common") + corpus.query_words("mid")
    tmp = tempfile.mkdtemp(prefix="bench-cli-", dir=args.tmpdir)
    env = dict(os.environ, HOME=tmp, PYTHONPYCACHEPREFIX=os.path.join(tmp, "pycache"))
    for name in ("ANNEAL_MEMORY_DB", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    clis = {"ours": [args.cli]}
    if upstream_cli:
        clis["upstream"] = [upstream_cli]
    for spec in args.baseline_cli:
        name, _, argv = spec.partition("=")
        clis[name] = argv.split()
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
        run([args.python, "-c", "pass"], env)  # warm-up: bytecode written
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
        res["big"] = big_stores(args, clis, corpus, env, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    res["wall_s"] = round(time.time() - t0, 1)
    res["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    emit(res, args.out)


if __name__ == "__main__":
    main()
