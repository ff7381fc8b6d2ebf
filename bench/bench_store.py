#!/usr/bin/env python3
"""Side-by-side store benchmark: our Store vs a raw-SQLite floor (vs anneal-memory 1.0.2).

Everything runs in ONE run with calls interleaved call by call (the order rotates every
call), so machine noise hits all targets alike; read the ratios, not absolute milliseconds.

Targets
  raw     sqlite3, WAL, synchronous=FULL, ``episodes`` table + FTS5 external-content index
          (tokenize='porter unicode61', as ours) kept by an AFTER INSERT trigger.
          ``--floor full+audit`` adds, per record, one SHA-256-chained JSONL audit line,
          flushed and fsynced (the durability of a store with an audit trail);
          ``--floor auto`` (default) picks full+audit when our store leaves an audit file
          beside its database after a record, else full. The choice is printed.
  ours    ``anneal_memory.Store`` of this interpreter (Store.record / Store.recall).
  upstream  with ``--upstream-python PATH``: anneal-memory 1.0.2 (its README API, audit
          on) in a worker subprocess of that interpreter; the worker times each call itself,
          so pipe overhead is not counted, and its calls stay interleaved with ours.
  baseline  with ``--baseline-src [NAME=]DIR`` (record phase only, repeatable): our Store
          from another source tree (e.g. ``git archive`` of an older commit), in a worker like
          upstream's, so a change is measured before and after in one interleaved run.

Phases
  record   --record-n single durable writes per target.
  scaling  for each size in --sizes (1M added by --million): every target is bulk-filled to
           that size with the same seeded Zipf rows (raw: executemany; ours: import_json;
           upstream: Store.record inside its private _batch() with audit off), then
           recall:  our recall(keyword, limit=10) and upstream's vs the raw FTS5 top-10
                    ``MATCH '"w"' ORDER BY rank LIMIT 10``, 5 words per band
                    (common ~1.3 % of rows, mid ~0.5 %, rare ~0.05 %) x --reps, and
                    five 8-word natural questions (``question``: a common, a mid and a
                    rare word in an everyday frame; the raw floor ORs the 8 words);
           open:    close + open (raw: close + sqlite3.connect + the same PRAGMAs; ours:
                    close + Store(path); upstream: close + Store(path)).

Usage:
  .venv/bin/python bench/bench_store.py [--record-n 3000] [--sizes 10000,100000]
      [--million] [--reps 5] [--floor auto|full|full+audit]
      [--upstream-python /work/venv-upstream/bin/python] [--baseline-src [NAME=]DIR ...]
      [--quick] [--out f.json]
Prints ONE JSON summary on stdout (progress on stderr). Seeded (--seed 42).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import BANDS, Corpus, emit, log, machine_facts, ratio, rotate, summarize

# The single-word bands, then 8-word natural questions (``questions``).
QUERY_BANDS = (*BANDS, "question")


def questions(corpus: Corpus) -> list[str]:
    """Five 8-word natural questions: three seeded corpus words each (a common, a mid and a
    rare one) in an everyday frame, the shape an agent passes to recall."""
    c, m, r = (corpus.query_words(b) for b in BANDS)
    frames = (
        "what did we decide about {} {} {}",
        "why did the {} fail with {} {}",
        "when was the {} {} {} last changed",
        "who asked about {} and {} during {}",
        "how should we handle {} {} or {}",
    )
    return [f.format(c[i], m[i], r[i]) for i, f in enumerate(frames)]


_STOP = frozenset(
    {"what", "did", "we", "about", "why", "the", "with", "when", "was", "who", "and"}
    | {"during", "how", "should", "or", "last"}
)


def raw_match(query: str) -> str:
    """The raw floor's FTS5 expression: a word as a phrase; a question as its words OR-ed,
    common English function words left out (as any keyword search would)."""
    words = query.split()
    return " OR ".join(f'"{w}"' for w in words if len(words) == 1 or w not in _STOP)


pc = time.perf_counter
_BASE_TS = 1_700_000_000


def iso(i: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(_BASE_TS + i)) + ".000000Z"


# ------------------------------------------------------------------------------ raw floor

RAW_SCHEMA = """
CREATE TABLE IF NOT EXISTS episodes(id INTEGER PRIMARY KEY, ts TEXT NOT NULL,
    type TEXT NOT NULL, content TEXT NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS episodes_fts USING fts5(content, content='episodes',
    content_rowid='id', tokenize='porter unicode61');
CREATE TRIGGER IF NOT EXISTS episodes_ai AFTER INSERT ON episodes BEGIN
  INSERT INTO episodes_fts(rowid, content) VALUES (new.id, new.content);
END;
"""
RAW_INSERT = "INSERT INTO episodes(ts, type, content) VALUES (?, 'observation', ?)"
RAW_TOP10 = "SELECT rowid, rank FROM episodes_fts WHERE episodes_fts MATCH ? ORDER BY rank LIMIT 10"
RAW_COUNT = "SELECT count(*) FROM episodes_fts WHERE episodes_fts MATCH ?"


class Raw:
    name = "raw"

    def __init__(self, audit: bool) -> None:
        self.audit = audit

    def open(self, d: str) -> None:
        self.db = os.path.join(d, "raw.db")
        self.audit_path = os.path.join(d, "raw.audit.jsonl")
        self._connect()
        self.conn.executescript(RAW_SCHEMA)
        self.conn.commit()
        self.prev, self.seq, self.n = "0" * 64, 0, 0

    def _connect(self) -> None:
        self.conn = sqlite3.connect(self.db)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=FULL")
        self.af = open(self.audit_path, "a", encoding="utf-8") if self.audit else None  # noqa: SIM115

    def _audit_line(self, data: dict) -> None:
        entry = {
            "seq": self.seq,
            "ts": iso(self.seq),
            "event": "record",
            "actor": "agent",
            "data": data,
            "prev": self.prev,
        }
        body = json.dumps(entry, sort_keys=True, separators=(",", ":"))
        h = hashlib.sha256(body.encode()).hexdigest()
        self.af.write(body[:-1] + f',"hash":"{h}"}}\n')
        self.af.flush()
        os.fsync(self.af.fileno())
        self.prev, self.seq = h, self.seq + 1

    def record(self, text: str) -> float:
        s = pc()
        cur = self.conn.execute(RAW_INSERT, (iso(self.n), text))
        self.conn.commit()
        if self.audit:
            self._audit_line(
                {
                    "episode_id": cur.lastrowid,
                    "type": "observation",
                    "content_sha256": hashlib.sha256(text.encode()).hexdigest(),
                }
            )
        dt = pc() - s
        self.n += 1
        return dt

    def fill(self, texts: list[str]) -> None:
        for s in range(0, len(texts), 10_000):
            self.conn.executemany(
                RAW_INSERT, [(iso(self.n + i), x) for i, x in enumerate(texts[s : s + 10_000])]
            )
            self.conn.commit()
            self.n += len(texts[s : s + 10_000])

    def recall(self, word: str) -> tuple[float, int, int]:
        s = pc()
        rows = self.conn.execute(RAW_TOP10, (raw_match(word),)).fetchall()
        dt = pc() - s
        total = self.conn.execute(RAW_COUNT, (raw_match(word),)).fetchone()[0]
        return dt, len(rows), total

    def reopen(self) -> float:
        s = pc()
        self.close()
        self._connect()
        return pc() - s

    def close(self) -> None:
        self.conn.close()
        if self.af:
            self.af.close()


# ------------------------------------------------------------------------- Store targets


class Ours:
    """Our Store (also the upstream worker's target, with upstream=True)."""

    name = "ours"

    def __init__(self, upstream: bool = False) -> None:
        import anneal_memory

        self.mod = anneal_memory
        self.upstream = upstream
        self.version = getattr(anneal_memory, "__version__", "?")

    def _store(self, audit: bool = True):
        if self.upstream:
            return self.mod.Store(self.db, project_name="Bench", audit=audit)
        return self.mod.Store(self.db, project_name="Bench")

    def open(self, d: str) -> None:
        self.dir = d
        self.db = os.path.join(d, "memory.db")
        self.store = self._store()
        self.n = 0
        self.recorded: set[str] = set()  # fill's made-up ids must not hit these random ones

    def record(self, text: str) -> float:
        s = pc()
        episode = self.store.record(text, "observation")
        dt = pc() - s
        self.recorded.add(getattr(episode, "id", ""))
        self.n += 1
        return dt

    def _fill_id(self, n: int) -> str:
        ident = f"{0x10000000 + n:08x}"
        # A clash with a recorded id moves to a range random draws shared only by chance.
        return ident if ident not in self.recorded else f"{0xF0000000 + n:08x}"

    def fill(self, texts: list[str]) -> None:
        if self.upstream:
            self.store.close()
            st = self._store(audit=False)
            for s in range(0, len(texts), 5000):
                with st._batch():
                    for t in texts[s : s + 5000]:
                        st.record(t, "observation")
            st.close()
            self.store = self._store()
            self.n += len(texts)
            return
        for s in range(0, len(texts), 10_000):
            chunk = texts[s : s + 10_000]
            eps = [
                {
                    "id": self._fill_id(self.n + i),
                    "timestamp": iso(self.n + i),
                    "type": "observation",
                    "content": t,
                    "source": "agent",
                    "metadata": {},
                    "idempotency_key": None,
                }
                for i, t in enumerate(chunk)
            ]
            self.store.import_json(
                {
                    "format": "anneal-memory-export",
                    "format_version": 1,
                    "episodes": eps,
                    "tombstones": [],
                }
            )
            self.n += len(chunk)

    def recall(self, word: str) -> tuple[float, int, int]:
        s = pc()
        r = self.store.recall(keyword=word, limit=10)
        dt = pc() - s
        return dt, len(r.episodes), r.total_matching

    def reopen(self) -> float:
        s = pc()
        self.store.close()
        self.store = self._store()
        return pc() - s

    def close(self) -> None:
        self.store.close()

    def side_files(self) -> list[str]:
        return sorted(
            f for f in os.listdir(self.dir) if not f.startswith("memory.db") and "lock" not in f
        )


class Remote:
    """Proxy for a target living in a worker subprocess (JSON lines over pipes)."""

    def __init__(self, name: str, python: str, src: str | None = None) -> None:
        self.name = name
        env = None
        if src is not None:  # another source tree of our package, ahead of the installed one
            env = {**os.environ, "PYTHONPATH": os.path.abspath(src)}
        self.proc = subprocess.Popen(
            [python, os.path.abspath(__file__), "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
            env=env,
        )
        self.version = self._call("version")

    def _call(self, op: str, *args):
        self.proc.stdin.write(json.dumps([op, *args]) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.name} worker died (rc={self.proc.poll()})")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"{self.name} worker: {reply['error']}")
        return reply["r"]

    def open(self, d: str) -> None:
        self._call("open", d)

    def record(self, text: str) -> float:
        return self._call("record", text)

    def fill(self, texts: list[str]) -> None:
        for s in range(0, len(texts), 50_000):
            self._call("fill", texts[s : s + 50_000])

    def recall(self, word: str) -> tuple[float, int, int]:
        return tuple(self._call("recall", word))

    def reopen(self) -> float:
        return self._call("reopen")

    def close(self) -> None:
        self._call("close")
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def worker() -> None:
    target = Ours(upstream=True)
    for line in sys.stdin:
        op, *args = json.loads(line)
        try:
            r = target.version if op == "version" else getattr(target, op)(*args)
            out = {"r": r}
        except Exception as exc:
            out = {"error": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


# ------------------------------------------------------------------------------ phases


def phase_record(targets: list, texts: list[str]) -> dict:
    times: dict[str, list[float]] = {t.name: [] for t in targets}
    for i, text in enumerate(texts):
        for t in rotate(targets, i):
            times[t.name].append(t.record(text))
    return {
        name: summarize(xs) | {"records_per_s": round(len(xs) / sum(xs), 1)}
        for name, xs in times.items()
    }


def phase_recall(targets: list, corpus: Corpus, reps: int) -> dict:
    out: dict = {}
    i = 0
    for band in QUERY_BANDS:
        times: dict[str, list[float]] = {t.name: [] for t in targets}
        matches: dict[str, list] = {t.name: [] for t in targets}
        words = questions(corpus) if band == "question" else corpus.query_words(band)
        for w in words:
            for r in range(reps):
                for t in rotate(targets, i):
                    dt, n, total = t.recall(w)
                    times[t.name].append(dt)
                    if r == 0:
                        matches[t.name].append([n, total])
                i += 1
        out[band] = {name: summarize(xs) for name, xs in times.items()}
        out[band]["_words"] = words
        out[band]["_returned_and_total"] = matches
    return out


def phase_open(targets: list, reps: int) -> dict:
    times: dict[str, list[float]] = {t.name: [] for t in targets}
    for r in range(reps):
        for t in rotate(targets, r):
            times[t.name].append(t.reopen())
    return {name: summarize(xs) for name, xs in times.items()}


def ratios(res: dict) -> dict:
    r: dict = {}
    rec = res.get("record", {})
    for name in [n for n in rec if n != "raw"]:
        if name in rec:
            r[f"record_p50:{name}/raw_floor"] = ratio(
                rec[name]["median_ms"], rec["raw"]["median_ms"]
            )
            r[f"record_p99:{name}/raw_floor"] = ratio(rec[name]["p99_ms"], rec["raw"]["p99_ms"])
    for size, st in res.get("scaling", {}).items():
        for band in QUERY_BANDS:
            q = st["recall"][band]
            for name in ("ours", "upstream"):
                if name in q:
                    r[f"recall_p50@{size}:{band}:{name}/raw_fts5_top10"] = ratio(
                        q[name]["median_ms"], q["raw"]["median_ms"]
                    )
        for name in ("ours", "upstream"):
            if name in st["open"]:
                r[f"open_p50@{size}:{name}/raw"] = ratio(
                    st["open"][name]["median_ms"], st["open"]["raw"]["median_ms"]
                )
    return r


def goals(r: dict) -> dict:
    """The issue's goals for ours, each with its measured ratio and whether it is met."""
    out: dict = {}
    rec = r.get("record_p50:ours/raw_floor")
    if rec is not None:
        out["record_p50 <= 1.25x raw floor"] = {"ratio": rec, "met": rec <= 1.25}
    for band in BANDS:
        v = r.get(f"recall_p50@100000:{band}:ours/raw_fts5_top10")
        if v is not None:
            out[f"recall_p50@100k {band} <= 3x raw FTS5 top-10"] = {"ratio": v, "met": v <= 3}
    v = r.get("open_p50@100000:ours/raw")
    if v is not None:
        out["open_p50@100k <= 2x raw"] = {"ratio": v, "met": v <= 2}
    return out


def _baselines(specs: list[str], tmp: str, res: dict) -> list:
    """The ``--baseline-src [NAME=]DIR`` targets (record phase only), opened."""
    out = []
    for spec in specs:
        name, _, src = spec.rpartition("=")
        target = Remote(name or "baseline", sys.executable, src=src)
        res["versions"][target.name] = f"{target.version} from {src}"
        d = os.path.join(tmp, target.name)
        os.makedirs(d)
        target.open(d)
        out.append(target)
    return out


def choose_floor(arg: str, tmp: str) -> tuple[str, str]:
    if arg != "auto":
        return arg, "set by --floor"
    probe = Ours()
    d = os.path.join(tmp, "probe")
    os.makedirs(d)
    probe.open(d)
    probe.record("probe episode")
    files = probe.side_files()
    probe.close()
    audit = [f for f in files if "audit" in f]
    if audit:
        return "full+audit", f"our store wrote an audit file ({audit[0]})"
    return "full", "our store wrote no audit file beside its database"


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--record-n", type=int, default=3000)
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--million", action="store_true", help="add a 1,000,000-episode stage")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--open-reps", type=int, default=15)
    ap.add_argument("--floor", choices=("auto", "full", "full+audit"), default="auto")
    ap.add_argument("--upstream-python", default=None)
    ap.add_argument(
        "--upstream-max-size",
        type=int,
        default=100_000,
        help="leave upstream out of larger stages (its LIKE recall at 1M takes seconds)",
    )
    ap.add_argument(
        "--baseline-src",
        action="append",
        default=[],
        metavar="[NAME=]DIR",
        help="a source folder of anneal_memory (e.g. an older commit's packages/anneal-core/"
        "src): its Store joins the record phase as NAME (default 'baseline'), in a worker "
        "of this Python; repeatable",
    )
    ap.add_argument("--skip", default="", help="comma list of record,scaling")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--quick", action="store_true", help="small smoke run")
    ap.add_argument("--tmpdir", default=None)
    ap.add_argument("--out", default=None)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker()
        return
    if args.quick:
        args.record_n, args.sizes, args.reps, args.open_reps = 200, "2000,5000", 2, 3
    sizes = [int(s) for s in args.sizes.split(",") if s]
    if args.million:
        sizes.append(1_000_000)
    skip = set(filter(None, args.skip.split(",")))
    corpus = Corpus(seed=args.seed)
    tmp = tempfile.mkdtemp(prefix="bench-store-", dir=args.tmpdir)
    t0 = time.time()
    res: dict = {
        "bench": "store_side_by_side",
        "machine": machine_facts(),
        "params": {k: v for k, v in vars(args).items() if k not in ("out", "tmpdir", "worker")},
    }
    targets: list = []
    try:
        floor, why = choose_floor(args.floor, tmp)
        res["floor"] = {
            "mode": floor,
            "why": why,
            "raw": "WAL, synchronous=FULL, FTS5 trigger"
            + (", + 1 sha256-chained JSONL line fsynced" if floor != "full" else ""),
        }
        log(f"floor: {floor} ({why})")
        targets = [Raw(audit=floor == "full+audit"), Ours()]
        if args.upstream_python:
            targets.append(Remote("upstream", args.upstream_python))
        res["versions"] = {t.name: getattr(t, "version", None) for t in targets}
        for t in targets:
            d = os.path.join(tmp, t.name)
            os.makedirs(d)
            t.open(d)
        texts = corpus.texts(0, max([args.record_n, *sizes]))
        have = 0
        if "record" not in skip:
            log(f"record: {args.record_n:,} per target, interleaved")
            baseline = _baselines(args.baseline_src, tmp, res)
            try:
                res["record"] = phase_record(targets + baseline, texts[: args.record_n])
            finally:
                for t in baseline:
                    t.close()
            have = args.record_n
        if "scaling" not in skip:
            res["scaling"] = {}
            for size in sizes:
                st: dict = {"fill_s": {}}
                active = [
                    t for t in targets if t.name != "upstream" or size <= args.upstream_max_size
                ]
                if size > have:
                    for t in active:
                        log(f"fill {t.name}: {have:,} -> {size:,}")
                        s = pc()
                        t.fill(texts[have:size])
                        st["fill_s"][t.name] = round(pc() - s, 2)
                    have = size
                log(f"recall @ {size:,}")
                st["recall"] = phase_recall(active, corpus, args.reps)
                log(f"open @ {size:,}")
                st["open"] = phase_open(active, args.open_reps)
                res["scaling"][str(size)] = st
    finally:
        for t in targets:
            try:
                t.close()
            except Exception as exc:
                log(f"close {t.name}: {exc}")
        shutil.rmtree(tmp, ignore_errors=True)
    res["ratios"] = ratios(res)
    res["goals"] = goals(res["ratios"])
    res["wall_s"] = round(time.time() - t0, 1)
    res["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    emit(res, args.out)


if __name__ == "__main__":
    main()
