#!/usr/bin/env python3
"""Wrap package size: characters of the package a model is sent, by unwrapped episode count.

For each count (10, 300 and 10,000 episodes; ``--quick``: 10 and 300) a fresh store gets that
many episodes of two kinds, then one ``prepare_wrap``:

  note     Corpus rows (~190 characters, what an agent records by hand)
  tool     tool results (~4,000 characters each, what a framework adapter records)

and the figures are the package text's characters, the episodes in the package and the
episodes left for the next wrap; for ours also the retry prompt's worst case (the package
plus a refusal, bounded by the same budget). With ``--upstream-python`` the same stores are
built with the public anneal-memory 1.0.2 in that interpreter (a subprocess) and its
``format_wrap_package_text`` is measured side by side (it has no budget: every episode).

Usage: .venv/bin/python bench/bench_wrap_package.py [--quick]
           [--upstream-python /tmp/pub/bin/python] [--out f.json]
Prints ONE JSON summary on stdout (progress on stderr).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Corpus, emit, log, machine_facts

TOOL_BODY = (
    '{"status": "ok", "items": [{"id": %d, "name": "upload-%d", "bytes": 48213, '
    '"checksum": "9f2c41d0", "tags": ["retry", "backoff", "s3"]}]} '
)
COUNTS = (10, 300, 10_000)
QUICK_COUNTS = (10, 300)


def texts(kind: str, count: int) -> list[str]:
    """The episode texts of one store (seeded, the same for ours and upstream)."""
    if kind == "note":
        return Corpus(seed=42).texts(0, count)
    return [f"tool upload_batch result {i}: " + (TOOL_BODY % (i, i)) * 25 for i in range(count)]


def measure_ours(kind: str, count: int) -> dict:
    from anneal_memory import Store, prepare_wrap
    from anneal_memory.agent._wrapflow import _retry_prompt
    from anneal_memory.errors import ContinuityRejectedError
    from anneal_memory.immune import Finding, FindingCode, Severity

    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "m.db") as store:
        for text in texts(kind, count):
            store.record(text, "observation")
        prep = prepare_wrap(store)
        package = prep.text or ""
        budget = prep.package.max_package_chars if prep.package else 0
        refusal = ContinuityRejectedError(
            "Refusing to save: " + "the continuity lacks ## State; " * 40,
            findings=tuple(
                Finding(code=FindingCode.UNGROUNDED, severity=Severity.DEMOTION, message="x" * 300)
                for _ in range(40)
            ),
        )
        retry = _retry_prompt(package, refusal, budget)
        return {
            "package_chars": len(package),
            "retry_prompt_chars": len(retry),
            "episodes_in_package": prep.episode_count,
            "episodes_left": prep.episodes_left,
            "budget": budget,
        }


UPSTREAM = """
import json, sys, tempfile, warnings
from pathlib import Path
warnings.simplefilter("ignore")
from anneal_memory import Store, prepare_wrap
from anneal_memory.continuity import format_wrap_package_text
texts = json.loads(sys.stdin.read())
with tempfile.TemporaryDirectory() as tmp:
    store = Store(Path(tmp) / "m.db", audit=False)
    for text in texts:
        store.record(text, "observation")
    result = prepare_wrap(store)
    package = format_wrap_package_text(result)
    print(json.dumps({"package_chars": len(package), "episodes_in_package": result["episode_count"],
                      "episodes_left": 0, "retry_prompt_chars": None, "budget": None}))
    store.close()
"""


def measure_upstream(python: str, kind: str, count: int) -> dict:
    done = subprocess.run(
        [python, "-c", UPSTREAM],
        input=json.dumps(texts(kind, count)),
        capture_output=True,
        text=True,
        check=False,
        timeout=1800,
    )
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1:]}
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="10 and 300 episodes only")
    parser.add_argument("--upstream-python", help="a Python with anneal-memory==1.0.2")
    parser.add_argument("--out", help="also write the JSON summary here")
    args = parser.parse_args()
    counts = QUICK_COUNTS if args.quick else COUNTS
    rows = []
    for kind in ("note", "tool"):
        for count in counts:
            log(f"{kind} x {count}")
            row = {"kind": kind, "episodes": count, "ours": measure_ours(kind, count)}
            if args.upstream_python:
                row["upstream_1_0_2"] = measure_upstream(args.upstream_python, kind, count)
            rows.append(row)
    emit({"bench": "wrap_package", "machine": machine_facts(), "rows": rows}, args.out)


if __name__ == "__main__":
    main()
