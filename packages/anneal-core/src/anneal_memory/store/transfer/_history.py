"""Writing a source's history into the store: wraps, pattern levels and association links.

Run inside the import's write transaction, after the episodes are written (wraps need their
seqs, links need both their episodes).
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from anneal_memory.store.transfer._records import PatternLevelRecord, WrapRecord

__all__ = ["wrap_token", "write_links", "write_patterns", "write_wraps"]

# The association model's constants (anneal_memory.associations, which this layer may not
# import): the strength cap, the prune floor and -ln(decay per save).
_MAX_STRENGTH = 10.0
_PRUNE_BELOW = 0.1
_LN_PER_SAVE = 0.10536051565782628
_TOKEN_PREFIX = "import-1.0.2-wrap-"


def wrap_token(number: int) -> str:
    """The token an imported 1.0.2 wrap is stored under (a second import finds it)."""
    return f"{_TOKEN_PREFIX}{number}"


def write_wraps(
    conn: sqlite3.Connection,
    wraps: Sequence[WrapRecord],
    through: Mapping[int, int],
    *,
    schema_name: str,
    max_chars: int,
) -> int:
    """Write ``wraps`` as completed wraps; ``through`` maps a wrap number to its last seq."""
    after = 0
    last = 0
    ends = sorted(through.items())
    index = 0
    for save_no, record in enumerate(sorted(wraps, key=lambda w: w.number), 1):
        while index < len(ends) and ends[index][0] <= record.number:
            last = max(last, ends[index][1])
            index += 1
        conn.execute(
            "INSERT INTO wraps (token, status, started_at, today, schema_name, max_chars,"
            " episode_count, completed_at, continuity_sha256, continuity_chars,"
            " graduations_validated, demotions, after_seq, through_seq, save_no)"
            " VALUES (?, 'completed', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (wrap_token(record.number), record.wrapped_at, record.wrapped_at[:10],
             schema_name, max_chars, record.episodes, record.wrapped_at,
             record.continuity_sha256, record.continuity_chars, record.validated,
             record.demoted, after, last, save_no),
        )  # fmt: skip
        after = last
    return len(wraps)


def write_patterns(conn: sqlite3.Connection, patterns: Iterable[PatternLevelRecord]) -> int | None:
    """Seed each pattern's level at the newest imported wrap; None when there is none."""
    row = conn.execute(
        "SELECT max(id) FROM wraps WHERE substr(token, 1, ?) = ?",
        (len(_TOKEN_PREFIX), _TOKEN_PREFIX),
    ).fetchone()
    if row[0] is None:
        return None
    wrap_id = int(row[0])
    written = 0
    for record in patterns:
        identity = record.name.casefold()
        cursor = conn.execute(
            "INSERT OR IGNORE INTO patterns (identity, name, level, max_level,"
            " first_wrap_id, last_wrap_id, last_grounded) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (identity, record.name, record.level, record.max_level, wrap_id, wrap_id,
             record.last_seen),
        )  # fmt: skip
        if not cursor.rowcount:
            continue
        conn.execute(
            "INSERT INTO pattern_history (identity, wrap_id, level, written_level,"
            " line_date, explanation, validated, marks) VALUES (?, ?, ?, ?, ?, ?, ?, '')",
            (identity, wrap_id, record.level, record.level, record.last_seen,
             record.explanation, int(bool(record.explanation))),
        )  # fmt: skip
        written += 1
    return written


def _both_here(conn: sqlite3.Connection, a: str, b: str) -> bool:
    row = conn.execute("SELECT count(*) FROM episodes WHERE id IN (?, ?)", (a, b)).fetchone()
    return int(row[0]) == 2


def write_links(conn: sqlite3.Connection, links: Iterable[Sequence[Any]]) -> Iterator[bool]:
    """Write each ``(a, b, strength, tag, intensity)`` link; yield whether it was written.

    A link is left out when an episode is missing, it is under the prune floor, or the
    store already has one for the pair (the store's own link wins).
    """
    row = conn.execute(
        "SELECT coalesce(max(id), 0), coalesce(max(save_no), 0) FROM wraps"
    ).fetchone()
    wrap_id, save_no = int(row[0]), int(row[1])
    for first, second, strength, tag, intensity in links:
        a, b = min(first, second), max(first, second)
        if a == b or strength < _PRUNE_BELOW or not _both_here(conn, a, b):
            yield False
            continue
        capped = min(float(strength), _MAX_STRENGTH)
        cursor = conn.execute(
            "INSERT OR IGNORE INTO associations (a, b, strength, affect_tag,"
            " affect_intensity, created_wrap_id, last_wrap_id, last_save_no, decay_key)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (a, b, capped, tag, intensity, wrap_id, wrap_id, save_no,
             math.log(capped) + save_no * _LN_PER_SAVE),
        )  # fmt: skip
        yield bool(cursor.rowcount)
