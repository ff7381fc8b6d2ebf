"""Episodes that restate the continuity: the memory every session loads, recorded back (#30).

The continuity is the always-loaded memory: ``AgentMemory.start()`` and the MCP
``read_continuity`` tool show it to every session before it records anything. An episode of
a wrap's snapshot whose text repeats (``store.provenance.is_copy``) a line of the continuity
that was in place while it was recorded (the one the wrap's save replaces: every snapshot
episode was recorded since it was saved) is the memory quoted back, not a new observation:
the save counts it as no grounding evidence, as it does a copy of an episode recall showed
(``recalled-copy``). A false claim the agent repeats each session word for word (a sleeper,
or eight "search result" notes planted again) then stays at 1x; the same observation made
again in other words is new evidence, as before.

The lines compared are the continuity's lines (a bullet without its bullet) without their
data labels, headings and pattern lines left out: a pattern's explanation is a few of its
evidence's words, and an honest new note on the same topic often holds them (measured:
comparing explanations too blocked no attack of ``bench/poison.py`` and cost 5 honest
graduations). Nothing is written: the episode keeps its row, the save only declines to
count it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from anneal_memory.document._datalabel import strip_data_labels
from anneal_memory.document._markers import parse_pattern_line
from anneal_memory.store.provenance import is_copy, text_words

__all__ = ["continuity_lines", "restated_lines"]

_MIN_WORDS = 3
"""A line of fewer words (a date, "Nothing recorded") is not compared."""


def _line_text(raw: str) -> str:
    line = strip_data_labels(raw.strip())
    pattern = parse_pattern_line(line)
    if pattern is not None or line.startswith("#"):
        return ""
    return line[2:] if line[:2] in ("- ", "* ", "+ ") else line


def continuity_lines(text: str | None) -> dict[frozenset[str], str]:
    """The words of each comparable line of ``text`` -> the line's shown text."""
    out: dict[frozenset[str], str] = {}
    for raw in (text or "").splitlines():
        shown = _line_text(raw)
        words = text_words(shown)
        if len(words) >= _MIN_WORDS:
            out.setdefault(words, shown)
    return out


def restated_lines(snapshot: Mapping[str, str], continuity: str | None) -> dict[str, str]:
    """Snapshot episodes repeating a line of ``continuity``: episode id -> that line.

    One pass: each line's words are indexed once, and an episode is compared only with the
    lines it shares words with (:func:`~anneal_memory.store.provenance.is_copy`'s bounds).
    """
    lines = continuity_lines(continuity)
    if not lines or not snapshot:
        return {}
    index: dict[str, list[frozenset[str]]] = {}
    for words in lines:
        for word in words:
            index.setdefault(word, []).append(words)
    out: dict[str, str] = {}
    for ident, text in snapshot.items():
        mine = text_words(text)
        shared: Counter[frozenset[str]] = Counter()
        for word in mine:
            shared.update(index.get(word, ()))
        for words, _count in shared.most_common():
            if is_copy(mine, words):
                out[ident] = lines[words]
                break
    return out
