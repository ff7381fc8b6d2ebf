"""A scripted compressor: turns a wrap package into a continuity the way a model would.

Deterministic and offline, for demos (``anneal-memory demo``) and tests; the public name is
``anneal_memory.testing.demo_compress``. It lives with the wrap, whose package text it reads,
so the CLI's demo uses it without importing ``anneal_memory.testing`` (the top layer).
"""

from __future__ import annotations

import re

__all__ = ["DEMO_GROUNDED", "DEMO_INVENTED", "demo_compress"]

_DEMO_EPISODE = re.compile(r"^- \((?P<id>[0-9a-f]{8})\) (?P<text>.*?)(?: \[[^\]]*\])?$")
_DEMO_TITLE = re.compile(r"starts with `(# .+? \u2014 Memory \(v1\))`")
_DEMO_HEADING = re.compile(r"^- `## (?P<heading>[^`]+)`")
_DEMO_TODAY = re.compile(r"write (?P<day>[0-9]{4}-[0-9]{2}-[0-9]{2}) only")
_DEMO_LEVEL = re.compile(r"^- (?P<name>[A-Za-z][A-Za-z0-9_.-]*) \| (?P<level>[0-9]+)x")
DEMO_GROUNDED = "shared_state_breaks_parallel_tests"
DEMO_INVENTED = "lunar_cycles_drive_flakiness"


def _package_parts(text: str) -> tuple[list[tuple[str, str]], list[str], str, str | None]:
    episodes: list[tuple[str, str]] = []
    headings: list[str] = []
    today = ""
    current: str | None = None
    in_episodes = False
    fence: str | None = None
    for line in text.split("\n"):
        if fence is not None:
            if line == fence:
                fence = None
                continue
            current = line if current is None else f"{current}\n{line}"
            continue
        if line.startswith("## Episodes This Session"):
            in_episodes = True
        elif line.startswith("## Current Continuity File"):
            in_episodes = False
        elif line.startswith("```") and line.endswith("markdown"):
            fence = line[: -len("markdown")]
        heading, day, episode = _DEMO_HEADING.match(line), _DEMO_TODAY.search(line), None
        if in_episodes:
            episode = _DEMO_EPISODE.match(line)
        if heading and not in_episodes:
            headings.append(heading.group("heading"))
        if day and not today:
            today = day.group("day")
        if episode:
            episodes.append((episode.group("id"), episode.group("text")))
    return episodes, headings, today, current


def _levels(continuity: str | None) -> dict[str, int]:
    found = (_DEMO_LEVEL.match(line) for line in (continuity or "").split("\n"))
    return {m.group("name"): int(m.group("level")) for m in found if m}


def _grounded_words(text: str, count: int) -> str:
    from anneal_memory.immune._grounding import grounding_words

    seen: list[str] = []
    for token in re.split(r"[^0-9a-z]+", text.casefold()):
        if token in grounding_words(token) and token not in seen:
            seen.append(token)
    return " ".join(seen[:count])


def demo_compress(package_text: str) -> str:
    """A deterministic stand-in for a model: compress a wrap package's text into a continuity.

    It writes every schema section, carries the current durable facts, and two pattern lines
    citing real episode ids of the package: ``shared_state_breaks_parallel_tests`` with an
    explanation taken from the cited episodes' own words (it climbs one rung per wrap), and
    ``lunar_cycles_drive_flakiness`` claiming a rung with an invented explanation (the immune
    system demotes it ``(ungrounded)``). Meant for demos and tests, never for real memory.
    """
    episodes, headings, today, current = _package_parts(package_text)
    levels = _levels(current)
    richest = sorted(episodes, key=lambda e: -len(_grounded_words(e[1], 50).split()))
    cited = [ident for ident, _text in richest[:2]]
    explanation = _grounded_words(" ".join(t for _i, t in richest[:1]), 6)
    grounded = levels.get(DEMO_GROUNDED, 0) + 1
    invented = levels.get(DEMO_INVENTED, 1) + 1
    stance = " [no-contradicts]" if grounded >= 2 else ""
    patterns = [
        f"- {DEMO_GROUNDED} | {grounded}x ({today}) "
        f'[evidence: {", ".join(cited)} "{explanation}"]{stance}',
        f"- {DEMO_INVENTED} | {invented}x ({today}) "
        f'[evidence: {cited[-1] if cited else "00000000"} "lunar tides steer velvet umbrellas"]'
        " [no-contradicts]",
    ]
    body = {
        "State": [f"- Wrapped {len(episodes)} episode(s) on {today}."],
        "Patterns": patterns,
        "Lessons": patterns,
        "Decisions": [f"- ({i}) {t}" for i, t in episodes[:3]],
        "Context": [f"- Session of {today}: {len(episodes)} episode(s) compressed by the demo."],
    }
    title = _DEMO_TITLE.search(package_text)
    out = [title.group(1) if title else "# Agent \u2014 Memory (v1)", ""]
    for heading in headings:
        if heading == "Durable Facts":
            continue
        out += [f"## {heading}", *body.get(heading, [f"- Compressed on {today}."]), ""]
    return "\n".join(out)
