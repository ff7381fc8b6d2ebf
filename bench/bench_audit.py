#!/usr/bin/env python3
"""Audit trail benchmark: verify throughput and the cost of auditing a record.

Phases
  verify   a 10,000-entry trail (record-shaped entries, one file) is written once; our
           ``AuditTrail.verify`` walks it --reps times (best and median entries/s). With
           ``--upstream-python`` (default /work/venv-upstream/bin/python, skipped if absent)
           anneal-memory 1.0.2's ``AuditTrail.verify`` walks the SAME files in a worker
           subprocess that times itself, one walk per request, interleaved with ours (the
           order flips every round), so load hits both alike.
  record   p50 of ``Store.record`` with the audit on, interleaved call by call with a raw
           floor: INSERT + COMMIT on SQLite (WAL, synchronous=FULL) plus one SHA-256-chained
           JSONL line written and fsynced (the floor's table has the store's FTS5 index and
           trigger, as in bench_store.py). Also, to split the cost: ``Store.record`` with
           ``audit=False``, the floor's line alone, and ``AuditTrail.append`` alone.

Usage:  .venv/bin/python bench/bench_audit.py [--entries 10000] [--reps 5] [--record-n 400]
Prints ONE JSON summary on stdout.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sqlite3
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from anneal_memory import AuditTrail, EpisodeType, Store
from anneal_memory.audit._chain import GENESIS_HASH, link_hash
from anneal_memory.audit._events import AuditEvent, encode_entry

UPSTREAM_WORKER = r"""
import json, sys, time
from anneal_memory import AuditTrail
for line in sys.stdin:  # one walk per line, so the caller interleaves them with its own
    t = time.perf_counter()
    r = AuditTrail.verify(sys.argv[1])
    took = time.perf_counter() - t
    print(json.dumps({"valid": r.valid, "total": r.total_entries, "seconds": took,
                      "error": getattr(r, "error", None)}), flush=True)
"""


def write_trail(db: Path, entries: int) -> None:
    prev = GENESIS_HASH
    lines = []
    for seq in range(entries):
        _entry, line = encode_entry(
            seq=seq,
            ts=f"2026-03-02T09:{seq // 6000 % 60:02d}:{seq // 100 % 60:02d}.{seq:06d}Z",
            event=AuditEvent.RECORD,
            actor="agent",
            data={
                "episode_id": f"{seq:08x}",
                "type": "observation",
                "content_hash": "hmac-sha256:" + hashlib.sha256(str(seq).encode()).hexdigest(),
            },
            prev_hash=prev,
        )
        lines.append(line)
        prev = link_hash(line)
    db.with_name(db.stem + ".audit.jsonl").write_bytes(b"".join(x + b"\n" for x in lines))


def bench_verify(db: Path, entries: int, reps: int, upstream: str | None) -> dict[str, object]:
    """Our walks and 1.0.2's alternate (the order flips every round), on the same files."""
    write_trail(db, entries)
    worker = None
    if upstream and Path(upstream).exists():
        worker = subprocess.Popen(
            [upstream, "-c", UPSTREAM_WORKER, str(db)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tempfile.gettempdir(),
        )
    ours: list[float] = []
    theirs: list[dict[str, object]] = []

    def walk_ours() -> None:
        start = time.perf_counter()
        result = AuditTrail.verify(db)
        ours.append(time.perf_counter() - start)
        assert result.valid, result
        assert result.total_entries == entries, result

    def walk_theirs() -> None:
        assert worker is not None
        assert worker.stdin is not None
        assert worker.stdout is not None
        worker.stdin.write("walk\n")
        worker.stdin.flush()
        line = worker.stdout.readline()
        if not line:
            raise RuntimeError(
                f"1.0.2's worker died: {worker.stderr.read() if worker.stderr else ''}"
            )
        theirs.append(json.loads(line))

    for i in range(reps):
        order = [walk_ours, walk_theirs] if worker is not None else [walk_ours]
        for walk in order if i % 2 == 0 else order[::-1]:
            walk()
    out: dict[str, object] = {
        "entries": entries,
        "interleaved": worker is not None,
        "ours_entries_per_s_best": round(entries / min(ours)),
        "ours_entries_per_s_median": round(entries / statistics.median(ours)),
    }
    if worker is not None:
        assert worker.stdin is not None
        worker.stdin.close()
        worker.wait(timeout=60)
        seconds = [float(str(t["seconds"])) for t in theirs]
        out["upstream_valid"] = all(t["valid"] for t in theirs)
        out["upstream_total_entries"] = theirs[0]["total"]
        out["upstream_entries_per_s_best"] = round(entries / min(seconds))
        out["upstream_entries_per_s_median"] = round(entries / statistics.median(seconds))
        out["ratio_ours_to_upstream_median"] = round(
            statistics.median(seconds) / statistics.median(ours), 3
        )
        if not out["upstream_valid"]:
            out["upstream_error"] = theirs[0]["error"]
    else:
        out["upstream"] = "skipped: no upstream interpreter"
    return out


class RawFloor:
    """INSERT + COMMIT (WAL, synchronous=FULL, FTS5 index kept by a trigger, as the store's
    schema) and one fsynced SHA-256-chained JSONL line."""

    def __init__(self, folder: Path) -> None:
        self.conn = sqlite3.connect(folder / "raw.db", isolation_level=None)
        for pragma in ("journal_mode=WAL", "synchronous=FULL"):
            self.conn.execute(f"PRAGMA {pragma}")
        self.conn.execute(
            "CREATE TABLE episodes (seq INTEGER PRIMARY KEY, id TEXT UNIQUE, ts TEXT,"
            " type TEXT, content TEXT, source TEXT)"
        )
        self.conn.execute(
            "CREATE VIRTUAL TABLE episodes_fts USING fts5(content, content='episodes',"
            " content_rowid='seq', tokenize='porter unicode61')"
        )
        self.conn.execute(
            "CREATE TRIGGER episodes_ai AFTER INSERT ON episodes BEGIN"
            " INSERT INTO episodes_fts(rowid, content) VALUES (new.seq, new.content); END"
        )
        self.fd = os.open(folder / "raw.audit.jsonl", os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        self.prev = GENESIS_HASH
        self.seq = 0

    def record(self, content: str) -> None:
        ident = os.urandom(4).hex()
        self.conn.execute("BEGIN IMMEDIATE")
        self.conn.execute(
            "INSERT INTO episodes (id, ts, type, content, source) VALUES (?, ?, ?, ?, ?)",
            (ident, "2026-03-02T09:00:00.000000Z", "observation", content, "agent"),
        )
        self.conn.execute("COMMIT")
        self.line(content, ident)

    def line(self, content: str, ident: str = "0a1b2c3d") -> None:
        ts = "2026-03-02T09:00:00.000000Z"
        line = json.dumps(
            {
                "v": 1,
                "seq": self.seq,
                "ts": ts,
                "event": "record",
                "actor": "agent",
                "data": {
                    "episode_id": ident,
                    "content_hash": hashlib.sha256(content.encode()).hexdigest(),
                },
                "prev_hash": self.prev,
            },
            sort_keys=True,
            separators=(",", ":"),
        ).encode()
        os.write(self.fd, line + b"\n")
        os.fsync(self.fd)
        self.prev = "sha256:" + hashlib.sha256(line).hexdigest()
        self.seq += 1


def bench_record(folder: Path, n: int) -> dict[str, object]:
    raw = RawFloor(folder)
    (folder / "trail").mkdir()
    trail = AuditTrail(folder / "trail" / "memory.db")
    audited = Store(folder / "audited" / "memory.db")
    plain = Store(folder / "plain" / "memory.db", audit=False)
    targets = {
        "raw_floor": raw.record,
        "record_audit_on": lambda text: audited.record(text, EpisodeType.OBSERVATION),
        "record_audit_off": lambda text: plain.record(text, EpisodeType.OBSERVATION),
        "raw_line_only": raw.line,
        "trail_append_only": lambda text: trail.append(
            "record", actor="agent", data={"episode_id": "0a1b2c3d", "content_hash": text}
        ),
    }
    samples: dict[str, list[float]] = {name: [] for name in targets}
    names = list(targets)
    for i in range(n):
        text = f"note {i}: the connection pool ran out of handles under load"
        shift = i % len(names)
        for name in names[shift:] + names[:shift]:
            start = time.perf_counter()
            targets[name](text)
            samples[name].append(time.perf_counter() - start)
    audited.close()
    plain.close()
    trail.close()
    p50 = {name: statistics.median(values) * 1000 for name, values in samples.items()}
    assert AuditTrail.verify(folder / "audited" / "memory.db").valid
    return {
        "n": n,
        "p50_ms": {name: round(value, 3) for name, value in p50.items()},
        "ratio_audit_on_vs_floor": round(p50["record_audit_on"] / p50["raw_floor"], 3),
        "ratio_trail_append_vs_raw_line": round(p50["trail_append_only"] / p50["raw_line_only"], 3),
        "goal_ratio_max": 1.25,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--record-n", type=int, default=400)
    parser.add_argument("--upstream-python", default="/work/venv-upstream/bin/python")
    parser.add_argument("--quick", action="store_true", help="1,000 entries, 2 reps, 40 records")
    args = parser.parse_args()
    if args.quick:
        args.entries, args.reps, args.record_n = 1_000, 2, 40
    with tempfile.TemporaryDirectory(prefix="bench-audit-", dir=Path.cwd()) as folder:
        root = Path(folder)
        (root / "verify").mkdir()
        verify_db = root / "verify" / "memory.db"
        summary = {
            "verify": bench_verify(verify_db, args.entries, args.reps, args.upstream_python),
            "record": bench_record(root, args.record_n),
        }
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
