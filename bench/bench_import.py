#!/usr/bin/env python3
"""Import of a public anneal-memory 1.0.2 database: episodes/s and peak memory, side by side.

A 1.0.2 store of N episodes (half of them wrapped) is built by the real 1.0.2 package
(``tests/fixtures/public102_build.py --bulk N``, run by ``--upstream-python``). Then, each in
its own child process so its peak memory is its own (``ru_maxrss`` from ``wait4`` of the
timed run, and the Python heap peak from ``tracemalloc`` in a second, untimed run, because
tracing slows every allocation):

  ours    ``Store(new).import_from(mem.db)`` (streams the source; one transaction)
  raw     the floor: sqlite3 copies the same rows from the same read-only source into a
          table with our columns + an FTS5 external-content index kept by a trigger, one
          transaction, synchronous=FULL (no validation, no staging, no id checks)
  baseline  a child that only opens an empty store (the interpreter's own footprint)
  upstream  for reference, 1.0.2 moving its own data: ``anneal-memory import`` of its JSON
          export into a fresh 1.0.2 store (the only import 1.0.2 has; timed from the
          outside, so process start counts); at sizes up to --upstream-max (10000), since it
          writes one durable transaction per episode

Sizes: --sizes (default 10000,100000; --quick 2000). Peak memory that does not grow from
the small size to the large one is the streaming claim.

Usage:
  .venv/bin/python bench/bench_import.py [--upstream-python /work/venv-upstream/bin/python]
      [--sizes 10000,100000] [--quick] [--out f.json]
Without --upstream-python a temporary venv with anneal-memory==1.0.2 is made with uv.
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
from _common import emit, log, machine_facts, ratio

ROOT = Path(__file__).resolve().parent.parent
BUILDER = ROOT / "tests" / "fixtures" / "public102_build.py"

_OURS = """
import sys, time, tracemalloc, json
from anneal_memory import Store
import anneal_memory.store.transfer._apply, anneal_memory.store.transfer._run
if sys.argv[3] == "trace":
    tracemalloc.start()
t = time.perf_counter()
with Store(sys.argv[2], audit=False) as s:
    report = s.import_from(sys.argv[1])
seconds = time.perf_counter() - t
print(json.dumps({"seconds": seconds, "heap_peak": tracemalloc.get_traced_memory()[1],
                  "episodes": report.count("episodes").imported}))
"""

_RAW = """
import sys, time, tracemalloc, json, sqlite3
if sys.argv[3] == "trace":
    tracemalloc.start()
t = time.perf_counter()
src = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro&immutable=1", uri=True)
dst = sqlite3.connect(sys.argv[2], isolation_level=None)
dst.execute("PRAGMA journal_mode=WAL"); dst.execute("PRAGMA synchronous=FULL")
dst.execute("CREATE TABLE episodes (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,"
            " ts TEXT NOT NULL, type TEXT NOT NULL, content TEXT NOT NULL, source TEXT NOT NULL,"
            " metadata TEXT, idempotency_key TEXT)")
dst.execute("CREATE INDEX episodes_ts ON episodes(ts)")
dst.execute("CREATE VIRTUAL TABLE episodes_fts USING fts5(content, content='episodes',"
            " content_rowid='seq', tokenize='porter unicode61')")
dst.execute("CREATE TRIGGER ai AFTER INSERT ON episodes BEGIN INSERT INTO episodes_fts(rowid,"
            " content) VALUES (new.seq, new.content); END")
dst.execute("BEGIN IMMEDIATE")
cur = src.execute("SELECT id, timestamp, type, content, source, metadata, origin_key"
                  " FROM episodes ORDER BY CAST(session_id AS INTEGER) IS NULL, session_id,"
                  " timestamp")
n = 0
while rows := cur.fetchmany(2000):
    dst.executemany("INSERT INTO episodes (id, ts, type, content, source, metadata,"
                    " idempotency_key) VALUES (?,?,?,?,?,?,?)", rows)
    n += len(rows)
dst.execute("COMMIT")
seconds = time.perf_counter() - t
print(json.dumps({"seconds": seconds, "heap_peak": tracemalloc.get_traced_memory()[1],
                  "episodes": n}))
"""

_BASELINE = """
import sys, json
from anneal_memory import Store
Store(sys.argv[2], audit=False).close()
print(json.dumps({"seconds": 0.0, "heap_peak": 0, "episodes": 0}))
"""


def _child(code: str, source: Path, target: Path, *, trace: bool) -> dict[str, float]:
    """Run ``code`` in a fresh interpreter; return its figures and its peak RSS (MiB)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(source), str(target), "trace" if trace else "-"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    _pid, status, usage = os.wait4(proc.pid, 0)
    out = proc.stdout.read().decode() if proc.stdout else ""
    err = proc.stderr.read().decode() if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"child failed ({proc.returncode}): {err.strip()[-500:]}")
    figures = json.loads(out)
    figures["peak_rss_mib"] = round(usage.ru_maxrss / 1024, 1)  # kilobytes on Linux
    figures["heap_peak_mib"] = round(figures.pop("heap_peak") / (1024 * 1024), 2)
    return figures


def _upstream_venv(folder: Path) -> str | None:
    """A throwaway venv with the public 1.0.2 (uv's cache makes this offline after once)."""
    import shutil

    uv = shutil.which("uv")
    if uv is None:
        raise SystemExit("pass --upstream-python (uv is not on PATH to make a venv)")
    venv = folder / "venv-1.0.2"
    python = venv / "bin" / "python"
    log("making a venv with anneal-memory==1.0.2")
    for step in (
        [uv, "venv", "--quiet", "--python", sys.executable, str(venv)],
        [uv, "pip", "install", "--quiet", "--python", str(python), "anneal-memory==1.0.2"],
    ):
        if subprocess.run(step, check=False).returncode != 0:
            return None
    return str(python)


def _upstream_import(upstream: str, folder: Path, n: int) -> dict[str, object]:
    log("  upstream (1.0.2 export, then 1.0.2 import of it) ...")
    cli = [upstream, "-m", "anneal_memory", "--db"]
    export = folder / "export.json"
    subprocess.run([*cli, str(folder / "mem.db"), "export", "-o", str(export)], check=True,
                   capture_output=True)  # fmt: skip
    target = folder / "upstream-new.db"
    subprocess.run([*cli, str(target), "init"], check=True, capture_output=True)
    started = time.perf_counter()
    proc = subprocess.Popen([*cli, str(target), "import", str(export)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    _pid, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("the 1.0.2 import failed")
    return {
        "seconds": round(seconds, 3),
        "episodes_per_s": round(n / seconds),
        "peak_rss_mib": round(usage.ru_maxrss / 1024, 1),
    }


def _one_size(upstream: str, n: int, work: Path, upstream_max: int) -> dict[str, object]:
    folder = work / f"v1-{n}"
    log(f"building a 1.0.2 store of {n} episodes with {upstream}")
    subprocess.run([upstream, str(BUILDER), str(folder), "--bulk", str(n)], check=True)
    source = folder / "mem.db"
    result: dict[str, object] = {"episodes": n, "source_bytes": source.stat().st_size}
    for name, code in (("baseline", _BASELINE), ("raw", _RAW), ("ours", _OURS)):
        log(f"  {name} ...")
        (work / f"{name}-{n}").mkdir()
        (work / f"{name}-{n}-traced").mkdir()
        figures = _child(code, source, work / f"{name}-{n}" / "memory.db", trace=False)
        traced = _child(code, source, work / f"{name}-{n}-traced" / "memory.db", trace=True)
        figures["heap_peak_mib"] = traced["heap_peak_mib"]
        if name != "baseline":
            if figures["episodes"] != n:
                raise SystemExit(f"{name} imported {figures['episodes']} of {n} episodes")
            figures["episodes_per_s"] = round(n / figures["seconds"])
            figures["seconds"] = round(figures["seconds"], 3)
        result[name] = figures
    if n <= upstream_max:
        result["upstream"] = _upstream_import(upstream, folder, n)
    ours, raw = result["ours"], result["raw"]
    if not isinstance(ours, dict) or not isinstance(raw, dict):
        raise TypeError("figures are dicts")
    result["ours_vs_raw_time"] = ratio(ours["seconds"], raw["seconds"])
    theirs = result.get("upstream")
    if isinstance(theirs, dict):
        result["upstream_vs_ours_time"] = ratio(theirs["seconds"], ours["seconds"])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--upstream-python",
        help="a Python with anneal-memory 1.0.2 (default: a temporary venv made with uv)",
    )
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--quick", action="store_true", help="one small size (CI)")
    parser.add_argument(
        "--upstream-max", type=int, default=10000, help="largest 1.0.2 import (none with --quick)"
    )
    parser.add_argument("--out", help="also write the JSON summary here")
    args = parser.parse_args()
    if not (ROOT / "tests" / "fixtures").is_dir():
        raise SystemExit("run from a checkout: tests/fixtures/public102_build.py is needed")
    sizes = [2000] if args.quick else [int(s) for s in args.sizes.split(",")]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-import-") as folder:
        upstream = args.upstream_python or _upstream_venv(Path(folder))
        if upstream is None:
            if not args.quick:
                raise SystemExit("cannot install anneal-memory==1.0.2; pass --upstream-python")
            emit({"bench": "import", "skipped": "anneal-memory==1.0.2 not installable"}, args.out)
            return
        upstream_max = 0 if args.quick else args.upstream_max
        runs = [_one_size(upstream, n, Path(folder), upstream_max) for n in sizes]
    summary = {
        "bench": "import",
        "machine": machine_facts(),
        "quick": args.quick,
        "runs": runs,
        "wall_seconds": round(time.perf_counter() - started, 1),
    }
    emit(summary, args.out)


if __name__ == "__main__":
    main()
