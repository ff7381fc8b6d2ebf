#!/usr/bin/env python3
"""The reliability battery with large counts: one figure per line, counts not times.

The same checks as ``tests/reliability`` (the CI tier), scaled up:

- ``writers``: W processes x N records on one store; acknowledged vs stored vs audited.
- ``kill-record``, ``kill-wrap``, ``kill-save``: real children killed with SIGKILL at random
  moments during records, wraps and continuity saves; silent audit gaps, doubled entries,
  torn continuity files.
- ``fuzz-mcp``, ``fuzz-import``, ``fuzz-continuity``: seeded random inputs for a fixed time
  each; any exception outside the documented error tree, crash or traceback is counted.
- ``tamper``: the audit tamper matrix across rotated weeks (caught / total).
- ``files`` (``--file-timeout 30``): a symbolic link, a FIFO and a folder at every file the
  store reads or appends beside its database (continuity per scope and its lock, audit
  trail, manifest and append lock, token file, import input); every entry point (library,
  CLI, MCP handler) run in a child under a timeout: answers serving the outside file,
  appends through a link, hangs, refusals that do not name the file, ``check`` runs that
  miss it.
- ``rename`` (``--rename-kills 30``): a child killed right after the continuity file's
  rename, before the save's commit: after reopening, is the file the last committed text,
  is a wrap left open, does ``check`` still call the store OK while they disagree.
- ``delete``: canary strings after ``delete`` (files still holding them, store open and
  closed) and the cost of a delete that purges the index and the WAL, side by side with a
  plain SQLite delete on the same schema, at each size.
- ``trust``: where trust classes meet state keys, deletion, grounding, spores, imports,
  scopes and the audit (``_trust_pairs``): attempts and breaches per class.
- ``inputs``, ``newer``, ``restore`` (``_state_parts``): hostile text in every text argument
  of the public Store calls on both engines; a store with a newer schema opened every way;
  random stores exported and restored, and a scope erased.

Usage: .venv/bin/python bench/battery.py [--quick] [--writers 8] [--per-writer 5000]
       [--record-kills 500] [--wrap-kills 30] [--save-kills 30] [--fuzz-seconds 600]
       [--delete-sizes 10000,100000] [--trust-rounds 200] [--seed 15]
Prints ``name: value`` lines on stdout (progress on stderr).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests" / "reliability"))

from _common import Corpus, log  # noqa: E402
from _crash import (  # noqa: E402
    RECORDER,
    SAVER,
    WRAPPER,
    WRITER,
    continuity_agreement,
    finish,
    kill_after,
    kill_after_rename,
    record_gaps,
    spawn,
    wrap_gaps,
)
from _state_parts import inputs, newer, restore  # noqa: E402
from _trust_pairs import trust_pairs  # noqa: E402
from anneal_memory import (  # noqa: E402
    AnnealMemoryError,
    Store,
    prepare_wrap,
    validated_save_continuity,
)
from anneal_memory.audit import AuditTrail, iter_entries  # noqa: E402


def figure(name: str, value: object) -> None:
    """Print one figure."""
    print(f"{name}: {value}", flush=True)


def writers(folder: Path, count: int, per_writer: int) -> None:
    db = folder / "writers.db"
    Store(db).close()
    log(f"writers: {count} x {per_writer}")
    started = time.perf_counter()
    children = [spawn(WRITER, str(db), f"w{n}", str(per_writer)) for n in range(count)]
    acknowledged = [ident for child in children for ident in finish(child, timeout=3600)]
    elapsed = time.perf_counter() - started
    conn = sqlite3.connect(db)
    stored = {str(r[0]) for r in conn.execute("SELECT id FROM episodes")}
    conn.close()
    recorded = [e["data"]["episode_id"] for e in iter_entries(db) if e["event"] == "record"]
    result = AuditTrail.verify(db)
    figure(f"writers {count}x{per_writer}: acknowledged", len(acknowledged))
    figure(
        f"writers {count}x{per_writer}: acknowledged but not stored",
        len(set(acknowledged) - stored),
    )
    figure(
        f"writers {count}x{per_writer}: stored without a record entry", len(stored - set(recorded))
    )
    figure(
        f"writers {count}x{per_writer}: record entries doubled", len(recorded) - len(set(recorded))
    )
    figure(f"writers {count}x{per_writer}: audit chain valid", result.valid and result.complete)
    figure(
        f"writers {count}x{per_writer}: records per second, all processes",
        round(len(acknowledged) / elapsed),
    )


def kills(folder: Path, trials: dict[str, int], rng: random.Random) -> None:
    if trials["record"]:
        db = folder / "kill-record.db"
        Store(db).close()
        for n in range(trials["record"]):
            kill_after(RECORDER, db, low=0.02, high=0.3, rng=rng)
            if n % 50 == 0:
                log(f"kill during record {n}/{trials['record']}")
        episodes, missing, doubled = record_gaps(db)
        figure(f"kill -9 during record x{trials['record']}: committed episodes", episodes)
        figure(f"kill -9 during record x{trials['record']}: silent audit gaps", missing)
        figure(f"kill -9 during record x{trials['record']}: doubled record entries", doubled)
        figure(
            f"kill -9 during record x{trials['record']}: chain valid", AuditTrail.verify(db).valid
        )
    if trials["wrap"]:
        db = folder / "kill-wrap.db"
        Store(db).close()
        for _ in range(trials["wrap"]):
            kill_after(WRAPPER, db, low=0.1, high=0.5, rng=rng)
        completed, missing = wrap_gaps(db)
        figure(f"kill -9 during wrap x{trials['wrap']}: completed wraps", completed)
        figure(f"kill -9 during wrap x{trials['wrap']}: without wrap_completed", missing)
    if trials["save"]:
        db = folder / "kill-save.db"
        Store(db).close()
        texts = {
            f"## State\n- crash test {n}\n## Patterns\n## Decisions\n## Context\n- wrap {n}\n"
            for n in range(10_000)
        }
        torn = disagree = 0
        for _ in range(trials["save"]):
            kill_after(SAVER, db, low=0.1, high=0.5, rng=rng)
            continuity = db.with_name("kill-save.continuity.md")
            if continuity.exists() and continuity.read_text(encoding="utf-8") not in texts:
                torn += 1
            disagree += not continuity_agreement(db)[0]
        with Store(db, read_only=True) as reader:
            errors = [p for p in reader.check().problems if p.severity.value == "error"]
        figure(f"kill -9 during continuity save x{trials['save']}: torn continuity files", torn)
        figure(f"kill -9 during continuity save x{trials['save']}: check errors after", len(errors))
        figure(
            f"kill -9 during continuity save x{trials['save']}: file not the committed text "
            "after reopening",
            disagree,
        )


def rename_kills(folder: Path, trials: int) -> None:
    """A child killed right after the continuity rename, before the commit, ``trials`` times."""
    db = folder / "kill-rename.db"
    Store(db).close()
    reached = disagree = left_open = silent = blamed = 0
    for n in range(trials):
        reached += kill_after_rename(db, n) == -9
        with Store(db, read_only=True) as reader:  # before any write-capable open
            report = reader.check(full=False)
        silent += report.ok
        blamed += any("edited by hand" in p.message for p in report.problems)
        agrees, open_wrap = continuity_agreement(db)
        disagree += not agrees
        left_open += open_wrap
    name = f"kill -9 after the continuity rename, before commit x{trials}"
    figure(f"{name}: kill point reached", reached)
    figure(f"{name}: check OK right after the kill", silent)
    figure(f"{name}: check blaming a hand edit", blamed)
    figure(f"{name}: file not the committed text after reopening", disagree)
    figure(f"{name}: wrap still open after reopening", left_open)


def _probe_child(db: Path, place: str, timeout: float) -> dict[str, str] | None:
    """The probe's answers from a child process; None when it hung past ``timeout``."""
    probe = HERE.parent / "tests" / "reliability" / "_sidefile_probe.py"
    env = {**os.environ, "HOME": str(db.parent / "home")}
    try:
        done = subprocess.run(
            [sys.executable, str(probe), str(db), place],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            env=env,
        )
    except subprocess.TimeoutExpired:
        return None
    lines = done.stdout.splitlines()
    if done.returncode != 0 or not lines:
        return {"child": f"Traceback: exit {done.returncode} {done.stderr[-300:]}"}
    return dict(json.loads(lines[-1]))


def files(folder: Path, timeout: float) -> None:
    """A link, a FIFO and a folder at every file beside the store, every entry point."""
    from _sidefile_probe import PLACES, SECRET, judge, place_path, plant, seed

    counts = dict.fromkeys(
        ("cases", "answers", "hangs", "appended", "leaked", "not_refused", "check_missed"), 0
    )
    counts["tracebacks"] = 0
    for place in PLACES:
        for kind in ("symlink", "fifo", "dir"):
            db = folder / f"{place}-{kind}" / "store" / "memory.db"
            outside = seed(db)
            path = place_path(db, place)
            if place == "import-input":
                outside = outside.with_name("export.json")
                outside.write_bytes(path.read_bytes())
            kept = outside.read_bytes()
            plant(path, kind, outside)
            answers = _probe_child(db, place, timeout)
            counts["cases"] += 1
            counts["appended"] += outside.read_bytes() != kept
            if answers is None:
                counts["hangs"] += 1
                log(f"files: {place} {kind}: hung")
                continue
            counts["answers"] += len(answers)
            if "child" in answers:
                counts["tracebacks"] += 1
                continue
            for what, names in judge(answers, place, path.name, SECRET).items():
                counts[what] += len(names)
    name = f"files not what they seem ({len(PLACES)} places x link, FIFO, folder)"
    figure(f"{name}: cases", counts["cases"])
    figure(f"{name}: entry-point answers", counts["answers"])
    figure(f"{name}: answers serving the outside file's text", counts["leaked"])
    figure(f"{name}: outside files changed (appended through a link)", counts["appended"])
    figure(f"{name}: hangs (FIFO, {timeout:g} s)", counts["hangs"])
    figure(f"{name}: entry points that did not refuse naming the file", counts["not_refused"])
    figure(f"{name}: check runs that did not name the file", counts["check_missed"])
    figure(f"{name}: tracebacks or crashed probes", counts["tracebacks"])


def _fuzz_loop(seconds: float, step: Callable[[int], None]) -> int:
    deadline = time.monotonic() + seconds
    n = 0
    while time.monotonic() < deadline:
        step(n)
        n += 1
    return n


_WEIRD: list[object] = [
    None,
    True,
    -1,
    0,
    2**63,
    2**70,
    -(2**70),
    1e308,
    -1e308,
    0.5,
    "",
    "x" * 5000,
    "\x00",
    "\ud800",
    "7d",
    "1e308d",
    "[",
    {"a": {"b": [1, {}]}},
    [],
    [[[[[]]]]],
    "'; DROP TABLE x; --",
    "NEAR(a b)",
    "*",
    '"',
    "\u202e",
    "0001-01-01T00:00:00Z",
]
_TOOLS = {
    "record": ["content", "episode_type", "source", "metadata", "idempotency_key"],
    "recall": ["keyword", "episode_type", "since", "until", "source", "limit", "offset"],
    "delete_episode": ["episode_id"],
    "status": [],
    "prepare_wrap": ["max_chars", "staleness_days"],
    "save_continuity": ["text", "wrap_token", "allow_shrink", "affect"],
    "wrap_cancel": ["wrap_token"],
}


def _mcp_message(rng: random.Random, n: int) -> bytes:
    roll = rng.random()
    if roll < 0.05:
        return rng.randbytes(rng.randint(1, 200)).replace(b"\n", b" ") + b"\n"
    if roll < 0.1:
        return b'{"jsonrpc":"2.0","id":' + str(n).encode() + b',"method":"tools/call"' + b"\n"
    name = rng.choice([*_TOOLS, "nope", ""])
    args = {
        key: rng.choice(_WEIRD)
        for key in rng.sample(_TOOLS.get(name, ["x"]), k=min(len(_TOOLS.get(name, ["x"])), 3))
    }
    if rng.random() < 0.3:
        args = rng.choice(_WEIRD)  # type: ignore[assignment]
    message = {
        "jsonrpc": rng.choice(["2.0", "2.0", "1.0", None]),
        "id": rng.choice([n, n, str(n), None, [n], 2**70]),
        "method": rng.choice(["tools/call", "tools/call", "tools/list", "ping", "x"]),
        "params": {"name": name, "arguments": args},
    }
    return json.dumps(message, default=str).encode("utf-8", "surrogatepass") + b"\n"


def fuzz_mcp(folder: Path, seconds: float, rng: random.Random) -> None:
    db = folder / "fuzz-mcp.db"
    Store(db).close()
    sent = crashes = dirty_stderr = tracebacks = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        init = (
            b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":'
            b'"2025-03-26","capabilities":{}}}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
        )
        batch = [_mcp_message(rng, sent + i) for i in range(200)]
        done = subprocess.run(
            [sys.executable, "-m", "anneal_memory", "--db", str(db), "serve", "--session-id", "f"],
            input=init + b"".join(batch),
            capture_output=True,
            timeout=300,
            check=False,
        )
        sent += len(batch)
        crashes += done.returncode != 0
        dirty_stderr += bool(done.stderr.strip())
        tracebacks += done.stdout.count(b"Traceback") + done.stderr.count(b"Traceback")
    figure(f"fuzz mcp {seconds:g}s: messages", sent)
    figure(f"fuzz mcp {seconds:g}s: server crashes", crashes)
    figure(f"fuzz mcp {seconds:g}s: runs with stderr output", dirty_stderr)
    figure(f"fuzz mcp {seconds:g}s: tracebacks", tracebacks)


def _mutate(rng: random.Random, value: object, depth: int = 0) -> object:
    if depth > 4 or rng.random() < 0.15:
        return rng.choice(_WEIRD)
    if isinstance(value, dict):
        out = {k: _mutate(rng, v, depth + 1) if rng.random() < 0.3 else v for k, v in value.items()}
        if rng.random() < 0.1 and out:
            out.pop(rng.choice(list(out)))
        return out
    if isinstance(value, list):
        return [_mutate(rng, v, depth + 1) if rng.random() < 0.3 else v for v in value]
    return value


def fuzz_import(folder: Path, seconds: float, rng: random.Random) -> None:
    source = folder / "fuzz-source.db"
    with Store(source) as store:
        for i in range(20):
            store.record(f"note {i}", "observation", metadata={"i": i})
        store.delete(store.recall(limit=1).episodes[0].id)
        buffer = __import__("io").StringIO()
        store.export_json(buffer)
    document = json.loads(buffer.getvalue())
    escaped: dict[str, int] = {}
    with Store(folder / "fuzz-import.db") as target:

        def step(n: int) -> None:
            candidate: object = _mutate(rng, document)
            if n % 7 == 0:
                candidate = json.dumps(candidate, default=str)[: rng.randint(0, 4000)]
            if n % 97 == 0:
                candidate = "[" * rng.randint(1000, 200_000)
            try:
                target.import_json(candidate)  # type: ignore[arg-type]
            except AnnealMemoryError:
                pass
            except Exception as exc:
                escaped[type(exc).__name__] = escaped.get(type(exc).__name__, 0) + 1

        n = _fuzz_loop(seconds, step)
    figure(f"fuzz import {seconds:g}s: documents", n)
    figure(f"fuzz import {seconds:g}s: exceptions outside the error tree", sum(escaped.values()))
    if escaped:
        figure(f"fuzz import {seconds:g}s: escaped types", escaped)


def fuzz_continuity(folder: Path, seconds: float, rng: random.Random) -> None:
    base = (
        "## State\n- fuzzing\n## Patterns\n- p | 1x (2026-03-02) [evidence: {a}]\n"
        "## Decisions\n## Context\n- x\n"
    )
    escaped: dict[str, int] = {}
    with Store(folder / "fuzz-continuity.db") as store:
        first = store.record("fuzz seed episode about sockets", "observation")
        prep = prepare_wrap(store)
        token = prep.wrap_token
        text = base.format(a=first.id)
        pieces = [
            "## ",
            "\n",
            "- ",
            "[evidence: ",
            first.id,
            "]",
            "|",
            "3x",
            "(2026-13-45)",
            "\u202e",
            "\x00",
            "🙂",
            "x" * 300,
            "## State\n",
            "## Decisions\n",
        ]

        def step(n: int) -> None:
            nonlocal token
            chars = list(text)
            for _ in range(rng.randint(1, 12)):
                at = rng.randint(0, len(chars))
                chars[at:at] = rng.choice(pieces)
            try:
                validated_save_continuity(store, "".join(chars), wrap_token=token)
                store.record(f"more {n}", "observation")
                token = prepare_wrap(store).wrap_token
            except AnnealMemoryError:
                pass
            except Exception as exc:
                escaped[type(exc).__name__] = escaped.get(type(exc).__name__, 0) + 1

        n = _fuzz_loop(seconds, step)
    figure(f"fuzz continuity {seconds:g}s: texts", n)
    figure(
        f"fuzz continuity {seconds:g}s: exceptions outside the error tree", sum(escaped.values())
    )
    if escaped:
        figure(f"fuzz continuity {seconds:g}s: escaped types", escaped)


def tamper(folder: Path) -> None:
    import pytest  # the matrix lives in the CI tier; run it here as a module

    out = folder / "tamper-report.txt"
    matrix = HERE.parent / "tests" / "reliability" / "test_tamper_matrix.py"
    with contextlib.redirect_stdout(sys.stderr):
        code = pytest.main([str(matrix), "-q", "-p", "no:cacheprovider", f"--junitxml={out}"])
    text = out.read_text(encoding="utf-8")
    total = text.count("<testcase")
    failed = text.count("<failure")
    figure("tamper matrix across 3 rotated weeks: mutations caught", f"{total - failed}/{total}")
    figure("tamper matrix: pytest exit code", int(code))


def _holding(folder: Path, needle: bytes) -> int:
    return sum(1 for p in folder.iterdir() if p.is_file() and needle in p.read_bytes())


def _raw_delete_ms(db: Path, ids: list[str]) -> float:
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA synchronous=FULL")
    times = []
    for ident in ids:
        started = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("DELETE FROM episodes WHERE id = ?", (ident,))
        conn.execute("COMMIT")
        times.append(time.perf_counter() - started)
    conn.close()
    return statistics.median(times) * 1000


def delete(folder: Path, sizes: list[int], corpus: Corpus, canaries: int) -> None:
    for size in sizes:
        db = folder / f"delete-{size}.db"
        with Store(db, audit=False) as store, store.writing("bench") as tx:
            for i, text in enumerate(corpus.texts(0, size)):
                tx.conn.execute(
                    "INSERT INTO episodes (id, ts, type, content, source) VALUES "
                    "(?, '2026-01-01T00:00:00.000000Z', 'observation', ?, 'agent')",
                    (f"{i:08x}", text),
                )
        raw = db.with_name(f"raw-{size}.db")
        shutil.copy(db, raw)
        log(f"delete at {size}")
        ours_ids = [f"{i:08x}" for i in range(0, size, max(1, size // 20))][:20]
        with Store(db, audit=False) as store:
            times = []
            for ident in ours_ids:
                started = time.perf_counter()
                store.delete(ident)
                times.append(time.perf_counter() - started)
        ours = statistics.median(times) * 1000
        plain = _raw_delete_ms(raw, ours_ids)
        figure(f"delete at {size:,} episodes: ours (purges index and WAL) p50 ms", round(ours, 2))
        figure(f"delete at {size:,} episodes: plain SQLite delete p50 ms", round(plain, 2))
        figure(f"delete at {size:,} episodes: ratio ours / plain", round(ours / plain, 1))
    found_open = found_closed = 0
    for n in range(canaries):
        sub = folder / f"canary-{n}"
        sub.mkdir()
        canary = f"zqxcanary{n:04d}k".encode()
        store = Store(sub / "memory.db")
        for i in range(50):
            store.record(f"filler {i}", "observation")
        episode = store.record(f"secret {canary.decode()} here", "observation", source=f"S{n}")
        store.record("after", "observation")
        store.delete(episode.id)
        found_open += _holding(sub, canary) > 0
        store.close()
        found_closed += _holding(sub, canary) > 0
    figure(f"canaries after delete x{canaries}: found in a file, store open", found_open)
    figure(f"canaries after delete x{canaries}: found in a file, after close", found_closed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small counts (seconds, for CI)")
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--per-writer", type=int, default=5000)
    parser.add_argument("--record-kills", type=int, default=500)
    parser.add_argument("--wrap-kills", type=int, default=30)
    parser.add_argument("--save-kills", type=int, default=30)
    parser.add_argument("--rename-kills", type=int, default=30, help="--quick: 2")
    parser.add_argument("--file-timeout", type=float, default=30.0, help="seconds = a hang")
    parser.add_argument("--fuzz-seconds", type=float, default=600.0)
    parser.add_argument("--delete-sizes", default="10000,100000")
    parser.add_argument("--canaries", type=int, default=20)
    parser.add_argument("--trust-rounds", type=int, default=200)
    parser.add_argument("--input-rounds", type=int, default=200, help="random hostile texts")
    parser.add_argument("--restore-rounds", type=int, default=50, help="random stores")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--only", default="", help="comma list of parts to run")
    args = parser.parse_args()
    if args.quick:
        args.writers, args.per_writer = 2, 50
        args.record_kills, args.wrap_kills, args.save_kills = 3, 2, 2
        args.fuzz_seconds, args.delete_sizes, args.canaries = 2.0, "1000", 2
        args.trust_rounds = 10
    rng = random.Random(args.seed)
    only = set(filter(None, args.only.split(",")))
    parts: dict[str, Callable[[Path], None]] = {
        "writers": lambda f: writers(f, args.writers, args.per_writer),
        "kills": lambda f: kills(
            f, {"record": args.record_kills, "wrap": args.wrap_kills, "save": args.save_kills}, rng
        ),
        "fuzz": lambda f: (
            fuzz_mcp(f, args.fuzz_seconds, rng),
            fuzz_import(f, args.fuzz_seconds, rng),
            fuzz_continuity(f, args.fuzz_seconds, rng),
        ),
        "tamper": tamper,
        "files": lambda f: files(f, args.file_timeout),
        "rename": lambda f: rename_kills(f, 2 if args.quick else args.rename_kills),
        "delete": lambda f: delete(
            f, [int(s) for s in args.delete_sizes.split(",") if s], Corpus(seed=42), args.canaries
        ),
        "trust": lambda f: trust_pairs(f, args.trust_rounds, rng, figure),
        "inputs": lambda f: inputs(f, 5 if args.quick else args.input_rounds, rng, figure),
        "newer": lambda f: newer(f, figure),
        "restore": lambda f: restore(f, 3 if args.quick else args.restore_rounds, rng, figure),
    }
    with tempfile.TemporaryDirectory(prefix="battery-") as tmp:
        for name, run in parts.items():
            if only and name not in only:
                continue
            folder = Path(tmp) / name
            folder.mkdir()
            started = time.perf_counter()
            run(folder)
            log(f"{name} done in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
