"""What a question asks for: a decision, an outcome, an open question, or a time.

Recall reads the question's shape and turns it into bounded priors, never filters: an
episode of the favoured type, or recorded inside the time the question names, has its
score multiplied by ``1 + TYPE_PRIOR`` / ``1 + TIME_PRIOR`` (at most
:data:`MAX_PRIOR_FACTOR` together), so a better match of another type or time still wins.

Shapes (English, read from the question's words):

* decision (``decision`` episodes): *choose, chose, decide, decision, pick, select, settle,
  opt*, *go / went with*;
* outcome (``outcome``): *happen, result, outcome, wrong, fail, broke, succeed, work out,
  turn out*;
* open question (``question``, ``tension``): *open, unresolved, undecided, unsure, not sure,
  unclear, pending, outstanding, unanswered, tension, trade-off*;
* time: an ISO date (2026-03-01), a day (*3 March 2026*, *March 3rd, 2026*), a month (*March
  2026*, *in March*: the latest March up to now), a year (*in 2025*), *today, yesterday,
  this / last week, month, year*, *N days / weeks / months ago*; with *before*, *after*,
  *since* or *until* in front, the range opens on that side. A *when* question names no time
  and adds none.

Pure: the time is passed in; the stores apply the priors.
"""

from __future__ import annotations

import datetime as _dt
import functools
import re
from dataclasses import dataclass

from anneal_memory._clock import format_timestamp

__all__ = ["MAX_PRIOR_FACTOR", "TIME_PRIOR", "TYPE_PRIOR", "Intent", "read_intent"]

TYPE_PRIOR = 0.3
TIME_PRIOR = 0.3
MAX_PRIOR_FACTOR = (1 + TYPE_PRIOR) * (1 + TIME_PRIOR)

_DECISION = frozenset(
    [
        "choose",
        "chose",
        "chosen",
        "chooses",
        "choosing",
        "decide",
        "decided",
        "decides",
        "deciding",
        "decision",
        "decisions",
        "pick",
        "picked",
        "picking",
        "select",
        "selected",
        "selecting",
        "settle",
        "settled",
        "settling",
        "opt",
        "opted",
    ]
)
_OUTCOME = frozenset(
    [
        "happen",
        "happened",
        "happens",
        "result",
        "results",
        "resulted",
        "outcome",
        "outcomes",
        "wrong",
        "fail",
        "failed",
        "fails",
        "failing",
        "failure",
        "failures",
        "broke",
        "broken",
        "succeed",
        "succeeded",
        "success",
        "successful",
    ]
)
_OPEN = frozenset(
    [
        "unresolved",
        "undecided",
        "unsure",
        "unclear",
        "pending",
        "outstanding",
        "unanswered",
        "tension",
        "tensions",
        "tradeoff",
        "tradeoffs",
    ]
)
_WORDS = re.compile(r"[^\W_]+")
_GO_WITH = re.compile(r"\b(?:go|goes|going|gone|went)\s+with\b")
_TURN_OUT = re.compile(r"\b(?:turn|turns|turned|work|works|worked)\s+out\b")
_STILL_OPEN = re.compile(
    r"\b(?:still|left|remains?|remaining|stay(?:s|ed)?)\s+open\b"
    r"|\bopen\s+(?:questions?|issues?|items?|points?|problems?)\b"
    r"|\bnot\s+(?:yet\s+)?(?:sure|decided|settled|resolved)\b|\btrade-offs?\b"
)

_MONTHS = {
    name: index
    for index, names in enumerate(
        (
            "january jan",
            "february feb",
            "march mar",
            "april apr",
            "may",
            "june jun",
            "july jul",
            "august aug",
            "september sep sept",
            "october oct",
            "november nov",
            "december dec",
        ),
        start=1,
    )
    for name in names.split()
}
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAYNUM = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"
_SIDE = r"(?:(?P<side>before|after|since|until|till|by)\s+(?:the\s+)?)?"
# Without a year, a date needs a word in front ("on March 3", "in May", "before the 3rd of
# May"), so "we may 5x it" names no date.
_LEAD = r"\b(?:(?P<side>before|after|since|until|till|by)|on|in)\s+(?:the\s+)?"
# Compiled on the first question that could name a date (a digit or a month word): most
# questions never pay for these eight expressions (start-up speed, #25).
_DATE_SOURCES = (
    _SIDE + r"\b(?P<iso>\d{4}-\d{2}-\d{2})\b",
    _SIDE + rf"\b{_DAYNUM}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b",
    _SIDE + rf"\b{_MONTH}\s+{_DAYNUM},?\s+{_YEAR}\b",
    _SIDE + rf"\b{_MONTH},?\s+{_YEAR}\b",
    _LEAD + rf"{_DAYNUM}\s+(?:of\s+)?{_MONTH}\b",
    _LEAD + rf"{_MONTH}\s+{_DAYNUM}\b",
    _LEAD + rf"{_MONTH}\b(?!\s*\d)",
    _LEAD + rf"{_YEAR}\b",
)
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
_AGO = re.compile(
    r"\b(?P<count>\d{1,3}|" + "|".join(_NUMBERS) + r")\s+(?P<unit>day|week|month)s?\s+ago\b"
)
_RELATIVE = re.compile(_SIDE + r"\b(?P<when>today|yesterday|(?:this|last)\s+(?:week|month|year))\b")


@dataclass(frozen=True, slots=True, kw_only=True)
class Intent:
    """The priors one question asks for: favoured episode types and a time range.

    ``since`` / ``until`` are store timestamps (inclusive); None leaves that side open.
    """

    types: frozenset[str] = frozenset()
    since: str | None = None
    until: str | None = None

    @property
    def timed(self) -> bool:
        """True when the question names a time."""
        return self.since is not None or self.until is not None

    def factor(self, episode_type: str, ts: str) -> float:
        """The score multiplier of an episode of this type recorded at ``ts``."""
        factor = 1.0 + TYPE_PRIOR if episode_type in self.types else 1.0
        if self.timed and (self.since or "") <= ts <= (self.until or "~"):
            factor *= 1.0 + TIME_PRIOR
        return factor


def _types(text: str, words: set[str]) -> frozenset[str]:
    found: set[str] = set()
    if words & _DECISION or _GO_WITH.search(text):
        found.add("decision")
    if words & _OUTCOME or _TURN_OUT.search(text):
        found.add("outcome")
    if words & _OPEN or _STILL_OPEN.search(text):
        found.update(("question", "tension"))
    return frozenset(found)


def _day(year: int, month: int, day: int) -> tuple[_dt.datetime, _dt.datetime] | None:
    try:
        start = _dt.datetime(year, month, day, tzinfo=_dt.timezone.utc)
    except ValueError:
        return None
    return start, start + _dt.timedelta(days=1)


def _month(year: int, month: int) -> tuple[_dt.datetime, _dt.datetime]:
    start = _dt.datetime(year, month, 1, tzinfo=_dt.timezone.utc)
    after = _dt.datetime(year + month // 12, month % 12 + 1, 1, tzinfo=_dt.timezone.utc)
    return start, after


def _named(match: re.Match[str], now: _dt.datetime) -> tuple[_dt.datetime, _dt.datetime] | None:
    """The range a date match names: ``[start, end)``."""
    parts = match.groupdict()
    if parts.get("iso"):
        y, m, d = (int(x) for x in parts["iso"].split("-"))
        return _day(y, m, d)
    month: int | None = _MONTHS[parts["month"]] if parts.get("month") else None
    year: int | None = int(parts["year"]) if parts.get("year") else None
    if not 1 <= (year or now.year) <= 9998:
        return None
    if month is None:
        start = _dt.datetime(year or now.year, 1, 1, tzinfo=_dt.timezone.utc)
        return start, start.replace(year=start.year + 1)
    day: int | None = int(parts["day"]) if parts.get("day") else None
    if year is None:
        # A date without a year is the latest one up to now.
        year = now.year if (month, day or 1) <= (now.month, now.day) else now.year - 1
    return _month(year, month) if day is None else _day(year, month, day)


def _relative(when: str, now: _dt.datetime) -> tuple[_dt.datetime, _dt.datetime]:
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if when in {"today", "yesterday"}:
        start = today - _dt.timedelta(days=when == "yesterday")
        return start, start + _dt.timedelta(days=1)
    this, unit = when.split()
    back = this == "last"
    if unit == "week":
        start = today - _dt.timedelta(days=today.weekday() + 7 * back)
        return start, start + _dt.timedelta(days=7)
    if unit == "month":
        month = today.month - back
        year = today.year - (month < 1)
        return _month(year, month % 12 or 12)
    start = today.replace(month=1, day=1, year=today.year - back)
    return start, start.replace(year=start.year + 1)


def _ago(match: re.Match[str], now: _dt.datetime) -> tuple[_dt.datetime, _dt.datetime]:
    count = _NUMBERS.get(match.group("count")) or int(match.group("count"))
    days = {"day": 1, "week": 7, "month": 30}[match.group("unit")] * count
    middle = now - _dt.timedelta(days=days)
    slack = _dt.timedelta(days=max(1, days // 4))
    return middle - slack, middle + slack


@functools.cache
def _date_patterns() -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(source) for source in _DATE_SOURCES)


def _dates_in(text: str, words: set[str]) -> tuple[re.Pattern[str], ...]:
    """The date expressions to try: none when ``text`` has no digit and no month word.

    Every one of them needs a digit (a day or a year) or a month name standing as a word.
    """
    if words.isdisjoint(_MONTHS) and not any(map(str.isdigit, text)):
        return ()
    return _date_patterns()


def _time(text: str, now: _dt.datetime, words: set[str]) -> tuple[str | None, str | None]:
    found: tuple[_dt.datetime, _dt.datetime] | None = None
    side = None
    for pattern in _dates_in(text, words):
        if (match := pattern.search(text)) and (found := _named(match, now)):
            side = match.group("side")
            break
    if found is None and (match := _RELATIVE.search(text)):
        found, side = _relative(match.group("when"), now), match.group("side")
    if found is None and (match := _AGO.search(text)):
        found = _ago(match, now)
    if found is None:
        return None, None
    tick = _dt.timedelta.resolution
    start: _dt.datetime | None = found[0]
    end: _dt.datetime | None = found[1] - tick
    if side == "before":
        end, start = found[0] - tick, None
    elif side in {"after", "since"}:
        start, end = (start if side == "since" else found[1]), None
    elif side in {"until", "till", "by"}:
        start = None
    return (
        None if start is None else format_timestamp(start),
        None if end is None else format_timestamp(end),
    )


def read_intent(keyword: str, now: _dt.datetime) -> Intent | None:
    """The priors ``keyword`` asks for at time ``now``; None when it asks for none."""
    lowered = keyword.lower()
    words = set(_WORDS.findall(lowered))
    types = _types(lowered, words)
    try:
        since, until = _time(lowered, now, words)
    except (OverflowError, ValueError):
        since, until = None, None
    if not types and since is None and until is None:
        return None
    return Intent(types=types, since=since, until=until)
