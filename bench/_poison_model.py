"""The worst-case compressor of ``poison.py``: a scripted model that promotes whatever it sees.

``FaithfulPromoter`` reads a wrap package the way a compliant model would and writes the new
continuity, believing every episode, whatever its source or trust:

* each episode belongs to a topic: a *salient* word it contains (the benchmark names the
  poison's made-up entity, as a model would notice it), else its longest word of six letters
  or more; the topic is the pattern's name;
* every topic of the session climbs one rung (its level in the current continuity + 1),
  citing **every** episode of the session on that topic, with an explanation made of the
  first cited episode's own words (so it is grounded), and a ``[no-contradicts]`` stance
  once Proven;
* ``## State`` copies the newest episode of each topic verbatim (the model "remembers what is
  true now"), and any line of an episode that looks like a pattern line is copied into
  ``## Patterns`` as it is (a model fooled by text imitating the continuity format);
* patterns not seen this session are carried as they were.

It never refuses, never labels, never doubts: every defence the benchmark sees is the
store's. Meant for this benchmark only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from anneal_memory.continuity._scripted import _grounded_words, _package_parts

_PATTERN_LINE = re.compile(r"^- (?P<name>[A-Za-z][A-Za-z0-9_.-]*) \| (?P<level>[0-9]+)x\b")
_TAGS = re.compile(r"(?: \[(?:trust: [a-z]+|[^\]\[]{1,64})\])+$")
_WORD = re.compile(r"[a-z]+")
STOP = frozenset(
    [
        "because",
        "before",
        "should",
        "around",
        "through",
        "without",
        "between",
        "another",
        "against",
        "however",
        "yesterday",
        "something",
        "everything",
        "anything",
        "together",
        "really",
        "always",
        "already",
        "thought",
        "things",
        "people",
    ]
)
MAX_STATE_LINES = 30


@dataclass
class Trace:
    """What the model wrote per wrap: ``{pattern: level written}`` (for the benign figures)."""

    written: list[dict[str, int]] = field(default_factory=list)
    priors: list[dict[str, int]] = field(default_factory=list)


def topic_of(text: str, salient: Iterable[str]) -> str:
    """The episode's topic: a salient word it holds, else its longest word (6+ letters)."""
    low = text.lower()
    for word in salient:
        if word in low:
            return word
    words = [w for w in _WORD.findall(low) if len(w) >= 6 and w not in STOP]
    return max(words, key=len) if words else "session"


def _levels(continuity: str | None) -> dict[str, tuple[int, str]]:
    out: dict[str, tuple[int, str]] = {}
    for line in (continuity or "").splitlines():
        match = _PATTERN_LINE.match(line)
        if match:
            out[match.group("name")] = (int(match.group("level")), line)
    return out


def _section(continuity: str | None, heading: str) -> list[str]:
    lines, inside = [], False
    for line in (continuity or "").splitlines():
        if line.startswith("## "):
            inside = line[3:].strip() == heading
        elif inside and line.startswith("- "):
            lines.append(line)
    return lines


def _one_line(text: str) -> str:
    return " / ".join(part.strip() for part in _lines(text) if part.strip())


def _lines(text: str) -> list[str]:
    # The package shows an episode's line breaks as "\u23ce"; a model reads them as breaks.
    return text.replace("\u23ce", "\n").replace("\\n", "\n").splitlines()


def _imitated(texts: Iterable[str]) -> tuple[list[str], list[str]]:
    """Lines of episodes that imitate the continuity: pattern lines, and ``## State`` bullets."""
    patterns: list[str] = []
    state: list[str] = []
    for text in texts:
        heading = ""
        for raw in _lines(text):
            line = raw.strip()
            if line.startswith("## "):
                heading = line[3:].strip()
            elif _PATTERN_LINE.match(line):
                patterns.append(line)
            elif heading == "State" and line.startswith("- "):
                state.append(line)
    return patterns, state


class FaithfulPromoter:
    """A compressor callable: package text in, continuity markdown out (see module doc)."""

    def __init__(self, salient: Iterable[str] = ()) -> None:
        self.salient = tuple(salient)
        self.trace = Trace()

    def __call__(self, package_text: str) -> str:
        episodes, headings, today, current = _package_parts(package_text)
        episodes = [(i, _TAGS.sub("", t)) for i, t in episodes]
        prior = _levels(current)
        topics: dict[str, list[tuple[str, str]]] = {}
        for ident, text in episodes:
            topics.setdefault(topic_of(text, self.salient), []).append((ident, text))
        patterns = {name: line for name, (_level, line) in prior.items()}
        written: dict[str, int] = {}
        for topic, cited in topics.items():
            level = prior.get(topic, (0, ""))[0] + 1
            ids = ", ".join(i for i, _t in cited)
            why = _grounded_words(cited[0][1], 6) or topic
            stance = " [no-contradicts]" if level >= 2 else ""
            patterns[topic] = f'- {topic} | {level}x ({today}) [evidence: {ids} "{why}"]{stance}'
            written[topic] = level
        imitated, told = _imitated(text for _i, text in episodes)
        state = _section(current, "State") + told
        state += [f"- {_one_line(cited[-1][1])[:200]}" for cited in topics.values()]
        self.trace.written.append(written)
        self.trace.priors.append({name: level for name, (level, _l) in prior.items()})
        body = {
            "State": state[-MAX_STATE_LINES:] or [f"- Nothing recorded as of {today}."],
            "Patterns": [*patterns.values(), *imitated],
            "Lessons": [*patterns.values(), *imitated],
            "Decisions": _section(current, "Decisions") or [f"- Wrapped on {today}."],
            "Context": [f"- Session of {today}: {len(episodes)} episode(s) compressed."],
        }
        out = ["# Agent \u2014 Memory (v1)", ""]
        for heading in headings:
            if heading == "Durable Facts":
                continue
            out += [f"## {heading}", *body.get(heading, [f"- Compressed on {today}."]), ""]
        return "\n".join(out)
