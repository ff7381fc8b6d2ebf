"""Secrets at the door: recall on seeded secrets, false positives on honest text, cost.

* **Recall**: a seeded set of secrets (``--count``, 200; ``--quick`` 60) spread evenly over
  28 kinds, each generated from its vendor's documented format (prefix, alphabet, length;
  written here, apart from the rules in ``anneal_memory/redaction``) and placed in one of
  the contexts an agent records: a shell line, an env file, JSON, YAML, a URL, a log line,
  an HTTP header, prose. A secret is *caught* when its value no longer appears in the
  redacted text, *named* when a marker of the expected kind took its place.
* **False positives on honest text**: the LoCoMo dev turns (``--locomo PATH``; skipped
  when absent), the demo's episodes, and this repository's docs (``README.md``,
  ``docs/**/*.md`` and the package READMEs, one text per paragraph; the example secrets
  of ``docs/trust.md``'s redaction section are left out). Texts touched and detections
  per kind, with the personal-data rules off (the default) and on. Every detection is
  listed (kind and the words around it, the match itself masked) so it can be read.
* **Cost**: median microseconds per text (a LoCoMo-sized turn, a 4 KiB tool output) and the
  slowest of several 64 KiB hostile inputs.

    .venv/bin/python bench/bench_secrets.py [--quick] [--count 200] [--seed 42] \\
        [--locomo ../shared/data/locomo-dev.json] [--out secrets.json]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import string
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _common import emit, log, machine_facts
from anneal_memory.redaction import redact

ROOT = Path(__file__).resolve().parents[1]
B62 = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = B62 + "+/"
URLSAFE = B62 + "-_"
UPPER = string.ascii_uppercase + string.digits
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


def _s(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _pem(rng: random.Random) -> str:
    kind = rng.choice(["RSA ", "EC ", "OPENSSH ", "", "ENCRYPTED "])
    body = "\n".join(_s(rng, B64, 64) for _ in range(rng.randint(3, 12)))
    return f"-----BEGIN {kind}PRIVATE KEY-----\n{body}\n-----END {kind}PRIVATE KEY-----"


# kind -> (make the secret, the name an assignment would use). Formats: the vendors' docs
# (cited per rule in tests/core/redaction/test_rules.py).
GENERATORS: dict[str, tuple[Callable[[random.Random], str], str]] = {
    "private-key": (_pem, "private_key"),
    "aws-access-key": (
        lambda r: r.choice(["AKIA", "ASIA"]) + _s(r, UPPER, 16),
        "aws_access_key_id",
    ),
    "aws-secret-key": (lambda r: _s(r, B64, 40), "aws_secret_access_key"),
    "github-token": (
        lambda r: r.choice(["ghp_", "gho_", "ghs_", "ghu_"]) + _s(r, B62, 36),
        "github_token",
    ),
    "gitlab-token": (lambda r: "glpat-" + _s(r, URLSAFE, 20), "gitlab_token"),
    "slack-token": (
        lambda r: f"xoxb-{_s(r, string.digits, 11)}-{_s(r, string.digits, 13)}-{_s(r, B62, 24)}",
        "slack_bot_token",
    ),
    "slack-webhook": (
        lambda r: (
            "https://hooks.slack.com/services/T"
            + _s(r, UPPER, 10)
            + "/B"
            + _s(r, UPPER, 10)
            + "/"
            + _s(r, B62, 24)
        ),
        "slack_webhook_url",
    ),
    "stripe-key": (
        lambda r: r.choice(["sk_live_", "rk_live_", "sk_test_"]) + _s(r, B62, r.choice([24, 99])),
        "stripe_secret",
    ),
    "anthropic-api-key": (lambda r: "sk-ant-api03-" + _s(r, URLSAFE, 93) + "AA", "anthropic_key"),
    "openai-api-key": (
        lambda r: "sk-proj-" + _s(r, URLSAFE, 74) + "T3BlbkFJ" + _s(r, URLSAFE, 74),
        "openai_key",
    ),
    "google-api-key": (lambda r: "AIza" + _s(r, URLSAFE, 35), "google_maps_key"),
    "google-oauth-token": (lambda r: "ya29." + _s(r, URLSAFE, r.randint(60, 200)), "gcp_token"),
    "jwt": (
        lambda r: (
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ"
            + _s(r, URLSAFE, r.randint(40, 200))
            + "."
            + _s(r, URLSAFE, 43)
        ),
        "id_token",
    ),
    "npm-token": (lambda r: "npm_" + _s(r, B62, 36), "npm_token"),
    "pypi-token": (lambda r: "pypi-AgEIcHlwaS5vcmc" + _s(r, URLSAFE, 120), "pypi_token"),
    "huggingface-token": (lambda r: "hf_" + _s(r, B62, 34), "hf_token"),
    "sendgrid-key": (
        lambda r: "SG." + _s(r, URLSAFE, 22) + "." + _s(r, URLSAFE, 43),
        "sendgrid_api_key",
    ),
    "twilio-api-key": (lambda r: "SK" + _s(r, HEX, 32), "twilio_api_key"),
    "digitalocean-token": (lambda r: "dop_v1_" + _s(r, HEX, 64), "do_token"),
    "shopify-token": (lambda r: "shpat_" + _s(r, HEX, 32), "shopify_token"),
    "azure-storage-key": (
        lambda r: (
            "DefaultEndpointsProtocol=https;AccountName=store"
            + _s(r, string.ascii_lowercase, 6)
            + ";AccountKey="
            + _s(r, B64, 86)
            + "==;EndpointSuffix=core.windows.net"
        ),
        "connection_string",
    ),
    "telegram-bot-token": (
        lambda r: _s(r, string.digits, 10) + ":AA" + _s(r, URLSAFE, 33),
        "telegram_bot",
    ),
    "age-secret-key": (lambda r: "AGE-SECRET-KEY-1" + _s(r, BECH32, 58), "age_key"),
    "url-credentials": (
        lambda r: (
            r.choice(["postgresql", "mysql", "redis", "https", "amqp", "mongodb+srv"])
            + "://"
            + r.choice(["app", "deploy", "admin", "svc_etl"])
            + ":"
            + _s(r, B62 + "-_.~!", r.randint(10, 24))
            + "@"
            + r.choice(["db.internal:5432/app", "cache.prod:6379", "git.corp/repo.git", "mq:5672"])
        ),
        "database_url",
    ),
    "authorization-header": (
        lambda r: "Authorization: Bearer " + _s(r, URLSAFE + ".", r.randint(24, 80)),
        "header",
    ),
    "bearer-token": (lambda r: "bearer " + _s(r, URLSAFE, r.randint(24, 64)), "bearer"),
    "password": (
        lambda r: (
            _s(r, string.ascii_letters, r.randint(4, 8))
            + _s(r, string.digits, r.randint(1, 4))
            + r.choice(["!", "#", "", "@", "%"])
        ),
        "password",
    ),
    "secret-assignment": (lambda r: _s(r, B62, r.choice([24, 32, 40, 64])), "api_key"),
}

# Where an agent meets a secret: {name} is an assignment's key, {secret} the value.
CONTEXTS = [
    "$ export {NAME}={secret}",
    "{NAME}={secret}",
    '{{"{name}": "{secret}", "region": "eu-west-1"}}',
    "{name}: {secret}\nretries: 3",
    "2026-03-02T09:14:07Z INFO config loaded {name}={secret} pool=20",
    "The tool returned {name} = '{secret}' for the staging project.",
    "settings = {{'{name}': '{secret}', 'debug': False}}",
    "curl -s 'https://api.example.net/v1/items?{name}={secret}&limit=10'",
]
# Formats that are themselves a whole line or URL sit in prose instead of an assignment.
WHOLE = {"private-key", "slack-webhook", "azure-storage-key", "url-credentials"}
WHOLE |= {"authorization-header", "bearer-token"}
PROSE = [
    "The deploy log printed {secret} before the job failed.",
    "Found in the crash report:\n{secret}\nend of report",
    "copy this into the config: {secret}",
    "`{secret}` is what the setup script wrote to ~/.config",
]


def _marker_gone(text: str, secret: str, kind: str) -> str:
    if kind == "url-credentials":
        return secret.split("://", 1)[1].split("@", 1)[0].split(":", 1)[1]
    if kind == "azure-storage-key":
        return secret.split("AccountKey=", 1)[1].split(";", 1)[0]
    if kind in {"authorization-header", "bearer-token"}:
        return secret.rsplit(" ", 1)[1]
    return secret


def seeded_set(count: int, seed: int) -> list[tuple[str, str, str]]:
    """``count`` (kind, secret, text) triples, kinds in turn, contexts seeded."""
    rng = random.Random(seed)
    kinds = list(GENERATORS)
    out = []
    for i in range(count):
        kind = kinds[i % len(kinds)]
        make, name = GENERATORS[kind]
        secret = make(rng)
        if kind in WHOLE:
            text = rng.choice(PROSE).format(secret=secret)
        else:
            shape = rng.choice(CONTEXTS)
            text = shape.format(name=name, NAME=name.upper(), secret=secret)
        out.append((kind, secret, text))
    return out


def measure_recall(count: int, seed: int) -> dict:
    cases = seeded_set(count, seed)
    caught = named = 0
    missed: list[dict] = []
    per_kind: dict[str, list[int]] = {}
    for kind, secret, text in cases:
        done = redact(text)
        value = _marker_gone(text, secret, kind)
        ok = value not in done.text
        right = f"[redacted:{kind}]" in done.text
        caught += ok
        named += ok and right
        tally = per_kind.setdefault(kind, [0, 0])
        tally[0] += 1
        tally[1] += ok
        if not ok or not right:
            missed.append({"kind": kind, "found": list(done.kinds), "context": _mask(text, value)})
    return {
        "secrets": len(cases),
        "kinds": len(per_kind),
        "caught": caught,
        "recall": round(caught / len(cases), 4),
        "named_as_its_kind": named,
        "per_kind": {k: f"{v[1]}/{v[0]}" for k, v in sorted(per_kind.items())},
        "missed_or_misnamed": missed,
    }


def _mask(text: str, value: str) -> str:
    masked = text.replace(value, value[:4] + "…" if len(value) > 4 else "…")
    return masked.replace("\n", " ")[:140]


# -- honest text ---------------------------------------------------------------------------


def locomo_turns(path: Path) -> list[str]:
    data = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for sample in data:
        conv = sample["conversation"]
        for key, turns in conv.items():
            if re.fullmatch(r"session_\d+", key):
                for turn in turns:
                    text = f"{turn['speaker']}: {turn.get('text', '')}"
                    if turn.get("blip_caption"):
                        text += f" [shared a photo: {turn['blip_caption']}]"
                    out.append(text)
    return out


def demo_texts() -> list[str]:
    from anneal_memory.cli._cmd_demo import DEMO_EPISODES
    from anneal_memory.cli._demo_memory import SPORE_TEXT
    from anneal_memory.cli._demo_wrap import FOLLOW_UP_EPISODES

    return [text for _kind, text in (*DEMO_EPISODES, *FOLLOW_UP_EPISODES)] + [SPORE_TEXT]


EXAMPLES_START = "<!-- redaction examples -->"
EXAMPLES_END = "<!-- end of redaction examples -->"


def doc_paragraphs() -> list[tuple[str, str]]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    files += sorted(ROOT.glob("packages/*/README.md"))
    out = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        while EXAMPLES_START in text:  # the docs' own example secrets are not honest text
            head, rest = text.split(EXAMPLES_START, 1)
            text = head + rest.split(EXAMPLES_END, 1)[-1]
        name = str(path.relative_to(ROOT))
        out += [(name, p) for p in re.split(r"\n\s*\n", text) if p.strip()]
    return out


def false_positives(corpus: dict[str, list[str]], personal: bool) -> dict:
    result = {}
    for name, texts in corpus.items():
        kinds: Counter[str] = Counter()
        touched = 0
        shown = []
        for text in texts:
            done = redact(text, personal=personal)
            if done.detections:
                touched += 1
                for d in done.detections:
                    kinds[d.kind] += 1
                    around = text[max(0, d.start - 30) : d.start] + "<…>" + text[d.end : d.end + 30]
                    shown.append(f"{d.kind}: {around}".replace("\n", " "))
        result[name] = {
            "texts": len(texts),
            "texts_touched": touched,
            "rate": round(touched / len(texts), 5) if texts else 0.0,
            "detections_by_kind": dict(kinds),
            "detections": shown[:50],
        }
    return result


# -- cost ----------------------------------------------------------------------------------


def _median_us(texts: list[str], reps: int) -> float:
    runs = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for text in texts:
            redact(text)
        runs.append((time.perf_counter() - t0) / len(texts))
    return round(sorted(runs)[len(runs) // 2] * 1e6, 2)


HOSTILE = {
    "jwt_like": ("eyJ" + "a" * 40 + ".") * 1_500,
    "url_scheme_runs": ("x://u:" + "p" * 300) * 200,
    "begin_markers": "-----BEGIN PRIVATE KEY-----" * 2_000,
    "assignments": "password=" * 7_000,
    "digits": "1" * 65_000,
    "phone_like": ("+" + "1" * 20 + " ") * 3_000,
    "bearer_runs": ("bearer " + "a" * 30 + "!") * 1_500,
    "colons": "123456:" * 9_000,
}


def measure_cost(turns: list[str], quick: bool) -> dict:
    rng = random.Random(7)
    tool_output = [
        " ".join(
            rng.choice(["build", "ok", "step", "12.4s", "cache", "hit", "pytest"])
            for _ in range(600)
        )[:4096]
        for _ in range(20)
    ]
    reps = 3 if quick else 7
    worst = {}
    for name, text in HOSTILE.items():
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            redact(text, personal=True)
            times.append(time.perf_counter() - t0)
        worst[name] = round(min(times) * 1e3, 2)
    return {
        "turn_median_us": _median_us(turns[:500] or ["a short honest note"], reps),
        "tool_output_4k_median_us": _median_us(tool_output, reps),
        "hostile_64k_ms": worst,
        "hostile_64k_worst_ms": max(worst.values()),
    }


def measure_record(turns: list[str], quick: bool) -> dict:
    """``Store.record`` with the default policy vs ``off``, calls interleaved (one run)."""
    import statistics
    import tempfile

    from anneal_memory import Store

    texts = (turns or ["a short honest note about the build"] * 50)[: 60 if quick else 400]
    times: dict[str, list[float]] = {"redact": [], "off": []}
    with tempfile.TemporaryDirectory() as folder:
        stores = {
            "redact": Store(Path(folder) / "redact.db", audit=False),
            "off": Store(Path(folder) / "off.db", audit=False, redaction="off"),
        }
        try:
            for i, text in enumerate(texts):
                order = ("redact", "off") if i % 2 else ("off", "redact")
                for name in order:
                    t0 = time.perf_counter()
                    stores[name].record(text, "observation")
                    times[name].append(time.perf_counter() - t0)
        finally:
            for store in stores.values():
                store.close()
    med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
    return {
        "records_each": len(texts),
        "record_median_ms_redact": round(med["redact"], 4),
        "record_median_ms_off": round(med["off"], 4),
        "ratio_redact_over_off": round(med["redact"] / med["off"], 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="60 secrets, LoCoMo's first 500 turns")
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--locomo", type=Path, default=Path("../shared/data/locomo-dev.json"))
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    count = 60 if args.quick else args.count
    log(f"recall on {count} seeded secrets")
    recall = measure_recall(count, args.seed)
    corpus: dict[str, list[str]] = {"demo_episodes": demo_texts()}
    corpus["docs_paragraphs"] = [p for _name, p in doc_paragraphs()]
    turns: list[str] = []
    if args.locomo.exists():
        turns = locomo_turns(args.locomo)
        corpus["locomo_dev_turns"] = turns[:500] if args.quick else turns
    else:
        log(f"{args.locomo} not found: LoCoMo skipped")
    log("false positives on honest text")
    summary = {
        "bench": "secrets",
        "quick": args.quick,
        "seed": args.seed,
        "machine": machine_facts(),
        "recall": recall,
        "false_positives_secrets": false_positives(corpus, personal=False),
        "false_positives_with_personal_rules": false_positives(corpus, personal=True),
        "cost": measure_cost(turns, args.quick),
        "record": measure_record(turns, args.quick),
    }
    emit(summary, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
