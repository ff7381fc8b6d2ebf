"""``export --format markdown``: a readable dump, the continuity first, then episodes by day.

Episode text is untrusted: each of its lines is indented under its bullet and a line that
markdown would read as structure (a heading, quote, list item, fence, table or rule) is
escaped with a backslash, so no episode can add a heading or end the list.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator

from anneal_memory.store._episodes import COLUMNS, episode_from_row
from anneal_memory.types import Episode

__all__ = ["iter_markdown_chunks"]

_BATCH = 1000
_STRUCTURE = re.compile(r"^(\s*)([#>*+\-=|`~_]|\d+[.)]|<)")
_HEADING = re.compile(r"^(#{1,4})(\s)")


def _escape(line: str) -> str:
    return _STRUCTURE.sub(lambda m: m.group(1) + "\\" + m.group(2), line)


def _episode(episode: Episode) -> str:
    lines = episode.content.splitlines() or [""]
    head = (
        f"- {episode.timestamp[11:19]} · **{episode.type.value}** · `{episode.id}` · "
        f"{_escape(episode.source).replace('`', '')}"
    )
    body = "\n".join("  " + _escape(line) if line.strip() else "" for line in lines)
    return f"{head}\n\n{body}\n"


def _continuity(text: str) -> Iterator[str]:
    yield "## Continuity\n\n"
    for line in text.splitlines():
        yield _HEADING.sub(lambda m: "##" + m.group(1) + m.group(2), line) + "\n"
    yield "\n"


def iter_markdown_chunks(
    conn: sqlite3.Connection, *, exported_at: str, project_name: str, continuity: str | None
) -> Iterator[str]:
    """Yield the markdown dump in pieces (the caller holds a read transaction)."""
    total = int(conn.execute("SELECT count(*) FROM episodes").fetchone()[0])
    yield f"# {_escape(project_name)} — anneal-memory export\n\n"
    yield f"Exported {exported_at} · {total} episode(s) · times are UTC\n\n"
    if continuity is None:
        yield "## Continuity\n\n(No continuity file yet.)\n\n"
    else:
        yield from _continuity(continuity)
    yield "## Episodes\n\n"
    last: tuple[str, int] = ("", 0)
    day = ""
    while True:
        rows = conn.execute(
            f"SELECT {COLUMNS} FROM episodes WHERE (ts, seq) > (?, ?)"  # noqa: S608
            " ORDER BY ts, seq LIMIT ?",
            (*last, _BATCH),
        ).fetchall()
        if not rows:
            break
        for row in rows:
            episode = episode_from_row(row)
            if episode.timestamp[:10] != day:
                day = episode.timestamp[:10]
                yield f"### {day}\n\n"
            yield _episode(episode) + "\n"
        last = (str(rows[-1][2]), int(rows[-1][0]))
    if total == 0:
        yield "(No episodes.)\n"
