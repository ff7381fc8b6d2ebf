"""Shared helpers for the bench scripts (stdlib only; not part of any package).

* ``Corpus``: seeded English-like text. A fixed vocabulary (about 240 real words at the top
  ranks, then seeded pseudo-words, 50,000 in all) sampled with a Zipf law (weight 1/rank);
  24-36 words (~190 characters) per row. Row ``i`` is the same whichever call produces it.
  ``query_words(band)``: 5 keywords of >= 5 letters from fixed ranks: ``common`` (~1.3 % of
  rows), ``mid`` (~0.5 %), ``rare`` (~0.05 %). Same method as the team's reference scripts
  in ``shared/tools/bench``, so figures are comparable with ``ANCHORS.md``.
* ``summarize(seconds)``: n, median, min, max, mean, p90, p99 in milliseconds.
* ``machine_facts()``, ``ratio()``, ``emit()``, ``log()``, ``rotate()``.
"""

from __future__ import annotations

import json
import os
import platform
import random
import sqlite3
import statistics
import sys
import time

REAL_WORDS = """
the of and to a in is that for it as was with be by on not he this are or his
from at which but have an they you were her she there been one all we their has
would when if so no will can more who what up said out about into them then
some could time only new other these two may first any like now my such over
very just our also been than its most made after where over many before must
through back years much way well down should because each those people how too
little state good very make world still own see men work long get here between
both life being under never day same another know while last might great old
year off come since against go came right used take three memory agent session
database connection pool latency query index cache decision pattern error
schema record recall episode audit trail file server client request response
test build deploy config token budget wrap continuity citation evidence
migration release version branch commit review issue user task plan tool
network timeout retry lock write read batch commit transaction journal sync
""".split()  # noqa: SIM905

BANDS = ("common", "mid", "rare")


def _pseudo_words(n: int, rng: random.Random, taken: set[str]) -> list[str]:
    onsets = [
        "b",
        "c",
        "d",
        "f",
        "g",
        "h",
        "k",
        "l",
        "m",
        "n",
        "p",
        "r",
        "s",
        "t",
        "v",
        "w",
        "br",
        "ch",
        "cl",
        "dr",
        "gr",
        "pl",
        "st",
        "tr",
        "th",
    ]
    vowels = ["a", "e", "i", "o", "u", "a", "e", "i", "o", "ea", "ou"]
    codas = ["", "", "", "n", "r", "s", "l", "t", "m", "nd", "st", "rk"]
    out: list[str] = []
    while len(out) < n:
        syl = rng.choice((1, 2, 2, 2, 3, 3, 3, 4))
        w = "".join(rng.choice(onsets) + rng.choice(vowels) for _ in range(syl))
        w += rng.choice(codas)
        if len(w) >= 3 and w not in taken:
            taken.add(w)
            out.append(w)
    return out


class Corpus:
    """Deterministic Zipf text, generated in seeded blocks of 1000 rows."""

    TABLE_BITS = 21

    def __init__(self, seed: int = 42, vocab_size: int = 50_000) -> None:
        self.seed = seed
        self.words_min, self.words_max = 24, 36
        rng = random.Random(seed)
        uniq: list[str] = []
        taken: set[str] = set()
        for w in REAL_WORDS:
            if w not in taken:
                taken.add(w)
                uniq.append(w)
        self.vocab = uniq + _pseudo_words(vocab_size - len(uniq), rng, taken)
        weights = [1.0 / r for r in range(1, len(self.vocab) + 1)]
        total = sum(weights)
        m = 1 << self.TABLE_BITS
        table: list[str] = []
        acc = 0.0
        for w, p in zip(self.vocab, weights, strict=True):
            acc += p
            end = min(m, round(acc / total * m))
            if end > len(table):
                table.extend([w] * (end - len(table)))
        table.extend([self.vocab[-1]] * (m - len(table)))
        self._table = table

    def texts(self, start: int, count: int) -> list[str]:
        """Rows start .. start+count-1."""
        out: list[str] = []
        table, bits = self._table, self.TABLE_BITS
        i, end = start, start + count
        while i < end:
            block = i // 1000
            rng = random.Random(self.seed * 1_000_003 + block)
            gb = rng.getrandbits
            lens = [rng.randint(self.words_min, self.words_max) for _ in range(1000)]
            words = [table[gb(bits)] for _ in range(sum(lens))]
            pos = 0
            rows = []
            for n in lens:
                chunk = words[pos : pos + n]
                pos += n
                chunk[0] = chunk[0].capitalize()
                rows.append(" ".join(chunk) + ".")
            lo = i - block * 1000
            hi = min(1000, end - block * 1000)
            out.extend(rows[lo:hi])
            i = block * 1000 + hi
        return out

    def query_words(self, band: str, k: int = 5) -> list[str]:
        """k keywords of >= 5 letters from a frequency band (see module docstring)."""
        base = {"common": 190, "mid": 500, "rare": 5000}[band]
        return [w for w in self.vocab[base:] if len(w) >= 5][:k]


def summarize(seconds: list[float]) -> dict:
    if not seconds:
        return {"n": 0}
    xs = sorted(seconds)
    n = len(xs)

    def pct(p: float) -> float:
        return xs[min(n - 1, round(p * (n - 1)))]

    return {
        "n": n,
        "median_ms": round(statistics.median(xs) * 1e3, 4),
        "min_ms": round(xs[0] * 1e3, 4),
        "max_ms": round(xs[-1] * 1e3, 4),
        "mean_ms": round(statistics.fmean(xs) * 1e3, 4),
        "p90_ms": round(pct(0.90) * 1e3, 4),
        "p99_ms": round(pct(0.99) * 1e3, 4),
    }


def machine_facts() -> dict:
    cpu = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu or platform.processor(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "loadavg_1_5_15": [round(x, 2) for x in os.getloadavg()],
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def ratio(a: float | None, b: float | None) -> float | None:
    if not a or not b:
        return None
    return round(a / b, 3)


def rotate(seq: list, i: int) -> list:
    k = i % len(seq) if seq else 0
    return seq[k:] + seq[:k]


def emit(summary: dict, out: str | None) -> None:
    text = json.dumps(summary, indent=2)
    print(text)
    if out:
        with open(out, "w", encoding="utf-8") as f:
            f.write(text + "\n")


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)
