"""Temporal expressions resolved against the turn's time: "last Saturday", "two weeks ago".

Pure functions over text and an anchor time (epoch seconds, UTC), so the same turn replayed
later still means the same days. Each match becomes a ``TimeMention`` covering ``[start, end)``.

>>> anchor = datetime(2023, 1, 18, 15, tzinfo=UTC).timestamp()  # a Wednesday
>>> [m.text for m in find_times("Peter delivered last Saturday", anchor)]
['last Saturday']
"""

from __future__ import annotations

import re
from calendar import monthrange
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta


@dataclass(frozen=True)
class TimeMention:
    """A temporal expression resolved against the turn's time (epoch seconds, [start, end)):
    ``kind`` is its pattern (``relday`` "yesterday", ``weekday`` "last Saturday", ``ago``,
    ``period`` "last week", ``in_month``, ``in_year``, or a written date: ``iso`` ``mdy``
    ``dmy``)."""

    text: str
    start: float
    end: float
    kind: str = ""
    offset: int = 0  # where ``text`` begins in the text it was found in


_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_MONTH_ABBR = {m[:3]: i + 1 for i, m in enumerate(_MONTHS)}
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
    "eleven": 11,
    "twelve": 12,
}
# "next Fri", "last Tues": a weekday's short form, written with its capital only (an "on sat"
# or "last wed" in lower case is more likely words than a day).
_DAY_SHORT = r"(?-i:Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sat|Sun)"
_DAY = "|".join(_WEEKDAYS) + "|" + _DAY_SHORT
_NUM = r"(\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_MONTH_RE = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"  # noqa: E501

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("iso", re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")),
    ("mdy", re.compile(rf"\b{_MONTH_RE}\.? (\d{{1,2}})(?:st|nd|rd|th)?,? (\d{{4}})\b", re.I)),
    (
        "dmy",
        re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)? (?:of )?{_MONTH_RE}\.?,? (\d{{4}})\b", re.I),
    ),
    ("ago", re.compile(rf"\b{_NUM} (day|week|month|year)s? ago\b", re.I)),
    ("relday", re.compile(r"\b(yesterday|today|tonight|tomorrow)\b", re.I)),
    ("weekday", re.compile(rf"\b(last|this|next|on) ({_DAY})\b", re.I)),
    ("period", re.compile(r"\b(last|this|next) (week|month|year)\b", re.I)),
    ("in_month", re.compile(rf"\b(?:in|since|during) {_MONTH_RE}(?: (\d{{4}}))?\b", re.I)),
    ("in_year", re.compile(r"\bin (19\d{2}|20\d{2})\b", re.I)),
]


def _day(d: date) -> tuple[float, float]:
    start = datetime(d.year, d.month, d.day, tzinfo=UTC)
    return start.timestamp(), (start + timedelta(days=1)).timestamp()


def _month(year: int, month: int) -> tuple[float, float]:
    start = datetime(year, month, 1, tzinfo=UTC)
    end = start + timedelta(days=monthrange(year, month)[1])
    return start.timestamp(), end.timestamp()


def _year(year: int) -> tuple[float, float]:
    return (
        datetime(year, 1, 1, tzinfo=UTC).timestamp(),
        datetime(year + 1, 1, 1, tzinfo=UTC).timestamp(),
    )


def _shift_months(d: date, months: int) -> date:
    index = d.year * 12 + d.month - 1 + months
    year, month = divmod(index, 12)
    return date(year, month + 1, min(d.day, monthrange(year, month + 1)[1]))


def is_month(word: str) -> bool:
    """A month's name, whole or cut short ("May", "sept", "Dec.")."""
    return month_name(word) is not None


def month_name(word: str) -> str | None:
    """The full name of the month ``word`` names, whole or cut short ("Sept" → "september"),
    or None."""
    word = word.lower().rstrip(".")
    if word in _MONTHS:
        return word
    if word in _MONTH_ABBR or word == "sept":
        return _MONTHS[_MONTH_ABBR[word[:3]] - 1]
    return None


def _month_number(word: str) -> int:
    return _MONTH_ABBR[word[:3].lower()]


def _number(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBERS[word.lower()]


def _resolve(kind: str, m: re.Match[str], today: date) -> tuple[float, float] | None:
    g = m.groups()
    if kind == "iso":
        return _day(date(int(g[0]), int(g[1]), int(g[2])))
    if kind == "mdy":
        return _day(date(int(g[2]), _month_number(g[0]), int(g[1])))
    if kind == "dmy":
        return _day(date(int(g[2]), _month_number(g[1]), int(g[0])))
    if kind == "ago":
        n, unit = _number(g[0]), g[1].lower()
        if unit == "day":
            return _day(today - timedelta(days=n))
        if unit == "week":
            start = today - timedelta(weeks=n)
            return _day(start)[0], _day(start + timedelta(days=6))[1]
        if unit == "month":
            shifted = _shift_months(today, -n)
            return _month(shifted.year, shifted.month)
        return _year(today.year - n)
    if kind == "relday":
        offset = {"yesterday": -1, "today": 0, "tonight": 0, "tomorrow": 1}[g[0].lower()]
        return _day(today + timedelta(days=offset))
    if kind == "weekday":
        which, day = g[0].lower(), g[1].lower()[:3]
        target = next(i for i, w in enumerate(_WEEKDAYS) if w.startswith(day))
        delta = target - today.weekday()
        if which == "last":
            delta = delta - 7 if delta >= 0 else delta
        elif which == "next":
            delta = delta + 7 if delta <= 0 else delta
        elif which == "on" and delta > 0:
            delta -= 7  # "on Monday" in a report of what happened: the most recent one
        return _day(today + timedelta(days=delta))
    if kind == "period":
        which, unit = g[0].lower(), g[1].lower()
        step = {"last": -1, "this": 0, "next": 1}[which]
        if unit == "week":
            monday = today - timedelta(days=today.weekday()) + timedelta(weeks=step)
            return _day(monday)[0], _day(monday + timedelta(days=6))[1]
        if unit == "month":
            shifted = _shift_months(today.replace(day=1), step)
            return _month(shifted.year, shifted.month)
        return _year(today.year + step)
    if kind == "in_month":
        month = _month_number(g[0])
        if g[1]:
            return _month(int(g[1]), month)
        # "in March" without a year: the latest March that has started by the turn's time.
        year = today.year if month <= today.month else today.year - 1
        return _month(year, month)
    return _year(int(g[0]))


def find_times(text: str, at: float) -> list[TimeMention]:
    """Temporal expressions in ``text`` resolved against ``at``, in text order, no overlaps."""
    today = datetime.fromtimestamp(at, tz=UTC).date()
    taken: list[tuple[int, int]] = []
    found: list[TimeMention] = []
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            if any(m.start() < e and s < m.end() for s, e in taken):
                continue
            try:
                span = _resolve(kind, m, today)
            except (ValueError, KeyError):
                continue  # "February 30, 2023" and the like: not a date, not an error
            if span is not None:
                taken.append((m.start(), m.end()))
                found.append(TimeMention(m.group(0), span[0], span[1], kind, m.start()))
    return sorted(found, key=lambda t: t.offset)


# Expressions whose day depends on when they were said (a written date or year does not),
# and whose day is sure: "on Monday" and "in March" may be the last one or the next one.
RELATIVE = frozenset({"relday", "weekday", "ago", "period"})
# A word every one of them has: most lines have none, and skip the eight patterns.
_RELATIVE_WORD = re.compile(r"\b(?:yesterday|tomorrow|tonight|ago|last|this|next)\b", re.I)


def dated(text: str, at: float) -> str:
    """``text`` with each relative time expression followed by the days it meant when said
    at ``at``: "we went yesterday" said on 8 May 2023 → "we went yesterday [2023-05-07]";
    "last week [week of 2023-05-01]", "two months ago [March 2023]". The words stay as said;
    a reader months later (a model reading a context) gets the day without working it out.
    Left alone: what means the day it was said ("today"), and what could be either side of
    it ("on Monday", "in March": a report or a plan).

    >>> dated("we went yesterday", datetime(2023, 5, 8, 12, tzinfo=UTC).timestamp())
    'we went yesterday [2023-05-07]'
    """
    if not _RELATIVE_WORD.search(text):
        return text
    said = datetime.fromtimestamp(at, tz=UTC).date()
    out: list[str] = []
    last = 0
    for t in find_times(text, at):
        if t.kind not in RELATIVE or t.text.lower().startswith("on "):
            continue
        start = datetime.fromtimestamp(t.start, tz=UTC).date()
        days = round((t.end - t.start) / 86_400)
        if days <= 1 and start == said:
            continue  # "today", "tonight": the day of the line itself
        end = t.offset + len(t.text)
        out.append(f"{text[last:end]} [{_span(start, days)}]")
        last = end
    return "".join(out) + text[last:] if out else text


def _span(start: date, days: int) -> str:
    if days <= 1:
        return start.isoformat()
    if days <= 7:
        return f"week of {start.isoformat()}"
    if days <= 31:
        return f"{_MONTHS[start.month - 1].capitalize()} {start.year}"
    return str(start.year)
