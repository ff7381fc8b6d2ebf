"""The audit chain in PostgreSQL: entries and the chain tip, written in the change's transaction.

Each entry is the same canonical line as in the JSONL trail (``audit/_events.encode_entry``),
scrubbed by the rule of ``store._audit_scrub``: content and non-plain names become salted
hashes. ``audit_tip`` holds the next sequence number and the
hash the next entry must carry; a writer locks that row (``FOR UPDATE``) in the transaction
that makes the change, so concurrent writers on any host append one after another and the
chain never forks, and an entry exists exactly when its change committed.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Iterator, Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any

from anneal_memory.audit._chain import GENESIS_HASH, link_hash
from anneal_memory.audit._events import encode_entry, parse_event
from anneal_memory.audit._search import TrailPage, event_needle
from anneal_memory.audit._verify import AuditVerifyResult
from anneal_memory.store._audit_scrub import scrub_entry
from anneal_memory.store.postgres._schema import SALT_KEY

if TYPE_CHECKING:
    import psycopg

__all__ = ["append_entry", "export_lines", "page_entries", "read_entries", "verify_chain"]

_BATCH = 1000


def _salted(conn: psycopg.Connection[Any]) -> hmac.HMAC:
    row = conn.execute("SELECT value FROM meta WHERE key = %s", (SALT_KEY,)).fetchone()
    if row is None:  # pragma: no cover - ensure_schema always writes it
        raise RuntimeError("the audit salt is missing from meta")
    return hmac.new(bytes.fromhex(str(row[0])), digestmod="sha256")


def append_entry(
    conn: psycopg.Connection[Any], event: str, *, actor: str, data: Mapping[str, Any], ts: str
) -> dict[str, Any]:
    """Append one entry inside the caller's transaction; return the entry."""
    kind = parse_event(event)
    row = conn.execute(
        "SELECT next_seq, prev_hash FROM audit_tip WHERE one = 1 FOR UPDATE"
    ).fetchone()
    if row is None:  # pragma: no cover - ensure_schema always writes it
        raise RuntimeError("the audit chain tip is missing")
    seq, prev_hash = int(row[0]), str(row[1])
    actor, clean = scrub_entry(actor, data, lambda: _salted(conn))
    entry, line = encode_entry(
        seq=seq, ts=ts, event=kind, actor=actor, data=clean, prev_hash=prev_hash
    )
    conn.execute("INSERT INTO audit_entries (seq, line) VALUES (%s, %s)", (seq, line.decode()))
    conn.execute(
        "UPDATE audit_tip SET next_seq = %s, prev_hash = %s WHERE one = 1",
        (seq + 1, link_hash(line)),
    )
    return entry


def _lines(conn: psycopg.Connection[Any]) -> Iterator[tuple[int, str]]:
    last = 0
    while True:
        rows = conn.execute(
            "SELECT seq, line FROM audit_entries WHERE seq > %s ORDER BY seq LIMIT %s",
            (last, _BATCH),
        ).fetchall()
        if not rows:
            return
        for seq, line in rows:
            yield int(seq), str(line)
        last = int(rows[-1][0])


def _broken(total: int, seq: int, error: str) -> AuditVerifyResult:
    return AuditVerifyResult(
        valid=False, total_entries=total, files_verified=0, chain_break_at=seq, error=error
    )


def verify_chain(conn: psycopg.Connection[Any]) -> AuditVerifyResult:
    """Walk every entry and check the chain.

    Consecutive seqs, each ``prev_hash`` the hash of the line before, and the tip naming the
    last line; call inside one transaction for one consistent state.
    """
    expected_seq, expected_prev, total = 1, GENESIS_HASH, 0
    for seq, line in _lines(conn):
        try:
            entry = json.loads(line)
        except ValueError:
            return _broken(total, seq, f"entry {seq} is not JSON")
        if seq != expected_seq or entry.get("seq") != seq:
            return _broken(total, seq, f"expected entry {expected_seq}, found {seq}")
        if entry.get("prev_hash") != expected_prev:
            return _broken(total, seq, f"entry {seq} does not link to entry {seq - 1}")
        expected_seq, expected_prev, total = seq + 1, link_hash(line.encode()), total + 1
    tip = conn.execute("SELECT next_seq, prev_hash FROM audit_tip WHERE one = 1").fetchone()
    if tip is not None and int(tip[0]) > expected_seq:
        lost = int(tip[0]) - expected_seq
        return AuditVerifyResult(
            valid=False,
            total_entries=total,
            files_verified=0,
            chain_break_at=expected_seq,
            error=f"the last {lost} entr(ies) are missing: the chain tip, written with each "
            f"entry, names entry {int(tip[0]) - 1} as the last, and the trail ends at entry "
            f"{expected_seq - 1}",
            missing_tail=lost,
        )
    if tip is None or (int(tip[0]), str(tip[1])) != (expected_seq, expected_prev):
        return _broken(total, expected_seq, "the chain tip does not name the last entry")
    return AuditVerifyResult(valid=True, total_entries=total, files_verified=0)


def export_lines(conn: psycopg.Connection[Any], out: IO[str]) -> int:
    """Write the trail as JSONL (the same lines as a SQLite store's trail); return the count."""
    count = 0
    for _seq, line in _lines(conn):
        out.write(line + "\n")
        count += 1
    return count


def read_entries(
    conn: psycopg.Connection[Any], *, since: str | None, event: str | None, limit: int | None
) -> list[dict[str, Any]]:
    """The newest ``limit`` entries matching the filters, oldest first (``audit.read_entries``)."""
    clauses, params = [], []
    if since is not None:
        clauses.append("(line::jsonb ->> 'ts') >= %s")
        params.append(since)
    if event is not None:
        clauses.append("(line::jsonb ->> 'event') = %s")
        params.append(event)
    where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
    rows = conn.execute(
        f"SELECT line FROM audit_entries {where} ORDER BY seq DESC LIMIT %s",  # noqa: S608
        (*params, limit),
    ).fetchall()
    return [json.loads(str(row[0])) for row in reversed(rows)]


def page_entries(
    conn: psycopg.Connection[Any],
    *,
    limit: int,
    offset: int,
    event: str | None,
    needles: Sequence[bytes],
) -> TrailPage:
    """Entries newest first, filtered on the canonical line's text (``audit.page_entries``)."""
    clauses: list[str] = []
    params: list[Any] = []
    if event is not None:
        clauses.append("strpos(line, %s) > 0")
        params.append(event_needle(event).decode())
    if needles:
        clauses.append("(" + " OR ".join(["strpos(line, %s) > 0"] * len(needles)) + ")")
        params += [n.decode() for n in needles]
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    row = conn.execute(f"SELECT count(*) FROM audit_entries{where}", params).fetchone()  # noqa: S608
    rows = conn.execute(
        f"SELECT line FROM audit_entries{where} ORDER BY seq DESC LIMIT %s OFFSET %s",  # noqa: S608
        (*params, max(0, limit), max(0, offset)),
    ).fetchall()
    entries = tuple(json.loads(str(r[0])) for r in rows)
    return TrailPage(entries=entries, matched=int(row[0]) if row else 0)
