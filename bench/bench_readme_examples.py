"""Wall time of each adapter README example, run offline as its own process.

Each example is executed by its test (`tests/adapters/<framework>/test_readme.py`, which swaps
in the framework's offline fake model) in a fresh interpreter, so the figure includes Python
start-up, pytest and the framework's import: an upper bound for "the example runs in under
10 s". Next to it, the example's own run: the call phase of its test, as pytest's
``--durations`` reports it (the example's code with the fake model, the wrap included;
no interpreter start-up, no imports of the framework done at collection). Prints one JSON
summary. ``--quick`` (for CI): one run each of the two lightest frameworks (LangGraph,
Pydantic AI).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FRAMEWORKS = ("langgraph", "openai_agents", "pydantic_ai", "crewai", "llamaindex", "dspy")
GOAL_SECONDS = 10.0
_CALL_PHASE = re.compile(r"^([0-9.]+)s call +\S+::test_\w*readme_example_runs_offline", re.M)


def run_once(framework: str) -> tuple[float, float]:
    """One fresh test process: (its wall seconds, the example test's call-phase seconds)."""
    test = ROOT / "tests" / "adapters" / framework / "test_readme.py"
    command = [sys.executable, "-m", "pytest", str(test), "-q", "-p", "no:cacheprovider"]
    started = time.perf_counter()
    done = subprocess.run(
        [*command, "--durations=0", "--durations-min=0"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - started
    call = _CALL_PHASE.search(done.stdout)
    if call is None:
        raise SystemExit(f"{framework}: no call-phase duration in pytest's output")
    return wall, float(call.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--quick", action="store_true", help="one run of two frameworks")
    parser.add_argument("--only", choices=FRAMEWORKS, action="append", help="this framework")
    args = parser.parse_args()
    frameworks = ("langgraph", "pydantic_ai") if args.quick else FRAMEWORKS
    frameworks = tuple(args.only) if args.only else frameworks
    reps = 1 if args.quick else args.reps
    results = {}
    for framework in frameworks:
        if not (ROOT / "tests" / "adapters" / framework / "test_readme.py").exists():
            continue
        runs = [run_once(framework) for _ in range(reps)]
        times = [wall for wall, _ in runs]
        median = statistics.median(times)
        results[framework] = {
            "median_s": round(median, 2),
            "max_s": round(max(times), 2),
            "example_run_median_s": round(statistics.median(call for _, call in runs), 2),
            "meets_goal": median < GOAL_SECONDS,
        }
    summary = {"bench": "readme_examples", "goal_seconds": GOAL_SECONDS, "results": results}
    text = json.dumps(summary, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
