"""The bulk chain check (``_fastwalk``) never changes a verdict of the line-by-line walk.

``walk_lines`` (bulk pass, then the walk) and ``_walk_each`` (the walk alone) run on the
same lines, intact and tampered in every way the tamper matrix uses plus the shapes the bulk
pass must refuse (a nested ``intent``, ``dropped_before``, a zero-padded ``seq``, a
re-serialised line); each outcome, the error or the tip, and every count must be equal.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from anneal_memory.audit._chain import GENESIS_HASH, ChainTip, link_hash
from anneal_memory.audit._events import AuditEvent, encode_entry
from anneal_memory.audit._fastwalk import fast_links
from anneal_memory.audit._walk import ChainBreakError, Walk, _walk_each, walk_lines

Lines = list[bytes]


def _trail(count: int = 12, *, start: ChainTip | None = None, data_intent: int = -1) -> Lines:
    """Record-shaped lines with outbox intents (a gap after 4, a line without one at 6)."""
    tip = start or ChainTip(next_seq=0, prev_hash=GENESIS_HASH)
    prev, lines = tip.prev_hash, []
    for n in range(count):
        data: dict[str, object] = {"episode_id": f"{n:08x}", "type": "observation"}
        if n == data_intent:
            data["intent"] = 999
        _entry, line = encode_entry(
            seq=tip.next_seq + n,
            ts=f"2026-03-02T09:00:{n:02d}.000000Z",
            event=AuditEvent.RECORD,
            actor="agent",
            data=data,
            prev_hash=prev,
            dropped_before=2 if n == 8 and count > 9 else 0,
            intent=None if n == 6 else (n + 10 if n < 5 else n + 12),
        )
        lines.append(line)
        prev = link_hash(line)
    return lines


def _outcome(run: Callable[..., ChainTip], lines: Lines, start: ChainTip) -> tuple[object, ...]:
    walk = Walk()
    walk.last_intent = 3
    try:
        tip: object = run(lines, start, "memory.audit.jsonl", walk)
    except ChainBreakError as broken:
        tip = ("break", broken.error, broken.seq, broken.file, broken.line)
    counts = (walk.entries, walk.dropped, walk.last_intent, walk.missing, walk.repeated)
    return tip, counts


def _same(lines: Lines, start: ChainTip | None = None) -> tuple[object, ...]:
    begin = start or ChainTip(next_seq=0, prev_hash=GENESIS_HASH)
    both = _outcome(walk_lines, lines, begin)
    assert both == _outcome(_walk_each, lines, begin)
    whole = b"".join(line + b"\n" for line in lines)  # the file, as verify hands it over
    assert both == _outcome(lambda *a: walk_lines(*a, text=whole), lines, begin)
    return both


def _reserialised(line: bytes) -> bytes:
    return json.dumps(json.loads(line), sort_keys=True).encode()


TAMPERS: dict[str, Callable[[Lines], None]] = {
    "edit a field": lambda ls: ls.__setitem__(3, ls[3].replace(b"observation", b"decision")),
    "flip a hash": lambda ls: ls.__setitem__(5, ls[5].replace(b"sha256:", b"sha256:0", 1)),
    "delete a line": lambda ls: ls.__delitem__(4),
    "duplicate a line": lambda ls: ls.insert(4, ls[4]),
    "swap two lines": lambda ls: ls.__setitem__(slice(2, 4), [ls[3], ls[2]]),
    "zero-pad a seq": lambda ls: ls.__setitem__(2, ls[2].replace(b'"seq":2,', b'"seq":02,')),
    "re-serialise a line": lambda ls: ls.__setitem__(5, _reserialised(ls[5])),
    "drop the last line": lambda ls: ls.pop(),
    "edit the last line": lambda ls: ls.__setitem__(-1, ls[-1].replace(b"agent", b"admin")),
    "garbage line": lambda ls: ls.insert(5, b"not json"),
    "a torn-looking line": lambda ls: ls.__setitem__(5, ls[5][:-5]),
}


def test_an_intact_trail_walks_the_same_and_takes_the_bulk_pass() -> None:
    lines = _trail(8)  # no dropped_before: the bulk pass vouches for all but the last line
    assert fast_links(lines[:-1], ChainTip(next_seq=0, prev_hash=GENESIS_HASH)) is not None
    tip, counts = _same(lines)
    assert tip == ChainTip(next_seq=8, prev_hash=link_hash(lines[-1]))
    assert counts == (8, 0, 19, 9, 0)  # gaps: 4..9, then 15, 16, then 18


def test_dropped_before_is_counted_by_the_walk() -> None:
    lines = _trail(12)
    assert fast_links(lines[:-1], ChainTip(next_seq=0, prev_hash=GENESIS_HASH)) is None
    _tip, counts = _same(lines)
    assert counts[1] == 2


def test_a_nested_intent_key_reads_as_the_walk_reads_it() -> None:
    lines = _trail(8, data_intent=6)  # no top-level intent, one inside the entry's data
    assert fast_links(lines[:-1], ChainTip(next_seq=0, prev_hash=GENESIS_HASH)) is not None
    _same(lines)


def test_a_chain_continued_from_a_sealed_week_walks_the_same() -> None:
    start = ChainTip(next_seq=40, prev_hash="sha256:" + "ab" * 32)
    tip, _counts = _same(_trail(8, start=start), start)
    assert isinstance(tip, ChainTip)
    assert tip.next_seq == 48
    assert _same(_trail(8, start=start), ChainTip(next_seq=41, prev_hash=start.prev_hash))[0][0]


@pytest.mark.parametrize("name", sorted(TAMPERS))
@pytest.mark.parametrize("count", [8, 12])
def test_every_tamper_gets_the_walks_verdict(name: str, count: int) -> None:
    lines = _trail(count)
    TAMPERS[name](lines)
    tip, _counts = _same(lines)
    if name not in {"drop the last line", "edit the last line"}:  # no later hash covers it
        assert isinstance(tip, tuple)
        assert tip[0] == "break"


def test_one_line_and_no_lines() -> None:
    _same(_trail(1))
    _same([])
