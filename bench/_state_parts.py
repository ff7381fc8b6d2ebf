"""``battery.py --only inputs,newer,restore``: state that lies, issue 24 items 13, 16, 17, 18.

- ``inputs``: every text argument of the public Store calls (25 argument places) given
  hostile text (NUL, lone surrogates, over-long, control characters, random strings mixing
  them), on SQLite and on PostgreSQL when ``ANNEAL_TEST_PG_URL`` is set. Counted: answers
  outside the documented error tree (``UnicodeEncodeError``, a database failure),
  refusals that do not name the argument, text no engine can hold accepted silently, and
  the two engines answering one call differently.
- ``newer``: a store one schema version newer than this code, opened by 13 commands and
  both library opens (read-only and not): counted, opens that did not refuse with the one
  message naming both versions, and ``check`` runs that called it OK.
- ``restore``: ``rounds`` random stores (episodes in three scopes, trust, wraps) exported and
  imported into a new store; counted, restores that differ from the store exported (episodes,
  continuity of every scope, wraps and the episodes they cover, pattern levels, policy), and
  scopes erased with a trace of their name left (tables, files, audit).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import sqlite3
import subprocess
import sys
import urllib.parse
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from anneal_memory import AnnealMemoryError, Store, prepare_wrap, validated_save_continuity
from anneal_memory.errors import InvalidInputError

Figure = Callable[[str, object], None]

CALLS: list[tuple[str, Callable[[Store, str, str], Any]]] = [
    ("source", lambda s, i, v: s.record("x", "context", source=v)),
    ("idempotency_key", lambda s, i, v: s.record("x", "context", idempotency_key=v)),
    ("state_key", lambda s, i, v: s.record("x", "context", state_key=v)),
    ("scope", lambda s, i, v: s.record("x", "context", scope=v)),
    ("supersedes[0]", lambda s, i, v: s.record("x", "context", supersedes=[v])),
    ("derived_from[0]", lambda s, i, v: s.record("x", "context", derived_from=[v])),
    ("timestamp", lambda s, i, v: s.record("x", "context", timestamp=v)),
    ("content", lambda s, i, v: s.record(v, "context")),
    ("source", lambda s, i, v: s.recall(source=v)),
    ("since", lambda s, i, v: s.recall(since=v)),
    ("until", lambda s, i, v: s.recall(until=v)),
    ("scope", lambda s, i, v: s.recall(scope=v)),
    ("episode_id", lambda s, i, v: s.get(v)),
    ("scope", lambda s, i, v: s.get(i, scope=v)),
    ("episode_id", lambda s, i, v: s.delete(v)),
    ("key", lambda s, i, v: s.set_state_key(i, v)),
    ("episode_id", lambda s, i, v: s.set_trust(v, "agent")),
    ("old_id", lambda s, i, v: s.supersede(v, i)),
    ("new_id", lambda s, i, v: s.unsupersede(i, v)),
    ("ids[0]", lambda s, i, v: s.effective_trusts([v])),
    ("key", lambda s, i, v: s.state_key_report(v)),
    ("event", lambda s, i, v: s.read_audit(event=v)),
    ("since", lambda s, i, v: s.read_audit(since=v)),
    ("scope", lambda s, i, v: s.load_continuity(v)),
    ("actor", lambda s, i, v: s.set_redaction(actor=v)),
]
FIXED = ["\ud800", "a\udfffb", "\x00", "a\x00b", "x" * 70_000, "\x1b[2J", "\u2028", ""]
ODD = ["\x00", "\ud800", "\udc00", "\x07", "\u202e", "é", "日", " ", ";", "'", '"', "*"]


@contextlib.contextmanager
def _stores(folder: Path) -> Iterator[dict[str, str]]:
    """SQLite, and PostgreSQL in a schema of its own when ``ANNEAL_TEST_PG_URL`` is set."""
    targets = {"sqlite": str(folder / "inputs.db")}
    base = os.environ.get("ANNEAL_TEST_PG_URL")
    schema = f"battery_{uuid.uuid4().hex[:10]}"
    if base:
        options = urllib.parse.quote(f"-csearch_path={schema}")
        targets["postgresql"] = f"{base}{'&' if '?' in base else '?'}options={options}"
    try:
        yield targets
    finally:
        if base:
            import psycopg

            with psycopg.connect(base, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def _answer(fn: Callable[[Store, str, str], Any], store: Store, seed: str, text: str) -> str:
    try:
        fn(store, seed, text)
    except InvalidInputError as exc:
        return f"refused {type(exc).__name__}: {exc}"
    except AnnealMemoryError as exc:  # documented: e.g. EpisodeNotFoundError for a free id
        return f"store error {type(exc).__name__}: {exc}"
    except Exception as exc:
        return f"outside {type(exc).__name__}"
    return "accepted"


def _named(answer: str, arg: str, text: str) -> bool:
    """The refusal names the argument (``state_key`` for ``key``) or quotes the value."""
    base = arg.split("[", 1)[0]
    names = (base, "state_key") if base == "key" else (base,)
    return any(n in answer for n in names) or repr(text)[:20] in answer


def inputs(folder: Path, rounds: int, rng: random.Random, figure: Figure) -> None:
    """The item-13 inputs, on every engine at hand."""
    texts = list(FIXED)
    texts += ["".join(rng.choice(ODD) for _ in range(rng.randint(1, 12))) for _ in range(rounds)]
    answers: dict[str, list[str]] = {}
    outside = unnamed = silent = 0
    with _stores(folder) as targets:
        for engine, where in targets.items():
            with Store(where) as store:
                seed = store.record("the seed episode", "context", state_key="seed.key").id
                found = answers.setdefault(engine, [])
                for arg, fn in CALLS:
                    for text in texts:
                        answer = _answer(fn, store, seed, text)
                        found.append(answer.split(":", 1)[0])
                        outside += answer.startswith("outside")
                        refused = answer.startswith(("refused", "store error"))
                        unnamed += refused and not _named(answer, arg, text)
                        unholdable = "\x00" in text or any(0xD800 <= ord(c) <= 0xDFFF for c in text)
                        silent += unholdable and answer == "accepted"
        engines = list(answers)
        differ = (
            sum(a != b for a, b in zip(answers[engines[0]], answers[engines[1]], strict=True))
            if len(engines) == 2
            else "n/a (no PostgreSQL)"
        )
    calls = len(CALLS) * len(texts)
    name = f"text arguments x{len(CALLS)} places x{len(texts)} texts ({', '.join(targets)})"
    figure(f"{name}: calls", calls * len(targets))
    figure(f"{name}: answers outside the error tree", outside)
    figure(f"{name}: refusals not naming the argument", unnamed)
    figure(f"{name}: NUL or surrogate accepted silently", silent)
    figure(f"{name}: engines answering differently", differ)


NEWER_COMMANDS = [
    ["status"], ["stats"], ["episodes"], ["export", "-o", "x.json"], ["recall", "x"],
    ["continuity"], ["migrate"], ["record", "x"], ["check"], ["history"],
    ["wrap-status"], ["prepare-wrap"], ["serve", "--skip-integrity"],
]  # fmt: skip


def newer(folder: Path, figure: Figure) -> None:
    """Item 17: a store one schema version newer, opened every way."""
    db = folder / "newer.db"
    with Store(db) as store:
        store.record("kept as it was", "observation")
        supported = store.status().schema_version
    raw = sqlite3.connect(db)
    raw.execute(f"PRAGMA user_version={supported + 1:d}")
    raw.commit()
    raw.close()
    message = (
        f"has schema version {supported + 1}, newer than this anneal-memory supports ({supported})"
    )
    opened = not_refused = check_ok = 0
    for command in NEWER_COMMANDS:
        done = subprocess.run(
            [sys.executable, "-m", "anneal_memory", "--db", str(db), *command],
            capture_output=True, text=True, timeout=60, check=False, stdin=subprocess.DEVNULL,
            cwd=folder,
        )  # fmt: skip
        opened += 1
        said = message in done.stderr + done.stdout
        not_refused += done.returncode == 0 or not said
        check_ok += command == ["check"] and "Store OK" in done.stdout
    for read_only in (False, True):
        opened += 1
        try:
            Store(db, read_only=read_only).close()
        except AnnealMemoryError as exc:
            not_refused += message not in str(exc)
        else:
            not_refused += 1
    name = f"newer schema x{opened} opens (13 commands, 2 library opens)"
    figure(f"{name}: not refused with the message naming both versions", not_refused)
    figure(f"{name}: check called it OK", check_ok)


TEXT = "## State\n- {s}\n## Patterns\n{p}## Decisions\n## Context\n- wrap\n"


def _fingerprint(store: Store) -> dict[str, Any]:
    with store.reading("battery") as reader:
        conn = reader.conn
        scopes = sorted(
            {""} | {str(r[0]) for r in conn.execute("SELECT DISTINCT scope FROM wraps")}
        )
        rows = {
            "episodes": conn.execute(
                "SELECT id, content, trust, scope, state_key FROM episodes ORDER BY id"
            ).fetchall(),
            "wraps": conn.execute(
                "SELECT token, scope, continuity_sha256 FROM wraps WHERE status = 'completed'"
                " ORDER BY token"
            ).fetchall(),
            "patterns": conn.execute(
                "SELECT scope, identity, level FROM patterns ORDER BY 1, 2"
            ).fetchall(),
        }
    rows["continuity"] = [store.load_continuity(s) for s in scopes]
    rows["waiting"] = store.status().episodes_since_wrap
    return {
        k: [list(r) if isinstance(r, tuple) else r for r in v] if isinstance(v, list) else v
        for k, v in rows.items()
    }


def restore(folder: Path, rounds: int, rng: random.Random, figure: Figure) -> None:
    """Items 18 and 16: random stores exported and restored, scopes erased."""
    differ = traces = 0
    for n in range(rounds):
        src, dst = folder / f"a{n}.db", folder / f"b{n}.db"
        with Store(src) as store:
            for k in range(rng.randint(1, 8)):
                scope = rng.choice(["", "user:alice", "user:bob"])
                ident = store.record(
                    f"{rng.choice(['deploy', 'tea', 'retry'])} note {k}", "observation",
                    scope=scope, trust=rng.choice(["agent", "tool", "external"]),
                ).id  # fmt: skip
                if rng.random() < 0.4:
                    prep = prepare_wrap(store, scope=scope)
                    word = "abcdefgh"[k]
                    line = f'- theme_{word} | 1x (2026-12-02) [evidence: {ident} "note"]\n'
                    validated_save_continuity(
                        store,
                        TEXT.format(s=f"s{k}", p=line),
                        wrap_token=prep.wrap_token,
                        scope=scope,
                    )
            before = _fingerprint(store)
            out = io.StringIO()
            store.export_json(out)
        with Store(dst) as restored:
            restored.import_json(out.getvalue())
            differ += _fingerprint(restored) != before
            if not hasattr(restored, "erase_scope"):  # code before issue 24 item 16
                traces = -1
                continue
            restored.erase_scope("user:alice")
            left = [
                p.name
                for p in folder.iterdir()
                if p.name.startswith(f"b{n}.") and "alice" in p.name
            ]
            with restored.reading("battery") as reader:
                for table in ("episodes", "wraps", "patterns", "pattern_history"):
                    left += [table] * int(
                        reader.conn.execute(
                            f"SELECT count(*) FROM {table} WHERE scope = 'user:alice'"
                        ).fetchone()[0]
                    )
            audit = json.dumps(restored.read_audit())
            traces += bool(left) or "user:alice" in audit
    figure(
        f"export then import x{rounds} random stores: restores differing from the source", differ
    )
    figure(f"erase-scope x{rounds}: scopes with a trace of their name left", traces)
