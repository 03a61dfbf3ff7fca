"""Do two near-identical texts state the same thing? A token-level guard for duplicate merge.

Cosine similarity cannot tell "The warehouse 1 door code is 1000" from "The warehouse 3 door
code is 1000": the sentences share every word but one. A merge hides the loser, so merging two
such memories loses a fact. Two texts pass only when they agree on what makes a statement
about a particular thing particular:

- numbers (digits, dates and times written with digits, number words),
- names (capitalised words: people, organisations, places, products, months, weekdays),
- time words (today, next, last, weekly, before, after, ...),
- negation (not, never, no, n't, without, ...) and contrasting qualifiers (always, sometimes,
  more, less, first, last, ...),
- the words that differ: a word replaced by another ("prefers tea" / "prefers coffee") is a
  different value; a word added on one side only is detail the more specific memory keeps.

It is deliberately strict: a paraphrase that swaps words stays as two memories (a duplicate
kept costs a line in a context; a fact hidden costs an answer). ``bench/duplicates.py``
measures precision and recall on ``tests/data/lifecycle/duplicate_pairs.jsonl``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN = re.compile(r"\d+(?:[.,:/-]\d+)*(?:st|nd|rd|th)?|[A-Za-z]+(?:['’][A-Za-z]+)*")
_OPENERS = " \t\n\"'“‘(*-•#>"  # may stand between a sentence's end and its first word

_NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
    "thirteen": "13", "fourteen": "14", "fifteen": "15", "sixteen": "16", "seventeen": "17",
    "eighteen": "18", "nineteen": "19", "twenty": "20", "thirty": "30", "forty": "40",
    "fifty": "50", "sixty": "60", "seventy": "70", "eighty": "80", "ninety": "90",
    "hundred": "100", "thousand": "1000", "million": "1e6", "billion": "1e9", "dozen": "12",
    "half": "0.5", "twice": "x2", "double": "x2", "triple": "x3", "once": "x1",
    "second": "2nd", "third": "3rd", "fourth": "4th", "fifth": "5th",
}  # fmt: skip
_MONTHS = {
    "jan": "january", "feb": "february", "mar": "march", "apr": "april", "jun": "june",
    "jul": "july", "aug": "august", "sep": "september", "sept": "september", "oct": "october",
    "nov": "november", "dec": "december", "mon": "monday", "tue": "tuesday",
    "tues": "tuesday", "wed": "wednesday", "thu": "thursday", "thur": "thursday",
    "thurs": "thursday", "fri": "friday", "sat": "saturday", "sun": "sunday",
}  # fmt: skip
_CALENDAR = {
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday",
    "saturday", "sunday", "weekend", "weekday", "today", "tomorrow", "yesterday", "tonight",
    "now", "next", "last", "previous", "ago", "daily", "weekly", "monthly", "yearly",
    "annually", "quarterly", "hourly", "nightly", "morning", "afternoon", "evening", "night",
    "noon", "midnight", "spring", "summer", "autumn", "fall", "winter", "week", "month", "year",
    "quarter", "hour", "minute", "day", "before", "after", "since", "until", "early", "late",
    "earlier", "later", "am", "pm",
}  # fmt: skip
_NEGATIONS = {
    "not", "no", "never", "none", "nobody", "nothing", "nowhere", "neither", "nor", "without",
    "cannot", "nope", "lacks", "lack", "unable", "stopped", "stop", "quit", "longer",
}  # fmt: skip
_QUALIFIERS = {
    "always", "usually", "often", "sometimes", "rarely", "seldom", "occasionally", "all",
    "some", "most", "few", "many", "more", "less", "fewer", "least", "higher", "lower",
    "above", "below", "over", "under", "up", "down", "increase", "increased", "decrease",
    "decreased", "min", "minimum", "max", "maximum", "first", "only", "both", "either",
    "out", "off", "open", "closed", "start", "end",
}  # fmt: skip
# Words whose presence or form says nothing about which fact it is.
_FUNCTION = {
    "a", "an", "the", "is", "are", "was", "were", "be", "been", "being", "am", "of", "at",
    "for", "with", "by", "and", "or", "but", "as", "that", "this", "these", "those", "it",
    "its", "it's", "we", "we're", "we've", "our", "ours", "us", "i", "i'm", "i've", "my", "me",
    "you", "your", "he", "his", "him", "she", "her", "they", "their", "them", "there",
    "here", "has", "have", "had", "do", "does", "did", "will", "would", "shall", "should",
    "can", "could", "may", "might", "must", "so", "also", "just", "very", "really", "every",
    "each", "about", "into", "than", "then", "what", "which", "who", "whom", "whose", "when",
    "where", "why", "how", "please", "currently", "still", "actually", "indeed", "now",
    "again", "too", "well", "let", "lets", "let's", "get", "gets", "got", "note", "fyi",
    "in", "on", "to", "from", "remember", "reminder", "important", "update", "btw", "okay",
    "ok", "yes", "yeah", "hey", "hi", "hello", "thanks",
}  # fmt: skip
_SUFFIXES = ("ing", "ied", "ies", "ed", "es", "s", "ly")


@dataclass(frozen=True)
class Statement:
    """The tokens of a text that decide which fact it states."""

    numbers: frozenset[str]
    names: frozenset[str]
    calendar: frozenset[str]
    qualifiers: frozenset[str]
    negated: bool
    words: frozenset[str]  # stems of the remaining content words
    lowered: frozenset[str]  # every token, lower case


def statement(text: str) -> Statement:
    """Read the deciding tokens of ``text`` (see the module docstring)."""
    numbers: set[str] = set()
    names: set[str] = set()
    calendar: set[str] = set()
    qualifiers: set[str] = set()
    words: set[str] = set()
    lowered: set[str] = set()
    negated = False
    for token, initial in _tokens(text):
        low = token.lower().replace("’", "'")
        lowered.add(low)
        if token[0].isdigit():
            numbers.add(_number(low))
            continue
        base = low[:-2] if low.endswith("'s") else low
        if base.endswith("n't") or base in _NEGATIONS:
            negated = True
            continue
        if base in _NUMBER_WORDS:
            numbers.add(_NUMBER_WORDS[base])
            continue
        day = _MONTHS.get(base, base)
        if day in _CALENDAR:
            calendar.add(day)
        if any(c.isupper() for c in token) and not (initial and base in _FUNCTION | _CALENDAR):
            if base != "i":
                names.add(_MONTHS.get(base, base))
            continue
        if base in _QUALIFIERS:
            qualifiers.add(base)
        elif base not in _FUNCTION and day not in _CALENDAR:
            words.add(_stem(base))
    return Statement(
        numbers=frozenset(numbers),
        names=frozenset(names),
        calendar=frozenset(calendar),
        qualifiers=frozenset(qualifiers),
        negated=negated,
        words=frozenset(words),
        lowered=frozenset(lowered),
    )


def differences(a: str, b: str) -> list[str]:
    """What makes ``a`` and ``b`` different statements (empty: they say the same thing)."""
    sa, sb = statement(a), statement(b)
    found = []
    if sa.numbers != sb.numbers:
        found.append("numbers")
    if _names_differ(sa, sb) or _names_differ(sb, sa):
        found.append("names")
    if sa.calendar != sb.calendar:
        found.append("dates")
    if sa.negated != sb.negated:
        found.append("negation")
    if sa.qualifiers != sb.qualifiers:
        found.append("qualifiers")
    if sa.words - sb.words and sb.words - sa.words:
        found.append("words")  # a word replaced by another: a different value
    return found


def same_statement(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` state the same fact (one may add detail to the other)."""
    return not differences(a, b)


def _tokens(text: str) -> list[tuple[str, bool]]:
    """Tokens with whether each one starts a sentence (where a capital says nothing)."""
    out: list[tuple[str, bool]] = []
    for m in _TOKEN.finditer(text):
        i = m.start() - 1
        while i >= 0 and text[i] in _OPENERS:
            i -= 1
        out.append((m.group(), i < 0 or text[i] in ".!?:;"))
    return out


def _names_differ(sa: Statement, sb: Statement) -> bool:
    """A name of ``a`` that ``b`` does not use at all (a sentence-initial word that ``b`` has
    in lower case is the same word, not a name)."""
    return any(name not in sb.names and name not in sb.lowered for name in sa.names)


def _number(token: str) -> str:
    """One spelling per number: thousands separators dropped, ordinal suffixes kept."""
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", token):
        token = token.replace(",", "")
    return token


def _stem(word: str) -> str:
    """A crude stem, enough to see "renews" and "renewed" as one word."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word
