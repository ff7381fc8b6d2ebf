#!/usr/bin/env python3
"""The memory inspector at scale: JSON payload sizes and page load times at N episodes.

For each size a store is filled through the public ``Store.import_json`` (seeded Zipf text,
10,000 episodes per document, spread over 50 scopes), then the shared scope gets a short
session and two real wraps (the demo compressor), so patterns, links and audit entries
exist. A real ``anneal-memory inspect`` process serves it; each JSON endpoint is fetched
over HTTP (time and bytes, median of --reps), then headless Chromium
(``/usr/bin/chromium``, skipped when absent) loads the page and every view, timed from the
navigation to the view's ``data-ready`` mark (the data fetched and drawn). The store is
deleted afterwards.

Prints ONE JSON summary on stdout. ``--quick``: 2,000 episodes, one rep (CI); the default is
10,000; ``--million`` adds 1,000,000 (a few minutes to build).

Usage:
  .venv/bin/python bench/bench_inspect.py [--quick] [--million] [--sizes N,M] [--reps 3]
      [--keep DIR] [--out f.json]
"""

from __future__ import annotations

import argparse
import os
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import Corpus, emit, log, machine_facts
from anneal_memory import Store, prepare_wrap, validated_save_continuity
from anneal_memory.testing import DEMO_GROUNDED, demo_compress

CHROMIUM = os.environ.get("ANNEAL_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip
QUESTION = "why does the checkout test fail when the workers run in parallel"
SESSION = (
    ("observation", "The parallel pytest workers share one Postgres database and see rows"),
    ("decision", "Give each parallel pytest worker its own Postgres database from a template"),
    ("outcome", "Per worker Postgres databases made the parallel pytest suite pass 50 of 50"),
)


def build(db: Path, size: int) -> None:
    corpus = Corpus()
    with Store(db) as store:
        done = 0
        while done < size:
            count = min(10_000, size - done)
            episodes = [
                {"id": f"{0x10000000 + done + i:08x}", "timestamp": _iso(done + i),
                 "type": "observation", "content": text, "source": "agent", "metadata": {},
                 "idempotency_key": None, "scope": f"user-{(done + i) % 50}"}
                for i, text in enumerate(corpus.texts(done, count))
            ]  # fmt: skip
            store.import_json(
                {"format": "anneal-memory-export", "format_version": 1, "episodes": episodes,
                 "tombstones": []}
            )  # fmt: skip
            done += count
        for _ in range(2):
            for kind, text in SESSION:
                store.record(text, kind)
            prepared = prepare_wrap(store, max_package_chars=20_000)
            text = demo_compress(prepared.text or "")
            validated_save_continuity(store, text, wrap_token=prepared.wrap_token)


def _iso(n: int) -> str:
    seconds = 1_700_000_000 + n
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + ".000000Z"


def serve(db: Path, errors: Path) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "anneal_memory", "--db", str(db), "inspect", "--no-open"],
        stdout=subprocess.PIPE, stderr=errors.open("w", encoding="utf-8"), text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    assert process.stdout is not None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if select.select([process.stdout], [], [], 0.5)[0]:
            line = process.stdout.readline()
            if "http://" in line:
                return process, line[line.index("http://") :].strip()
    process.kill()
    raise RuntimeError("inspect printed no URL")


def endpoints(url: str, reps: int) -> dict[str, Any]:
    base, token = url.split("/#token=")
    wanted = {
        "overview": "", "verify": "", "episodes": "",
        "episodes_search": "q=" + QUESTION.replace(" ", "+"),
        "episodes_trust_tool": "trust=tool", "continuity": "",
        "pattern": f"name={DEMO_GROUNDED}",
        "wraps": "", "graph": "", "audit": "", "crystals": "", "spores": "",
    }  # fmt: skip
    out: dict[str, Any] = {}
    for name, query in wanted.items():
        path = name.split("_")[0]
        times, size = [], 0
        for _ in range(reps):
            request = urllib.request.Request(
                f"{base}/api/{path}?{query}", headers={"Authorization": f"Bearer {token}"}
            )
            start = time.perf_counter()
            try:
                with urllib.request.urlopen(request, timeout=600) as response:
                    size = len(response.read())
            except urllib.error.HTTPError as exc:
                out[name] = {"status": exc.code, "error": exc.read().decode()[:300]}
                break
            times.append(time.perf_counter() - start)
        else:
            out[name] = {"ms": round(statistics.median(times) * 1000, 1), "bytes": size}
    return out


def page_loads(url: str) -> dict[str, Any] | None:
    if not Path(CHROMIUM).exists():
        return None
    from playwright.sync_api import sync_playwright

    views = ["#/episodes", f"#/episodes?q={QUESTION}", "#/continuity",
             f"#/pattern?name={DEMO_GROUNDED}", "#/wraps", "#/tiers", "#/graph",
             "#/audit"]  # fmt: skip
    out: dict[str, Any] = {}
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page()
        start = time.perf_counter()
        page.goto(url)
        page.wait_for_selector("body[data-ready='overview']", timeout=600_000)
        out["first load (overview)"] = round((time.perf_counter() - start) * 1000, 1)
        page.wait_for_selector("#verdict .badge", timeout=600_000)
        out["overview + chain verdict"] = round((time.perf_counter() - start) * 1000, 1)
        for view in views:
            page.evaluate("document.body.removeAttribute('data-ready')")
            start = time.perf_counter()
            page.evaluate("h => { location.hash = h }", view)
            page.wait_for_selector("body[data-ready]", timeout=600_000)
            out[view] = round((time.perf_counter() - start) * 1000, 1)
        browser.close()
    return out


def run_size(size: int, reps: int, keep: Path | None) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="anneal-inspect-bench-")) if keep is None else keep
    folder = folder / str(size) if keep is not None else folder
    try:
        db = folder / "memory.db"
        if not db.exists():
            folder.mkdir(parents=True, exist_ok=True)
            start = time.perf_counter()
            build(db, size)
            log(f"{size:,} episodes built in {time.perf_counter() - start:.0f} s")
        process, url = serve(db, folder / "server.err")
        try:
            return {"episodes": size, "api": endpoints(url, reps), "page_ms": page_loads(url)}
        finally:
            process.terminate()
            process.wait(timeout=30)
            log((folder / "server.err").read_text(encoding="utf-8")[-2000:])
    finally:
        if keep is None:
            shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="2,000 episodes, one rep (CI)")
    ap.add_argument("--million", action="store_true", help="add a 1,000,000-episode stage")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--keep", type=Path, help="build the stores here once and keep them")
    ap.add_argument("--sizes", help="comma-separated sizes instead of the default ones")
    ap.add_argument("--out", help="also write the summary to this file")
    args = ap.parse_args()
    sizes = [2_000] if args.quick else [10_000]
    if args.million:
        sizes.append(1_000_000)
    if args.sizes:
        sizes = [int(x) for x in args.sizes.split(",")]
    reps = 1 if args.quick else args.reps
    summary = {
        "bench": "inspect",
        "machine": machine_facts(),
        "sizes": [run_size(size, reps, args.keep) for size in sizes],
    }
    emit(summary, args.out)


if __name__ == "__main__":
    main()
