"""Recall on a labelled set written the way agents and users ask: hit@1, hit@5 and MRR by kind.

The set (``recall_set.json``): 182 questions, each labelled with the one episode that answers
it, in nine kinds: ``wordform`` (another form of the answer's word: chose/choose,
children/child, better/good, decided/decision, optimised/optimize), ``decision``, ``outcome``,
``open`` (open questions and tensions), ``date`` (the question names a time), ``two-hop``
(the answer shares words with a first episode, not with the question), ``plain`` (controls),
``category`` (the question names a category, the answer a member: pets / cat) and
``wrong-intent`` (the question's shape names another episode type than the answer's).
Distractor episodes share a question's subject with another type or time.

The store holds the set's 276 episodes among 2,400 seeded filler episodes (agent notes on
sixteen made-up services: observations, decisions, outcomes, questions, tensions, context),
spread over the year before ``now`` (2026-06-30, the store's frozen clock), all recorded in
time order through ``Store.import_json``. Every question runs as ``recall(question,
limit=10)``; a pair scores hit@1 / hit@5 when its episode is first / in the first five, and
1/rank for MRR (0 beyond 10).

    .venv/bin/python bench/recall_set.py [--quick] [--pg-url URL] \\
        [--baseline-src before=/tmp/before/packages/anneal-core/src] [--per-question f.jsonl] \\
        [--out recall_set.json]

``--baseline-src NAME=DIR`` runs the same set with the ``anneal_memory`` of another source
tree (``git archive <commit> packages/anneal-core/src | tar -x -C /tmp/before``) in a
subprocess, for before/after figures in one run. ``--pg-url`` adds the same run on a
PostgreSQL store (``bench_pg.py``'s URL form). ``--quick``: 300 filler episodes, SQLite only.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import emit, log, machine_facts

SET = Path(__file__).with_name("recall_set.json")
FILLER = 2_400
LIMIT = 10

SERVICES = [
    "catalog",
    "inventory",
    "profile",
    "scheduler",
    "gateway",
    "ingest",
    "geo",
    "media",
    "forms",
    "comments",
    "feeds",
    "presence",
    "calendar",
    "chat",
    "tagging",
    "ledger",
]
TECH = [
    "PostgreSQL",
    "MySQL",
    "Redis",
    "Kafka",
    "RabbitMQ",
    "NATS",
    "nginx",
    "Envoy",
    "Celery",
    "Sidekiq",
    "Helm",
    "Kubernetes",
    "Docker",
    "React",
    "Vue",
    "Vite",
    "Jest",
    "Go",
    "Rust",
    "Django",
    "FastAPI",
    "Rails",
    "ClickHouse",
    "MongoDB",
    "Memcached",
    "Consul",
    "Nomad",
]
PEOPLE = [
    "Bilal",
    "Chen",
    "Emeka",
    "Farah",
    "Goran",
    "Hana",
    "Ivo",
    "Jun",
    "Kofi",
    "Lena",
    "Mateo",
    "Nadia",
    "Oskar",
    "Pia",
    "Quinn",
    "Rosa",
    "Sven",
    "Tariq",
    "Uma",
    "Wren",
]
THINGS = [
    "cache",
    "queue",
    "index",
    "worker",
    "endpoint",
    "dashboard",
    "job",
    "config",
    "alert",
    "container",
    "bucket",
    "replica",
    "cron",
    "pipeline",
    "client",
    "proxy",
    "consumer",
]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
TEMPLATES = {
    "observation": [
        "{svc} {any} latency rose to {n} ms after the {tech} upgrade.",
        "{person} noticed the {svc} {any} logs are full of {tech} warnings.",
        "The {svc} {any} runs on {tech} behind {tech2}.",
        "{svc} error rate is {p}% since the last deploy.",
        "Memory on the {svc} {thing} grows about {n} MB per hour.",
        "{person} says the {tech} docs for {thing}s are outdated.",
        "The {svc} database CPU sits at {p}% during business hours.",
        "{svc} {thing} retries are hiding a slow {tech} call.",
        "The {svc} database has {n} tables without an owner.",
        "Disk usage on the {svc} database grew {p}% this month.",
        "{tech} connection count on {svc} peaks at {n}.",
        "The {svc} {thing} ran for {n} minutes longer than usual.",
        "{person} found that the {svc} {thing} ignores the timeout setting.",
        "Most {svc} requests hit the {thing} before the database.",
        "The {svc} team went over the {tech} runbook with {person}.",
    ],
    "decision": [
        "Decided to move the {svc} {thing} to {tech}.",
        "Chose {tech} for the {svc} {thing} because it is simpler to operate.",
        "We will keep {tech} for {svc}; revisit next quarter.",
        "Picked {person} to own the {svc} {thing}.",
        "Going with {tech} over {tech2} for the {svc} {thing}.",
        "Settled on {n}-minute timeouts for the {svc} {thing}.",
        "The {svc} {thing} will be rewritten in {tech} next quarter.",
        "Agreed that {person} reviews every {svc} {thing} change.",
    ],
    "outcome": [
        "The {svc} {thing} migration to {tech} finished without errors.",
        "Deploy of {svc} failed: {tech} rejected the new config.",
        "{svc} {thing} rollback worked; users saw no errors.",
        "The {tech} upgrade on {svc} went wrong: {thing} timeouts for {n} minutes.",
        "Result of the {svc} experiment: {p}% fewer {thing} errors.",
        "{svc} {thing} fix shipped; the alert has been quiet for {n} hours.",
        "{person} got the {svc} {thing} under {n} ms again.",
        "The {svc} database failover took {n} seconds and lost nothing.",
    ],
    "question": [
        "Should the {svc} {thing} move to {tech}?",
        "Who owns the {svc} {thing} now that {person} moved teams?",
        "Can {tech} handle the {svc} load at {n}x?",
        "Do we need a separate {thing} for {svc}?",
        "Is the {svc} database too big for one replica?",
    ],
    "tension": [
        "{person} wants {tech} for {svc}, {person2} prefers {tech2}.",
        "Shipping {svc} features competes with paying down {thing} debt.",
        "{svc} needs a bigger {thing}, but the hosting budget is flat.",
    ],
    "context": [
        "{person} is on holiday until {weekday}.",
        "The {svc} team meets on {weekday}s.",
        "{person} joined the {svc} team.",
        "Sprint goal: {svc} {thing} cleanup.",
        "Reminder: {svc} on-call handover with {person} at {hh}:00.",
        "{person} and {person2} pair on the {svc} {thing} this week.",
        "The {svc} {thing} dashboard link is pinned in the team channel.",
    ],
}
TYPE_WEIGHTS = {
    "observation": 40,
    "decision": 14,
    "outcome": 14,
    "question": 8,
    "tension": 4,
    "context": 20,
}
# Decisions about "the database" are left to the labelled set: a filler decision naming one
# would answer "which database did we choose?" as well as the labelled episode does.
_ANY = [*THINGS, "database"]


def filler(count: int, now: dt.datetime, seed: int = 42) -> list[dict]:
    """``count`` seeded agent notes, timestamped over the year before ``now``."""
    rng = random.Random(seed)
    kinds = list(TYPE_WEIGHTS)
    weights = [TYPE_WEIGHTS[k] for k in kinds]
    out = []
    for i in range(count):
        kind = rng.choices(kinds, weights)[0]
        tech, tech2 = rng.sample(TECH, 2)
        person, person2 = rng.sample(PEOPLE, 2)
        text = rng.choice(TEMPLATES[kind]).format(
            svc=rng.choice(SERVICES),
            tech=tech,
            tech2=tech2,
            person=person,
            person2=person2,
            thing=rng.choice(THINGS),
            any=rng.choice(_ANY),
            n=rng.choice((2, 3, 5, 8, 12, 20, 30, 45, 60, 90, 120, 250, 400)),
            p=rng.choice((2, 5, 10, 15, 25, 40, 60)),
            weekday=rng.choice(WEEKDAYS),
            hh=rng.choice((9, 10, 14, 16)),
        )
        ts = now - dt.timedelta(seconds=rng.random() * 365 * 86400)
        out.append(
            {
                "key": f"filler-{i:05d}",
                "text": text[0].upper() + text[1:],
                "type": kind,
                "timestamp": ts.strftime("%Y-%m-%dT%H:%M:%SZ"),
            }
        )
    return out


def _document(episodes: list[dict]) -> tuple[dict, dict[str, str]]:
    ordered = sorted(episodes, key=lambda e: (e["timestamp"], e["key"]))
    ids = {e["key"]: f"{n:08x}" for n, e in enumerate(ordered, 1)}
    rows = [
        {
            "id": ids[e["key"]],
            "timestamp": e["timestamp"],
            "type": e["type"],
            "content": e["text"],
            "source": "agent",
            "metadata": {},
            "idempotency_key": None,
        }
        for e in ordered
    ]
    doc = {"format": "anneal-memory-export", "format_version": 1, "episodes": rows}
    return doc | {"tombstones": []}, ids


def _quote(*texts: str) -> str:
    words = [w for text in texts for w in re.findall(r"[A-Za-z]{4,}", text)[:4]]
    return " ".join(words)


def _wrap_links(store: object, data: dict, ids: dict[str, str], noise: int) -> None:
    """One wrap whose pattern lines co-cite each two-hop pair (and ``noise`` filler pairs)."""
    from anneal_memory import prepare_wrap, validated_save_continuity

    texts = {e["key"]: e["text"] for e in data["episodes"]}
    pairs = [(p["via"], p["target"]) for p in data["pairs"] if p.get("via")]
    rng = random.Random(7)
    fillers = sorted(k for k in ids if k.startswith("filler-"))
    pairs += [tuple(rng.sample(fillers, 2)) for _ in range(noise)]
    texts |= getattr(store, "_bench_filler_texts", {})
    day = data["now"][:10]  # a pattern line is dated the day of its wrap
    lines = [
        f'- link_{n} | 2x ({day}) [evidence: {ids[a]}, {ids[b]} "{_quote(texts[a], texts[b])}"]'
        for n, (a, b) in enumerate(pairs)
    ]
    prepare_wrap(store, max_package_chars=50_000_000)  # type: ignore[arg-type]
    validated_save_continuity(
        store,  # type: ignore[arg-type]
        "## State\n## Patterns\n" + "\n".join(lines) + "\n## Decisions\n## Context\n",
    )


def _ranks(target: str, data: dict, filler_count: int, links: int | None) -> list[int | None]:
    """Rank of each pair's episode in ``recall(question, limit=10)`` (None: not in the page).

    ``links``: when not None, one wrap first co-cites every two-hop pair and that many filler
    pairs (validated citations, so association links form).
    """
    from anneal_memory import Store
    from anneal_memory.testing import FrozenClock

    now = dt.datetime.fromisoformat(data["now"].replace("Z", "+00:00"))
    notes = filler(filler_count, now)
    episodes = [*data["episodes"], *notes]
    doc, ids = _document(episodes)
    by_id = {v: k for k, v in ids.items()}
    ranks: list[int | None] = []
    with Store(target, project_name="RecallSet", clock=FrozenClock(now), audit=False) as store:
        store.import_json(doc)
        if links is not None:
            store._bench_filler_texts = {e["key"]: e["text"] for e in notes}  # type: ignore[attr-defined]
            _wrap_links(store, data, ids, links)
        for pair in data["pairs"]:
            found = store.recall(pair["question"], limit=LIMIT).episodes
            keys = [by_id.get(e.id) for e in found]
            ranks.append(keys.index(pair["target"]) + 1 if pair["target"] in keys else None)
    return ranks


def _pg_target(url: str) -> tuple[str, str]:
    schema = f"recall_set_{uuid.uuid4().hex[:10]}"
    sep = "&" if "?" in url else "?"
    return f"{url}{sep}options=-csearch_path%3D{schema}", schema


def _drop_schema(url: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


def engine_ranks(
    backend: str, data: dict, filler_count: int, pg_url: str | None, links: int | None = None
) -> list:
    """Ranks on one backend: a temporary SQLite file, or a throwaway PostgreSQL schema."""
    if backend == "sqlite":
        with tempfile.TemporaryDirectory(prefix="recall-set-") as tmp:
            return _ranks(os.path.join(tmp, "memory.db"), data, filler_count, links)
    assert pg_url
    target, schema = _pg_target(pg_url)
    try:
        return _ranks(target, data, filler_count, links)
    finally:
        _drop_schema(pg_url, schema)


def summarize(ranks: list[int | None], pairs: list[dict]) -> dict:
    """hit@1, hit@5 and MRR overall and by kind."""

    def figures(rows: list[int | None]) -> dict:
        n = len(rows)
        return {
            "n": n,
            "hit@1": round(sum(r == 1 for r in rows) / n, 3),
            "hit@5": round(sum(r is not None and r <= 5 for r in rows) / n, 3),
            "mrr": round(sum(1 / r for r in rows if r) / n, 3),
        }

    kinds = list(dict.fromkeys(p["kind"] for p in pairs))
    out = {"all": figures(ranks)}
    for kind in kinds:
        out[kind] = figures([r for r, p in zip(ranks, pairs, strict=True) if p["kind"] == kind])
    return out


def _baseline(src: str, backend: str, filler_count: int, pg_url: str | None) -> list:
    argv = [sys.executable, __file__, "--ranks-only", backend, "--filler", str(filler_count)]
    if pg_url:
        argv += ["--pg-url", pg_url]
    env = os.environ | {"PYTHONPATH": src}
    done = subprocess.run(argv, capture_output=True, text=True, check=True, env=env)
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="300 filler episodes, SQLite only")
    parser.add_argument("--filler", type=int, default=None, help=f"default {FILLER:,}")
    parser.add_argument("--pg-url", help="also run on PostgreSQL (a schema is made and dropped)")
    parser.add_argument("--baseline-src", action="append", default=[], help="NAME=DIR")
    parser.add_argument("--per-question", help="write one JSON line per question")
    parser.add_argument(
        "--wrap-links",
        type=int,
        default=None,
        metavar="NOISE",
        help="first co-cite every two-hop pair (and NOISE filler pairs) in one wrap",
    )
    parser.add_argument("--ranks-only", choices=("sqlite", "postgresql"), help=argparse.SUPPRESS)
    parser.add_argument("--out", help="also write the JSON summary here")
    args = parser.parse_args()
    data = json.loads(SET.read_text(encoding="utf-8"))
    filler_count = args.filler if args.filler is not None else (300 if args.quick else FILLER)
    if args.ranks_only:
        print(json.dumps(engine_ranks(args.ranks_only, data, filler_count, args.pg_url)))
        return
    backends = ["sqlite"] + (["postgresql"] if args.pg_url and not args.quick else [])
    pairs = data["pairs"]
    summary: dict = {
        "machine": machine_facts(),
        "set": SET.name,
        "pairs": len(pairs),
        "episodes": len(data["episodes"]) + filler_count,
        "limit": LIMIT,
        "results": {},
    }
    per_question: dict[str, list] = {}
    for backend in backends:
        runs = {"ours": None} | dict(b.split("=", 1) for b in args.baseline_src)
        for name, src in runs.items():
            log(f"{name} on {backend}")
            if src is None:
                ranks = engine_ranks(backend, data, filler_count, args.pg_url, args.wrap_links)
            else:
                ranks = _baseline(src, backend, filler_count, args.pg_url)
            summary["results"][f"{name}/{backend}"] = summarize(ranks, pairs)
            per_question[f"{name}/{backend}"] = ranks
    if args.per_question:
        with open(args.per_question, "w", encoding="utf-8") as f:
            for i, pair in enumerate(pairs):
                ranks = {k: v[i] for k, v in per_question.items()}
                f.write(json.dumps(pair | {"ranks": ranks}) + "\n")
    emit(summary, args.out)


if __name__ == "__main__":
    main()
