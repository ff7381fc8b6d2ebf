"""The line walk of verification: each line links to the one before, named where it breaks.

Shared by ``verify`` (``_verify``) and ``audit-repair`` (``_repair``): pure functions over a
file's lines, no I/O.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from anneal_memory.audit._chain import ChainTip, parse_line
from anneal_memory.audit._fastwalk import fast_links

__all__ = ["ChainBreakError", "Walk", "walk_lines"]


class ChainBreakError(Exception):
    """Where and why a walk stopped: the error in words, the seq, the file and its line."""

    def __init__(self, error: str, *, seq: int | None, file: str, line: int | None = None):
        super().__init__(error)
        self.error = error
        self.seq = seq
        self.file = file
        self.line = line


@dataclass(slots=True)
class Walk:
    """What a walk counted so far (entries, files, skipped and dropped lines, intents)."""

    entries: int = 0
    files: int = 0
    skipped: int = 0
    dropped: int = 0
    last_intent: int | None = None
    missing: int = 0
    repeated: int = 0

    def saw_intent(self, raw: bytes) -> None:
        """Follow the ``intent`` numbers: each should be one more than the one before."""
        at = raw.rfind(_INTENT_KEY)
        if at == -1:
            return
        start = at + len(_INTENT_KEY)
        digits = raw[start : raw.find(b",", start)]
        if digits.isdigit():
            self.saw_number(int(digits))

    def saw_numbers(self, intents: list[int]) -> None:
        """:meth:`saw_number` for each of ``intents`` in order (a run ``n, n+1, ...`` at once)."""
        if intents and intents == list(range(intents[0], intents[0] + len(intents))):
            self.saw_number(intents[0])
            self.last_intent = intents[-1]
            return
        for intent in intents:
            self.saw_number(intent)

    def saw_number(self, intent: int) -> None:
        """One line's ``intent``: count a gap before it, or count it as repeated."""
        last = self.last_intent
        if last is not None:
            if intent <= last:
                self.repeated += 1
                return
            self.missing += intent - last - 1
        self.last_intent = intent


_PREV_KEY = b'"prev_hash":"'
_SEQ_KEY = b'","seq":'
_DROPPED_KEY = b'"dropped_before":'
_INTENT_KEY = b'"intent":'


def _parsed_fields(raw: bytes, number: int, seq: int, filename: str) -> tuple[bytes, int, int]:
    """``prev_hash``, ``seq`` and ``dropped_before`` from a full parse of one line."""
    try:
        entry = parse_line(raw)
        return entry["prev_hash"].encode(), entry["seq"], int(entry.get("dropped_before", 0))
    except (ValueError, TypeError, KeyError, AttributeError, UnicodeError):
        raise ChainBreakError(
            f"line {number} is not a well-formed audit entry",
            seq=seq,
            file=filename,
            line=number,
        ) from None


def _mismatch(
    got_prev: bytes, got_seq: int, prev: bytes, seq: int, *, filename: str, number: int
) -> ChainBreakError:
    if got_prev != prev:
        return ChainBreakError(
            f"Hash mismatch at seq {seq}: expected {prev[:20].decode()}..., got "
            f"{got_prev[:20].decode(errors='replace')}... (the entry before it was "
            "altered or removed, or this one was)",
            seq=seq,
            file=filename,
            line=number,
        )
    return ChainBreakError(
        f"Sequence mismatch: expected seq {seq}, got {got_seq!r} (an entry was "
        "inserted, removed, duplicated or reordered)",
        seq=seq,
        file=filename,
        line=number,
    )


def walk_lines(
    lines: list[bytes],
    start: ChainTip,
    filename: str,
    walk: Walk,
    text: bytes | None = None,
) -> ChainTip:
    """Check each line links to the one before; return the tip after the last line.

    All lines but the last are first checked in bulk (``_fastwalk``; ``text``, the file the
    lines were split from, spares it joining them); when that pass cannot vouch for them,
    they are walked one by one (:func:`_walk_each`), which names the break.

    Raises:
        ChainBreakError: The first line that fails, named by its expected seq and line number.
    """
    fast = fast_links(lines[:-1], start, text) if len(lines) > 1 else None
    if fast is None:
        return _walk_each(lines, start, filename, walk)
    walk.saw_numbers(fast.intents)
    walk.entries += len(lines) - 1
    return _walk_each(lines[-1:], fast.tip, filename, walk, first=len(lines))


def _walk_each(
    lines: list[bytes], start: ChainTip, filename: str, walk: Walk, *, first: int = 1
) -> ChainTip:
    """Check each line links to the one before, one by one (line numbers from ``first``).

    Each link is checked on the raw bytes: with sorted keys ``prev_hash`` and ``seq`` are the
    last top-level keys, and JSON strings cannot hold ``"prev_hash":"`` unescaped, so the
    last occurrence is the real key. The last line, which no later hash covers, and any line
    that does not look canonical are parsed in full.

    Raises:
        ChainBreakError: The first line that fails, named by its expected seq and line number.
    """
    prev, seq = start.prev_hash.encode(), start.next_seq
    sha256, last = hashlib.sha256, first + len(lines) - 1
    key_len, seq_len = len(_PREV_KEY), len(_SEQ_KEY)
    for number, raw in enumerate(lines, start=first):
        begin = raw.rfind(_PREV_KEY) + key_len
        end = raw.find(b'"', begin)
        digits = raw[end + seq_len : raw.find(b",", end + seq_len)]
        if (
            number == last
            or begin < key_len
            or raw[end : end + seq_len] != _SEQ_KEY
            or not digits.isdigit()
            or _DROPPED_KEY in raw
        ):
            try:
                got_prev, got_seq, dropped = _parsed_fields(raw, number, seq, filename)
            except ChainBreakError:
                walk.entries += number - first
                raise
            walk.dropped += dropped
        else:
            got_prev, got_seq = raw[begin:end], int(digits)
        if got_prev != prev or got_seq != seq:
            walk.entries += number - first
            raise _mismatch(got_prev, got_seq, prev, seq, filename=filename, number=number)
        walk.saw_intent(raw)
        prev = b"sha256:" + sha256(raw).hexdigest().encode()
        seq += 1
    walk.entries += len(lines)
    return ChainTip(next_seq=seq, prev_hash=prev.decode())
