"""Pure text helpers between LlamaIndex chat data and what anneal-memory records and recalls.

Nothing here imports LlamaIndex, so these helpers are tested without the framework.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["trim_lines"]

# LlamaIndex asks a block to shed tokens; a token is about four characters of English text.
CHARS_PER_TOKEN = 4


def trim_lines(text: str, tokens: int) -> str | None:
    """Drop whole lines from the end of ``text`` until about ``tokens`` tokens are gone.

    The recalled episodes come last in a memory block, so they are shed before the
    continuity; a heading left without its lines goes too. Returns None when nothing worth
    keeping is left.
    """
    budget = max(tokens, 0) * CHARS_PER_TOKEN
    lines = text.splitlines()
    while lines and budget > 0:
        budget -= len(lines.pop()) + 1
    while lines and (not lines[-1].strip() or lines[-1].rstrip().endswith(":")):
        lines.pop()  # a heading whose lines are gone, or a blank line
    kept = "\n".join(lines).strip()
    return kept or None


def last_user_text(messages: Iterable[tuple[str, str]]) -> tuple[str, int]:
    """Return the text of the last user message and the number of user turns.

    ``messages`` are ``(role, text)`` pairs, oldest first. A user message repeating the one
    right before it is the same turn: LlamaIndex agents pass the turn's input to ``Memory``
    again after the history that already holds it.
    """
    text, count, previous = "", 0, ("", "")
    for role, content in messages:
        if role == "user" and previous != (role, content):
            text, count = content, count + 1
        previous = (role, content)
    return text, count
