"""Statements and their values as plain data: what a sentence asserts (its mood), the values
it gives (numbers, amounts, times, dates, names, codes ...) with their normal forms, and its
frame (the sentence with its values masked). ``ingest/slots/`` reads them from a parse;
``core/slots.py`` compares them; the read path compares stored ones again. Pure; no I/O.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

from core.times import month_name

ASSERT, REQUEST = "assert", "request"
QUESTION, CONDITIONAL, MODAL, PLAN = "question", "conditional", "modal", "plan"
REPORTED, HISTORY, NEGATION, EVENT = "reported", "history", "negation", "event"
SLOTTED = frozenset({ASSERT, REQUEST})  # moods whose values a slot holds

# Kinds a value can have. Two values can replace each other only within one family.
TIME, DATE, MONEY, PERCENT, NUMBER, NAME, EMAIL, URL, CODE, QUOTE, WORD = (
    "time",
    "date",
    "money",
    "percent",
    "number",
    "name",
    "email",
    "url",
    "code",
    "quote",
    "word",
)
DURATION = "duration"  # "3 days", "two weeks", "a month": how long, an amount of time
_FAMILY = {
    DURATION: "duration",
    TIME: "time",
    DATE: "date",
    MONEY: "amount",
    PERCENT: "amount",
    NUMBER: "amount",
    NAME: "thing",
    WORD: "thing",
    QUOTE: "thing",
    CODE: "code",
    EMAIL: "address",
    URL: "address",
}
_NUMBER_WORDS = {
    "zero": 0,
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
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
    "hundred": 100,
    "thousand": 1000,
    "half": 30,
    "quarter": 15,
}
_FRACTIONS = {"half": 0.5, "quarter": 0.25}  # as amounts ("half" above is of an hour)


@dataclass(frozen=True)
class Value:
    """One value as said: its text and span in the turn, its kind and its normal form."""

    text: str
    kind: str
    norm: str
    start: int  # character offsets in the turn's text
    end: int
    first: int  # token indices in the doc, [first, last]
    last: int

    @property
    def family(self) -> str:
        return _FAMILY.get(self.kind, self.kind)

    def part(self, word: Value) -> Value | None:
        """The part of this value ``word`` names ("Jenny" of "Jenny Morales"), if any."""
        return _part_of(self, word)

    def same(self, other: Value) -> bool:
        """The same value said twice (maybe in other words)."""
        return (
            self.norm == other.norm
            or self.family == other.family
            and _loose(self.norm) == _loose(other.norm)
            or _loose(self.text) == _loose(other.text) != ""
            or _hour_of(self) is not None
            and _hour_of(self) == _hour_of(other)
            or self.kind == other.kind == NAME
            and _within(self.norm, other.norm)
        )

    def misspells(self, other: Value) -> bool:
        """Whether this value is ``other`` with a slip fixed: a code, a name, an email or an
        address said again with two characters swapped or one character other, more or
        fewer ("555-0184" for "555-0148", "Catherine" for "Katherine", "KX7 2MR" for "KX7
        2RM"). Amounts, times and dates are values in their own right (£1,350 is no slip of
        £1,250). A name must be long enough that one letter is a slip, not another name."""
        if self.same(other):
            return False
        a, b = _loose(self.norm), _loose(other.norm)
        if self.kind == other.kind == NUMBER:  # "4417" for "4471": two digits swapped in
            return (  # a number of four or more (a PIN, a code); not one digit other (£1,350)
                len(a) == len(b) >= 4 and a.isdigit() and b.isdigit() and _swapped(a, b)
            )
        if NUMBER in (self.kind, other.kind):  # "it ends in 2292" of "spruce-2291"
            number, code = (a, other) if self.kind == NUMBER else (b, self)
            groups = re.findall(r"\d+", code.norm) if code.kind == CODE else []
            return len(number) >= 4 and bool(groups) and _one_slip(number, groups[-1])
        if self.kind not in _SPELT or other.kind not in _SPELT:
            return False
        shortest = 5 if NAME in (self.kind, other.kind) else 4
        return min(len(a), len(b)) >= shortest and a != b and _one_slip(a, b)


_SPELT = frozenset({NAME, CODE, EMAIL, URL})


def _one_slip(a: str, b: str) -> bool:
    """Two adjacent characters swapped, or one character changed, added or left out."""
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (
            len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
            and a[diff[1]] == b[diff[0]]
        )  # fmt: skip
    if abs(len(a) - len(b)) != 1:
        return False
    short, long = sorted((a, b), key=len)
    i = next((k for k in range(len(short)) if short[k] != long[k]), len(short))
    return short[i:] == long[i + 1 :]


def slips(new: Statement, old: Statement) -> tuple[tuple[Value, Value], ...]:
    """The (old, new) value pairs where ``new`` gives a value of ``old`` with a slip fixed
    ("10.0.4.71" for "10.0.4.17", "7KLN392" for "7KLM392")."""
    return tuple((o, n) for n in new.values for o in old.values if n.misspells(o))


def _swapped(a: str, b: str) -> bool:
    """Two adjacent characters swapped, and nothing else."""
    diff = [i for i in range(len(a)) if a[i] != b[i]]
    return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]


def _within(a: str, b: str) -> bool:
    """One name inside the other, word for word ("Ozone", "Ozone Coffee Roasters")."""
    short, long = sorted((a.split(), b.split()), key=len)
    return bool(short) and all(w in long for w in short)


def _part_of(whole: Value, word: Value) -> Value | None:
    """The words of ``whole`` that ``word`` names ("Jenny" in "Jenny Morales"), as a value."""
    if whole.family != "thing" or len(word.text) < 2:
        return None
    found = re.search(rf"(?<!\w){re.escape(word.text)}(?!\w)", whole.text, re.I)
    if found is None or found.group() == whole.text:
        return None
    a, b = whole.start + found.start(), whole.start + found.end()
    return Value(found.group(), whole.kind, normal(found.group(), whole.kind), a, b, -1, -1)


def _hour_of(v: Value) -> int | None:
    """The hour a bare hour or an o'clock time names ("3", "3 pm" and "15:00" are 3)."""
    if v.kind == TIME and v.norm.endswith(":00"):
        return int(v.norm[:2]) % 12
    if v.kind == NUMBER and is_hour(v.text.strip()):
        return int(v.text.strip()) % 12
    return None


def words(text: str) -> frozenset[str]:
    """A closed list of words, written as one string."""
    return frozenset(text.split())


def replaceable(a: Value, b: Value) -> bool:
    """Whether ``b`` can stand where ``a`` stood: values of one family (a time for a time, an
    amount for an amount, a name or word for a name or word)."""
    if a.kind != b.kind and {a.kind, b.kind} <= _MEASURES:
        return False  # a price is no share, nor a length of time: "20%" never becomes "$30"
    if a.family == b.family:
        return True
    # "the call is at 3" ... "sorry, 4": a bare hour stands for a time; a time never takes the
    # place of a count ("a table for 2" is not "a table for quarter past 12")
    return a.kind == TIME and b.kind == NUMBER and is_hour(b.text.strip())


_MEASURES = frozenset({MONEY, PERCENT, DURATION})


def is_hour(text: str) -> bool:
    return text.isdigit() and 1 <= int(text) <= 24


_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def weekday(text: str) -> str | None:
    """The day of the week ``text`` names, however said ("Tuesdays", "thurs", "Weds", "Sat"),
    as its full name; None for anything else."""
    word = text.strip().lower().rstrip(".")
    if word.endswith("days"):
        word = word[:-1]
    if word == "weds":
        return "wednesday"
    return next((d for d in _WEEKDAYS if len(word) >= 3 and d.startswith(word)), None)


def normal(text: str, kind: str) -> str:
    """A value's comparable form: case, spacing, thousands separators, currency words and
    number words do not count; times become ``HH:MM``."""
    flat = " ".join(text.casefold().replace(",", "").split())
    flat = flat.strip(".!?;:'\"“”‘’()")
    if kind == TIME:
        return _clock(flat) or flat
    if kind == DURATION:  # "three days", "3 day", "a week": 3 day, 1 week
        number = _number(flat) or (1.0 if re.match(r"an? ", flat) else None)
        unit = re.split(r"[\s-]+", flat)[-1].rstrip("s")  # "2-week": week
        return f"{number:.15g} {unit}" if number is not None else flat
    if kind in (NUMBER, MONEY, PERCENT):
        number = _number(flat)
        if number is not None:
            unit = re.sub(r"[\d.\s]+|" + "|".join(_NUMBER_WORDS), "", flat).strip()
            return f"{number:.15g}{(' ' + unit) if unit and kind != NUMBER else ''}"
    if kind == DATE and (day := weekday(flat)):
        return day  # "tuesdays", "Tues": tuesday
    if kind == DATE and (month_day := _month_day(flat)):
        return month_day  # "the 6th of March", "march 6th", "6 March": march 6
    if kind == NAME:
        return re.sub(r"^(?:the|a|an)\s+|'s$", "", flat)
    return flat


_DAY_MONTH = re.compile(r"(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?([a-z]+)\.?(\s+\d{4})?")
_MONTH_DAY = re.compile(r"([a-z]+)\.?\s+(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?(\s+\d{4})?")


def _month_day(flat: str) -> str | None:
    """A day of a named month in one form ("6th of march", "march 6th": "march 6"), its
    year kept; None for any other date."""
    m = _DAY_MONTH.fullmatch(flat)
    day, month = (m.group(1), m.group(2)) if m else (None, None)
    if m is None and (m := _MONTH_DAY.fullmatch(flat)):
        month, day = m.group(1), m.group(2)
    if m is None or day is None or month is None or not 1 <= int(day) <= 31:
        return None
    name = month_name(month)
    return None if name is None else f"{name} {int(day)}{m.group(3) or ''}"


def _loose(norm: str) -> str:
    """Letters and digits only, lowercased ("KX7 2RM" is "kx72rm", not "72")."""
    return re.sub(r"[^a-z0-9]", "", norm.lower())


def _number(text: str) -> float | None:
    digits = re.search(r"\d+(?:\.\d+)?", text)
    if digits:
        value = float(digits.group())
        if re.search(r"\d\s*k\b", text):
            value *= 1000
        elif re.search(r"\d\s*(?:m|mn|million)\b", text):
            value *= 1_000_000
        return value
    total = 0.0
    for word in re.findall(r"[a-z]+", text):
        if word in _FRACTIONS:  # "half a tablet", "two and a half"
            total += _FRACTIONS[word]
        elif word in _NUMBER_WORDS:
            n = _NUMBER_WORDS[word]
            total = total * n if n in (100, 1000) and total else total + n
    return total if total else None


def _clock(text: str) -> str | None:
    """``"7:30 pm"`` → ``"19:30"``; ``"half past 11 in the morning"`` → ``"11:30"``."""
    m = re.search(r"(\d{1,2})(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)?", text)
    hour: int | None = None
    minute = 0
    if m:
        hour, minute = int(m.group(1)), int(m.group(2) or 0)
        pm = m.group(3) and m.group(3).startswith("p")
    else:
        words = re.findall(r"[a-z]+", text)
        hour = next((_NUMBER_WORDS[w] for w in words if _NUMBER_WORDS.get(w, 99) <= 12), None)
        pm = False
    if hour is None:
        return {"noon": "12:00", "midnight": "00:00"}.get(text)
    if "half past" in text or re.match(r"half \w", text):  # "half seven": 7:30 (British)
        minute = 30
    elif "quarter past" in text:
        minute = 15
    elif "quarter to" in text:
        hour, minute = hour - 1, 45
    if pm or re.search(r"afternoon|evening|night", text):
        hour = hour + 12 if hour < 12 else hour
    return f"{hour % 24:02d}:{minute:02d}"


@dataclass(frozen=True)
class Statement:
    """One sentence of a turn as comparable parts (see the module docstring)."""

    text: str
    start: int  # offsets in the turn's text
    end: int
    mood: str
    frame: tuple[str, ...]
    subject: tuple[str, ...] = ()
    values: tuple[Value, ...] = ()
    negated: tuple[Value, ...] = ()  # values said not to be so: "4, not 3", "instead of X"
    named: tuple[Value, ...] = ()  # names and numbers in the subject ("Jenny Morales is ...")
    correction: bool = False  # "sorry", "actually", "I meant", "typo", "scratch that"
    change: bool = False  # "now", "switched to", "no longer", "from X to Y"
    words: frozenset[str] = field(default_factory=frozenset)  # the frame's content lemmas

    @property
    def slotted(self) -> bool:
        """Whether this statement holds values a later statement may replace: said as so, or
        told as an event that changed them ("finally finished upgrading the prod db to pg 15";
        "Felix took over the sales team, so reviews are with Felix now")."""
        return bool(self.values) and (self.mood in SLOTTED or self.mood == EVENT and self.change)

    def dumps(self) -> str:
        """A compact line for the graph (``loads`` reads it back)."""
        return json.dumps(
            [
                self.start,
                self.end,
                self.mood,
                list(self.frame),
                list(self.subject),
                [_value_row(v) for v in self.values],
                [_value_row(v) for v in self.negated],
                int(self.correction) | int(self.change) << 1,
                [_value_row(v) for v in self.named],
            ],
            separators=(",", ":"),
            ensure_ascii=False,
        )

    @staticmethod
    def loads(line: str, text: str) -> Statement:
        """A statement stored by ``dumps``; ``text`` is the memory's content."""
        start, end, mood, frame, subject, values, negated, flags, *rest = json.loads(line)
        named = rest[0] if rest else []
        return Statement(
            text=text[start:end],
            start=start,
            end=end,
            mood=mood,
            frame=tuple(frame),
            subject=tuple(subject),
            values=tuple(_value_of(r, text) for r in values),
            negated=tuple(_value_of(r, text) for r in negated),
            named=tuple(_value_of(r, text) for r in named),
            correction=bool(flags & 1),
            change=bool(flags & 2),
            words=content_words(frame),
        )


def moved(line: str, by: int) -> str:
    """A stored statement line (``Statement.dumps``) for a text that starts ``-by``
    characters later: its offsets and its values' moved by ``by``."""
    row = json.loads(line)
    row[0] += by
    row[1] += by
    for k in (5, 6, 8):
        for v in row[k] if k < len(row) else []:
            v[2] += by
            v[3] += by
    return json.dumps(row, separators=(",", ":"), ensure_ascii=False)


def _value_row(v: Value) -> list[Any]:
    return [v.kind, v.norm, v.start, v.end]


def _value_of(row: list[Any], text: str) -> Value:
    kind, norm, start, end = row
    return Value(text[start:end], kind, norm, start, end, -1, -1)


def content_words(frame: list[str] | tuple[str, ...]) -> frozenset[str]:
    return frozenset(w for w in frame if not w.startswith("<"))


_AMOUNTS = (
    (MONEY, re.compile(r"[£$€¥]\s?\d+(?:,\d{3})*(?:\.\d+)?(?:\s?[kKmM]\b)?")),
    (PERCENT, re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s?(?:%|percent\b)")),
    (TIME, re.compile(r"(?<![\w.:])\d{1,2}(?::\d{2})?\s?(?:am|pm|a\.m\.|p\.m\.)(?!\w)", re.I)),
    (TIME, re.compile(r"(?<![\w.:])\d{1,2}:\d{2}(?![\w:])")),
    (
        NUMBER,
        re.compile(
            r"(?<![\w.£$€¥,])\d+(?:,\d{3})*(?:\.\d+)?(?:st|nd|rd|th)?(?:\s?[kK]\b)?(?:\s[a-zA-Z]+)?"
        ),
    ),
)


def amounts(text: str) -> list[Value]:
    """The amounts of a text (``"£1,500"``, ``"80%"``, ``"150 words"``: a plain number with
    the word after it, its unit), as values, without a parse: for texts stored without
    statements."""
    out: list[Value] = []
    taken: set[int] = set()
    for kind, pattern in _AMOUNTS:
        for m in pattern.finditer(text):
            if taken & set(range(m.start(), m.end())):
                continue
            taken.update(range(m.start(), m.end()))
            said = m.group(0)
            out.append(Value(said, kind, normal(said, kind), m.start(), m.end(), -1, -1))
    return sorted(out, key=lambda v: v.start)


def unit_of(value: Value) -> str:
    """What an amount counts: its currency, "%", or the word after a plain number."""
    if value.kind == MONEY:
        return next((c for c in value.text if c in "£$€¥"), "")
    if value.kind == PERCENT:
        return "%"
    if value.kind == TIME:
        return "time"
    if value.kind == DURATION:
        return value.norm.split()[-1]
    word = re.sub(r"^[\d,.\s]+(?:st|nd|rd|th)?[kK]?\s*", "", value.text).lower()
    return word.rstrip(".,;:!?").rstrip("s")


_NAMESPACE = uuid.UUID("7d0c9f5e-3b1a-4c38-9a51-2f0d6c1e8b42")


def statement_id(memory_id: str, start: int) -> str:
    """The id of the statement memory of the sentence at ``start`` of memory ``memory_id``
    (a turn): the same every time, so a turn's statement gets one memory, made when it is
    first needed (``ingest/write/slots.py``), and a read can tell the turn from it."""
    return str(uuid.uuid5(_NAMESPACE, f"{memory_id}#{start}"))
