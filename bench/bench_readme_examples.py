"""Wall time of each adapter README example, run offline as its own process.

Each example is executed by its test (`tests/adapters/<framework>/test_readme.py`, which swaps
in the framework's offline fake model) in a fresh interpreter, so the figure includes Python
start-up, pytest and the framework's import: an upper bound for "the example runs in under
10 s". Prints one JSON summary. ``--quick`` (for CI): one run each of the two lightest
frameworks (LangGraph, Pydantic AI).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FRAMEWORKS = ("langgraph", "openai_agents", "pydantic_ai", "crewai", "llamaindex", "dspy")
GOAL_SECONDS = 10.0


def run_once(framework: str) -> float:
    test = ROOT / "tests" / "adapters" / framework / "test_readme.py"
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pytest", str(test), "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--quick", action="store_true", help="one run of two frameworks")
    args = parser.parse_args()
    frameworks = ("langgraph", "pydantic_ai") if args.quick else FRAMEWORKS
    reps = 1 if args.quick else args.reps
    results = {}
    for framework in frameworks:
        if not (ROOT / "tests" / "adapters" / framework / "test_readme.py").exists():
            continue
        times = [run_once(framework) for _ in range(reps)]
        median = statistics.median(times)
        results[framework] = {
            "median_s": round(median, 2),
            "max_s": round(max(times), 2),
            "meets_goal": median < GOAL_SECONDS,
        }
    summary = {"bench": "readme_examples", "goal_seconds": GOAL_SECONDS, "results": results}
    text = json.dumps(summary, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
