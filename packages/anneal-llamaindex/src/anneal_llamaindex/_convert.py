"""Pure text helpers between LlamaIndex chat data and what anneal-memory records and recalls.

Nothing here imports LlamaIndex, so these helpers are tested without the framework.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

__all__ = ["last_user_text", "trim_to_fit"]


def trim_to_fit(text: str, fits: Callable[[str], bool]) -> str | None:
    """Drop whole lines from the end of ``text`` until ``fits(text)``; None when none fit.

    Recalled episodes come last in a memory block, so they go before the continuity; a
    heading left without its lines goes too. When even the first line does not fit, it is
    cut (with a marker) to the longest prefix that does.
    """
    lines = text.splitlines()
    while lines:
        while lines and (not lines[-1].strip() or lines[-1].rstrip().endswith(":")):
            lines.pop()
        kept = "\n".join(lines).strip()
        if kept and fits(kept):
            return kept
        if len(lines) <= 1:
            break
        lines.pop()
    if not lines:
        return None
    line, low, high = lines[0], 0, len(lines[0])
    while low < high:  # the longest prefix that fits with the marker
        middle = (low + high + 1) // 2
        if fits(line[:middle] + " …"):
            low = middle
        else:
            high = middle - 1
    return line[:low] + " …" if low else None


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
