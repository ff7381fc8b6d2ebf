"""The chain check of a whole file in a few C-level passes, for the common case.

``verify`` walks a file line by line (``_walk._walk_each``); that walk names the first line
that fails and why. Most files are canonical lines that all link, so this pass checks them
in bulk first, with the walk's own rule, one list at a time: every line's SHA-256, every
line's tail from its last ``"prev_hash":"`` key, which must start with the ``prev_hash`` and
``seq`` the line before implies, and every line's ``intent``. It answers only "all linked"
or "look closer": on anything else (a line that does not look canonical, a
``dropped_before``, a break) it returns None and the walk runs from the start, so every
verdict, count and error message is the walk's. The last line, which no later hash covers,
is always left to the walk's full parse.
"""

from __future__ import annotations

import hashlib
from itertools import repeat

from anneal_memory.audit._chain import ChainTip

__all__ = ["FastWalk", "fast_links"]

_PREV_KEY = b'"prev_hash":"'
_INTENT_KEY = b'"intent":'
_DROPPED_KEY = b'"dropped_before":'
_HASH_PREFIX = "sha256:"
# What a line's last ``"prev_hash":"`` key must be followed by: the hash of the line
# before and the next ``seq``, then a comma (the walk's fast check, as one pattern).
_LINK = _PREV_KEY + b'sha256:%s","seq":%d,'


class FastWalk:
    """What :func:`fast_links` found: the tip after the lines and their ``intent`` numbers."""

    __slots__ = ("intents", "tip")

    def __init__(self, tip: ChainTip, intents: list[int]) -> None:
        self.tip = tip
        self.intents = intents


def _intents(lines: list[bytes]) -> list[int] | None:
    """Each line's ``intent`` as the walk reads it (its last ``"intent":`` key), in order.

    None when a line holds the key with no plain number after it (the walk skips those).
    """
    key = len(_INTENT_KEY)
    starts = [at + key for at in map(bytes.rfind, lines, repeat(_INTENT_KEY))]
    if min(starts, default=key) < key:  # lines without one: keep those with one
        kept = [(raw, at) for raw, at in zip(lines, starts, strict=True) if at >= key]
        lines, starts = [raw for raw, _ in kept], [at for _, at in kept]
    ends = map(bytes.find, lines, repeat(b","), starts)
    values = [raw[at:end] for raw, at, end in zip(lines, starts, ends, strict=True)]
    if not all(map(bytes.isdigit, values)):
        return None
    return list(map(int, values))


def fast_links(lines: list[bytes], start: ChainTip, text: bytes | None = None) -> FastWalk | None:
    """Check that ``lines`` link from ``start`` as the walk would; None to walk them.

    Returns the tip after the last of ``lines`` and the ``intent`` of each line that carries
    one, in order, when every line's last ``"prev_hash":"`` key is followed by the hash of
    the line before and the next ``seq`` (canonical digits), and no line reports dropped
    entries. None otherwise: the caller walks the lines one by one. ``text``: bytes that
    hold every line (the file they were split from), searched once for keys any line might
    hold; more than the lines only costs the bulk pass, never a verdict.
    """
    if not lines or not start.prev_hash.startswith(_HASH_PREFIX):
        return None
    if text is None:
        text = b"\n".join(lines)
    if _DROPPED_KEY in text:
        return None
    sha256 = hashlib.sha256
    hexes = [sha256(raw).hexdigest().encode() for raw in lines]
    first = start.next_seq
    prevs = [start.prev_hash[len(_HASH_PREFIX) :].encode(), *hexes[:-1]]
    wanted = map(_LINK.__mod__, zip(prevs, range(first, first + len(lines)), strict=True))
    keys = map(bytes.rfind, lines, repeat(_PREV_KEY))
    if not all(map(bytes.startswith, lines, wanted, keys)):
        return None
    intents = _intents(lines) if _INTENT_KEY in text else []
    if intents is None:
        return None
    tip = ChainTip(next_seq=first + len(lines), prev_hash=_HASH_PREFIX + hexes[-1].decode())
    return FastWalk(tip, intents)
