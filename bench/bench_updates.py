"""Stale facts served first: recall before and after supersession links and state keys.

A labelled set built here (seeded, no downloads):

* ``UPDATES``: 48 pairs (subject, old fact, newer fact that replaces it), phrased four ways
  (``is now``, ``changed from A to B``, ``moved to``, ``correction:``);
* ``NON_UPDATES``: 48 pairs of same-topic facts that are both true (neither replaces the
  other): a lasting fact about the subject and a note about it.

Each pair is recorded among filler episodes (``--filler``, seeded ``Corpus`` text), the old
fact first, then asked about with a question on its subject (``recall(limit=5)``). Three
stores, the same episodes in each:

1. ``no links``: plain records, as before this feature;
2. ``supersedes``: the newer fact recorded with ``supersedes=[old]``;
3. ``state_key``: both recorded with a ``state_key`` of their subject.

Figures: the share of update questions whose first hit is the stale fact (and whose top 5
holds it at all), the share of non-update facts still found (a link must never hide a valid
fact), and how the 25 % lexical floor sorts the pairs: updates it accepts, and same-topic
non-updates it would accept if someone linked them by mistake. ``--quick``: 12 pairs of
each kind, 50 filler episodes.

    .venv/bin/python bench/bench_updates.py [--quick] [--filler 2000] [--out updates.json]
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _common import Corpus, emit, log, machine_facts
from anneal_memory import Store
from anneal_memory.errors import SupersessionError
from anneal_memory.immune._floor import check_floor
from anneal_memory.testing import FrozenClock

# (subject, state key, old value, new value, an extra true fact for the non-update pair)
SUBJECTS = [
    ("home city of the user", "user.home_city", "Porto", "Lisbon", "has a long tram history"),
    (
        "staging database host",
        "infra.staging_db",
        "db-old.internal",
        "db-new.internal",
        "runs PostgreSQL sixteen",
    ),
    (
        "deploy day of the payments team",
        "team.pay.deploy_day",
        "Friday",
        "Tuesday",
        "is announced in the release channel",
    ),
    (
        "team lead of the search squad",
        "team.search.lead",
        "Amara",
        "Jonas",
        "holds office hours on Mondays",
    ),
    (
        "API rate limit for partners",
        "api.partner_limit",
        "100 requests per minute",
        "250 requests per minute",
        "is enforced at the gateway",
    ),
    ("preferred editor of the user", "user.editor", "vim", "helix", "uses a dark theme"),
    (
        "default branch of the monorepo",
        "repo.default_branch",
        "master",
        "main",
        "is protected against force pushes",
    ),
    (
        "on-call rotation length",
        "ops.oncall_length",
        "one week",
        "two weeks",
        "includes a handover meeting",
    ),
    (
        "billing currency of the account",
        "billing.currency",
        "USD",
        "EUR",
        "appears on every invoice",
    ),
    (
        "laptop model of the user",
        "user.laptop",
        "ThinkPad X1",
        "MacBook Air",
        "has a cracked corner",
    ),
    (
        "office location of the design team",
        "team.design.office",
        "third floor",
        "fifth floor",
        "has a large whiteboard wall",
    ),
    (
        "retention period of the audit logs",
        "policy.audit_retention",
        "90 days",
        "180 days",
        "applies to every region",
    ),
    (
        "primary cloud region",
        "infra.region",
        "eu-west-1",
        "eu-central-1",
        "hosts the customer database",
    ),
    (
        "python version of the build image",
        "build.python",
        "3.11",
        "3.13",
        "is pinned in the Dockerfile",
    ),
    ("manager of the user", "user.manager", "Priya", "Tomasz", "prefers written status updates"),
    (
        "standup time of the platform team",
        "team.platform.standup",
        "9:30",
        "10:15",
        "lasts fifteen minutes",
    ),
    ("VPN provider of the company", "it.vpn", "OpenVPN", "WireGuard", "requires a hardware key"),
    (
        "dietary preference of the user",
        "user.diet",
        "vegetarian",
        "vegan",
        "avoids very spicy food",
    ),
    (
        "sprint length of the mobile team",
        "team.mobile.sprint",
        "two weeks",
        "three weeks",
        "ends with a demo",
    ),
    (
        "support email address",
        "company.support_email",
        "help@example.com",
        "support@example.com",
        "is answered within one day",
    ),
    (
        "cache eviction policy of the gateway",
        "infra.cache_policy",
        "LRU",
        "LFU",
        "is configured per route",
    ),
    (
        "password manager of the team",
        "it.password_manager",
        "KeePass",
        "Bitwarden",
        "stores the shared deploy keys",
    ),
    (
        "timezone of the user",
        "user.timezone",
        "Europe/Berlin",
        "America/Toronto",
        "matters for scheduling calls",
    ),
    (
        "logging backend of the services",
        "infra.logging",
        "Elasticsearch",
        "Loki",
        "keeps two weeks of debug logs",
    ),
    (
        "release cadence of the desktop app",
        "app.desktop.cadence",
        "monthly",
        "weekly",
        "ships through the auto-updater",
    ),
    (
        "budget owner of the marketing project",
        "project.marketing.owner",
        "Lena",
        "Marco",
        "approves spending above five thousand",
    ),
    (
        "message queue of the order service",
        "orders.queue",
        "RabbitMQ",
        "Kafka",
        "retries failed deliveries",
    ),
    (
        "favourite programming language of the user",
        "user.language",
        "Go",
        "Rust",
        "is used for side projects",
    ),
    (
        "CI provider of the open source repo",
        "repo.ci",
        "Travis",
        "GitHub Actions",
        "runs the test matrix nightly",
    ),
    (
        "database pool size of the API",
        "api.pool_size",
        "20 connections",
        "50 connections",
        "is tuned for peak traffic",
    ),
    (
        "meeting room for the weekly review",
        "office.review_room",
        "Aurora",
        "Borealis",
        "has a broken projector remote",
    ),
    (
        "shipping carrier for Europe",
        "logistics.eu_carrier",
        "DHL",
        "UPS",
        "handles customs paperwork",
    ),
    (
        "font of the brand guidelines",
        "brand.font",
        "Inter",
        "Source Sans",
        "is licensed for web use",
    ),
    (
        "phone number of the user",
        "user.phone",
        "+351 910 000 001",
        "+351 930 000 002",
        "accepts text messages",
    ),
    (
        "frontend framework of the dashboard",
        "dashboard.framework",
        "Angular",
        "React",
        "is rendered on the server",
    ),
    (
        "backup schedule of the file server",
        "infra.backup_schedule",
        "nightly",
        "hourly",
        "is verified every month",
    ),
    (
        "tax advisor of the company",
        "finance.tax_advisor",
        "Moreno and Partners",
        "Keller Consulting",
        "files the annual report",
    ),
    (
        "hosting plan of the blog",
        "blog.plan",
        "shared hosting",
        "a static site on a CDN",
        "gets about a thousand visits a day",
    ),
    (
        "gym schedule of the user",
        "user.gym",
        "mornings",
        "evenings",
        "includes a swim on Saturdays",
    ),
    (
        "encryption algorithm for backups",
        "security.backup_cipher",
        "AES-128",
        "AES-256",
        "uses keys from the vault",
    ),
    (
        "issue tracker of the team",
        "team.tracker",
        "Jira",
        "Linear",
        "has a template for bug reports",
    ),
    ("mentor of the new hire", "people.mentor", "Oskar", "Wen", "meets with them every Thursday"),
    (
        "monitoring tool of the cluster",
        "infra.monitoring",
        "Nagios",
        "Prometheus",
        "pages the on-call engineer",
    ),
    (
        "coffee order of the user",
        "user.coffee",
        "flat white",
        "oat cortado",
        "comes from the corner cafe",
    ),
    ("license of the SDK", "sdk.license", "GPL", "Apache 2.0", "is printed in every source header"),
    (
        "domain registrar of the company",
        "company.registrar",
        "GoDaddy",
        "Cloudflare",
        "auto-renews every year",
    ),
    (
        "quarterly goal of the sales team",
        "team.sales.goal",
        "40 new accounts",
        "55 new accounts",
        "is reviewed each month",
    ),
    ("bike of the user", "user.bike", "a road bike", "a gravel bike", "is stored in the basement"),
]
NOTES = (
    "was reviewed in the last audit",
    "is documented in the team wiki",
    "came up in the planning meeting",
    "was discussed with the client last week",
)
PHRASES = (
    "Update: the {s} is now {b}.",
    "The {s} changed from {a} to {b}.",
    "The {s} moved to {b} this quarter.",
    "Correction: the {s} is {b}, not {a}.",
)


def build_set(n: int) -> tuple[list[dict], list[dict]]:
    updates, non_updates = [], []
    for i, (subject, key, old, new, extra) in enumerate(SUBJECTS[:n]):
        updates.append(
            {
                "query": f"what is the {subject}?",
                "key": key,
                "old": f"The {subject} is {old}.",
                "new": PHRASES[i % len(PHRASES)].format(s=subject, a=old, b=new),
            }
        )
        non_updates.append(
            {
                "query": f"what do we know about the {subject}?",
                "first": f"The {subject} {extra}.",
                "second": f"Note on the {subject}: it {NOTES[i % len(NOTES)]}.",
            }
        )
    return updates, non_updates


def _fill(store: Store, texts: list[str], clock: FrozenClock) -> None:
    for text in texts:
        store.record(text, "observation")
        clock.advance(seconds=30)


def run_mode(mode: str, updates: list[dict], non_updates: list[dict], filler: list[str]) -> dict:
    clock = FrozenClock(dt.datetime(2026, 6, 1, tzinfo=dt.timezone.utc), step=dt.timedelta(0))
    with (
        tempfile.TemporaryDirectory() as tmp,
        Store(Path(tmp) / "m.db", clock=clock, audit=False) as store,
    ):
        half = len(filler) // 2
        _fill(store, filler[:half], clock)
        old_ids, refused = [], 0
        for pair in updates:
            key = pair["key"] if mode == "state_key" else None
            old_ids.append(store.record(pair["old"], "observation", state_key=key).id)
            clock.advance(seconds=30)
        valid_ids = []
        for pair in non_updates:
            valid_ids.append(store.record(pair["first"], "observation").id)
            store.record(pair["second"], "observation")
            clock.advance(seconds=30)
        _fill(store, filler[half:], clock)
        for pair, old_id in zip(updates, old_ids, strict=True):
            key = pair["key"] if mode == "state_key" else None
            supersedes = [old_id] if mode == "supersedes" else None
            try:
                store.record(pair["new"], "observation", supersedes=supersedes, state_key=key)
            except SupersessionError:
                refused += 1
                store.record(pair["new"], "observation", state_key=key)
            clock.advance(seconds=30)
        stale_first = stale_top5 = 0
        started = time.perf_counter()
        for pair, old_id in zip(updates, old_ids, strict=True):
            hits = [e.id for e in store.recall(pair["query"], limit=5).episodes]
            stale_first += bool(hits) and hits[0] == old_id
            stale_top5 += old_id in hits
        found = 0
        for pair, valid_id in zip(non_updates, valid_ids, strict=True):
            found += valid_id in [e.id for e in store.recall(pair["query"], limit=5).episodes]
        elapsed = time.perf_counter() - started
    n = len(updates)
    return {
        "stale_first_share": round(stale_first / n, 3),
        "stale_in_top5_share": round(stale_top5 / n, 3),
        "valid_fact_found_share": round(found / len(non_updates), 3),
        "links_refused": refused,
        "recall_ms_mean": round(1000 * elapsed / (n + len(non_updates)), 2),
    }


def floor_figures(updates: list[dict], non_updates: list[dict]) -> dict:
    accepted = sum(check_floor(p["old"], p["new"]).passed for p in updates)
    wrongly = sum(check_floor(p["first"], p["second"]).passed for p in non_updates)
    return {
        "updates_passing_floor_share": round(accepted / len(updates), 3),
        "non_updates_passing_floor_share": round(wrongly / len(non_updates), 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="12 pairs each, 50 filler episodes")
    parser.add_argument("--filler", type=int, default=2000, help="filler episodes (default 2000)")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--out", help="also write the JSON summary here")
    args = parser.parse_args(argv)
    n = 12 if args.quick else len(SUBJECTS)
    filler_n = 50 if args.quick else args.filler
    updates, non_updates = build_set(n)
    filler = Corpus(seed=args.seed).texts(0, filler_n)
    modes = {}
    for mode in ("no_links", "supersedes", "state_key"):
        log(f"mode {mode}: {n} update pairs, {n} non-update pairs, {filler_n} filler")
        modes[mode] = run_mode(mode, updates, non_updates, filler)
    summary = {
        "bench": "updates",
        "quick": args.quick,
        "update_pairs": n,
        "non_update_pairs": n,
        "filler_episodes": filler_n,
        "recall_limit": 5,
        "modes": modes,
        "floor": floor_figures(updates, non_updates),
        "machine": machine_facts(),
    }
    emit(summary, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
