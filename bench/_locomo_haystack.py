"""``locomo_recall.py --haystack``: quality and cost with N newer distractor episodes.

For each conversation and each size N a cached store holds the conversation's turns, then N
newer distractors (``_haystack``). Per question, interleaved (the order rotates):

* ``ours``: ``Store.recall(keyword=question, limit=20)`` for quality, ``limit=10`` for cost;
* ``raw``: plain FTS5 on the SAME database file: ``SELECT rowid FROM episodes_fts WHERE
  episodes_fts MATCH '"w1" OR "w2" ...' ORDER BY rank LIMIT k`` over the question's words
  minus English function words (the reference method: bm25 over every match).

``--shapes`` adds the worst-case query shapes on the 20,000 store of the first conversation.
"""

from __future__ import annotations

import re
import sqlite3
import statistics
import time

from _haystack import build_store, load_turns

KS = (1, 5, 10, 20)
K_MAX = 20
CATEGORIES = (1, 2, 3, 4)
_TOKEN = re.compile(r"[^\W_]+")
# The reference scripts' function-word list (shared/tools/bench/locomo_recall.py).
_STOPWORDS = frozenset(
    """
a about above after again against all am an and any are aren't as at be because been
before being below between both but by can can't cannot could couldn't d did didn't do
does doesn't doing don't down during each few for from further had hadn't has hasn't
have haven't having he he'd he'll he's her here here's hers herself him himself his how
how's i i'd i'll i'm i've if in into is isn't it it's its itself let's ll m me more most
mustn't my myself no nor not of off on once only or other ought our ours ourselves out
over own re s same shan't she she'd she'll she's should shouldn't so some such t than
that that's the their theirs them themselves then there there's these they they'd
they'll they're they've this those through to too under until up ve very was wasn't we
we'd we'll we're we've were weren't what what's when when's where where's which while
who who's whom why why's will with won't would wouldn't you you'd you'll you're you've
your yours yourself yourselves also just many much kind kinds type types
""".split()  # noqa: SIM905
)
_EVIDENCE = re.compile(r"^D:?(\d+):0*(\d+)$")
pc = time.perf_counter


def raw_expression(question: str) -> str:
    """The raw baseline's FTS5 query: the question's distinct content words, OR-joined."""
    words = dict.fromkeys(t.lower() for t in _TOKEN.findall(question))
    kept = [w for w in words if w not in _STOPWORDS]
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in kept)


def _gold(raw: list, valid: set[str]) -> list[str]:
    out: list[str] = []
    for entry in raw or []:
        for piece in re.split(r"[;,\s]+", str(entry).strip()):
            m = _EVIDENCE.match(piece)
            norm = f"D{int(m.group(1))}:{int(m.group(2))}" if m else ""
            if norm in valid and norm not in out:
                out.append(norm)
    return out


def _score(gold: list[str], ranked: list[str]) -> dict[str, float]:
    g = set(gold)
    m = {f"recall@{k}": len(g & set(ranked[:k])) / len(g) for k in KS}
    m["mrr"] = next((1.0 / r for r, d in enumerate(ranked[:K_MAX], 1) if d in g), 0.0)
    m["empty"] = 0.0 if ranked else 1.0
    return m


def _mean(rows: list[dict[str, float]]) -> dict:
    if not rows:
        return {"n": 0}
    return {"n": len(rows)} | {k: round(sum(r[k] for r in rows) / len(rows), 4) for k in rows[0]}


_CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


def _by(rows: list[dict[str, float]], tags: list[tuple[int, str]]) -> dict[str, float]:
    """Recall@10 by category and by conversation (held-in / held-out halves are unions)."""
    groups: dict[str, list[float]] = {}
    for row, (category, conversation) in zip(rows, tags, strict=True):
        for key in (_CATEGORY_NAMES[category], conversation):
            groups.setdefault(key, []).append(row["recall@10"])
    return {key: round(sum(v) / len(v), 4) for key, v in groups.items()}


def _pct(values: list[float], p: float) -> float | None:
    if not values:
        return None
    s = sorted(values)
    return round(s[min(len(s) - 1, int(p * (len(s) - 1) + 0.5))] * 1e3, 4)


class _Pair:
    """Our Store and a raw sqlite3 connection on the same database file."""

    def __init__(self, path: str, turns: list[dict]) -> None:
        from anneal_memory import Store

        self.store = Store(path, project_name="LoCoMo", audit=False)
        self.raw = sqlite3.connect(path)
        self.dia = {f"{n:08x}": t["dia_id"] for n, t in enumerate(turns, 1)}
        self.dia_seq = {n: t["dia_id"] for n, t in enumerate(turns, 1)}
        (self.offset,) = self.raw.execute("SELECT min(seq) - 1 FROM episodes").fetchone()

    def ours(self, question: str, limit: int) -> list[str]:
        res = self.store.recall(keyword=question, limit=limit)
        return [self.dia.get(e.id, "x") for e in res.episodes]

    def raw_search(self, question: str, limit: int) -> list[str]:
        expression = raw_expression(question)
        if not expression:
            return []
        rows = self.raw.execute(
            "SELECT rowid FROM episodes_fts WHERE episodes_fts MATCH ? ORDER BY rank LIMIT ?",
            (expression, limit),
        ).fetchall()
        return [self.dia_seq.get(r[0] - self.offset, "x") for r in rows]

    def close(self) -> None:
        self.store.close()
        self.raw.close()


def _timed(fn, *args) -> tuple[float, list[str]]:
    s = pc()
    out = fn(*args)
    return pc() - s, out


def run_size(samples, picks, size, cache, max_questions, log) -> dict:
    """Quality and cost of ours and raw at one haystack size."""
    quality: dict[str, list] = {"ours": [], "raw": []}
    lat: dict[str, list[float]] = {"ours": [], "raw": []}
    tags: list[tuple[int, str]] = []  # (category, conversation) of each question, in order
    calls = 0
    for i in picks:
        path = build_store(samples, i, size, cache, log=log)
        turns = load_turns(samples[i])
        valid = {t["dia_id"] for t in turns}
        pair = _Pair(path, turns)
        asked = 0
        for qa in samples[i]["qa"]:
            gold = _gold(qa.get("evidence", []), valid)
            if qa.get("category") not in CATEGORIES or not gold:
                continue
            if max_questions and asked >= max_questions:
                break
            asked += 1
            question = str(qa["question"])
            quality["ours"].append(_score(gold, pair.ours(question, K_MAX)))
            quality["raw"].append(_score(gold, pair.raw_search(question, K_MAX)))
            tags.append((int(qa["category"]), str(samples[i]["sample_id"])))
            order = [("ours", pair.ours), ("raw", pair.raw_search)]
            if calls % 2:
                order.reverse()
            calls += 1
            for name, fn in order:
                lat[name].append(_timed(fn, question, 10)[0])
        pair.close()
    out: dict = {"haystack": size}
    for name in ("ours", "raw"):
        out[name] = _mean(quality[name]) | {
            "latency_limit10_ms": {"p50": _pct(lat[name], 0.5), "p95": _pct(lat[name], 0.95)}
        }
    out["ours_recall@10_by"] = _by(quality["ours"], tags)
    o, r = out["ours"]["latency_limit10_ms"], out["raw"]["latency_limit10_ms"]
    out["ours_over_raw"] = {
        "p50": round(o["p50"] / r["p50"], 3) if r["p50"] else None,
        "p95": round(o["p95"] / r["p95"], 3) if r["p95"] else None,
    }
    return out


def _median_ms(fn, reps: int) -> float:
    times = []
    for _ in range(reps):
        s = pc()
        fn()
        times.append(pc() - s)
    return round(statistics.median(times) * 1e3, 4)


def run_shapes(samples, cache, size, reps, log) -> dict:
    """Worst-case query shapes vs a normal question (limit 10), on one store."""
    path = build_store(samples, 0, size, cache, log=log)
    from anneal_memory import Store

    questions = [str(q["question"]) for q in samples[0]["qa"][:20]]
    with Store(path, project_name="LoCoMo", audit=False) as store:
        big = "what did we decide about the database and the deploy and the budget and the plan"

        def each(**kw):
            return lambda: [store.recall(keyword=q, **kw) for q in questions]

        shapes = {
            "question, limit=10 (normal)": each(limit=10),
            "question, limit=1000 (the maximum)": each(limit=1000),
            "question, limit=10000 (clamped)": each(limit=10000),
            "question, offset=990, limit=10": each(offset=990, limit=10),
            "question, offset=9990, limit=10": each(offset=9990, limit=10),
            "question, limit=20, source matching nothing": each(limit=20, source="nobody"),
            "question, limit=20, type matching nothing": each(limit=20, episode_type="decision"),
            "question, limit=20, since in the future": each(limit=20, since="2999-01-01"),
            "common word 'like', limit=10": lambda: [
                store.recall(keyword="like", limit=10) for _ in questions
            ],
            "32-word question, limit=10": lambda: [
                store.recall(keyword=f"{big} {q} {big}", limit=10) for q in questions
            ],
            "no keyword, newest, offset=9990": lambda: [
                store.recall(offset=9990, limit=10) for _ in questions
            ],
            "no match, prefix fallback 'Carol'": lambda: [
                store.recall(keyword="Carol", limit=10) for _ in questions
            ],
        }
        out = {name: _median_ms(fn, reps) for name, fn in shapes.items()}
    normal = out["question, limit=10 (normal)"]
    return {
        "haystack": size,
        "ms_per_20_calls": out,
        "over_normal": {k: round(v / normal, 2) for k, v in out.items()},
    }
