"""Values in a sentence: the parts a later statement may replace, found by what they are
(numbers, amounts, times, dates, names, codes, emails, URLs, quoted strings) rather than by
how the sentence around them is worded. Each value has a kind and a normal form, so "half past
11 in the morning" and "11:30 am", or "four" and "4", are the same value.

Pure functions over a spaCy ``Doc``; no I/O.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Any

from core.statements import (
    CODE,
    DATE,
    DURATION,
    EMAIL,
    MONEY,
    NAME,
    NUMBER,
    PERCENT,
    QUOTE,
    TIME,
    URL,
    Value,
    is_hour,
    normal,
    weekday,
)
from core.times import is_month

Token = Any  # spacy.tokens.Token (spaCy is untyped here)

_ENT_KINDS = {
    "TIME": TIME,
    "DATE": DATE,
    "MONEY": MONEY,
    "PERCENT": PERCENT,
    "QUANTITY": NUMBER,
    "CARDINAL": NUMBER,
    "ORDINAL": NUMBER,
    "PERSON": NAME,
    "ORG": NAME,
    "GPE": NAME,
    "LOC": NAME,
    "FAC": NAME,
    "PRODUCT": NAME,
    "EVENT": NAME,
    "WORK_OF_ART": NAME,
    "NORP": NAME,
    "LANGUAGE": NAME,
    "LAW": NAME,
}
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")
_URL = re.compile(r"(?:https?://|www\.)\S+|[\w-]{2,}(?:\.[\w-]{2,})*\.[a-z]{2,6}(?:/\S*)?")
# a code with dots ("db.r6g.2xlarge", "v2.4.1"): letters and digits, before it is read as a URL
_DOTTED_CODE = re.compile(r"(?=[^.]*\d|.*\.[^.]*\d)(?=.*[A-Za-z])[A-Za-z0-9][\w-]*(?:\.[\w-]+)+")
_CODE = re.compile(r"(?=.*\d)(?=.*[A-Za-z])[A-Za-z0-9][A-Za-z0-9_/-]*|#\d+|\d{4,}")
_TIME_WORDS = re.compile(
    r"\b(?:\d{1,2}(?::\d{2})?\s*(?:a\.?m\.?|p\.?m\.?)|\d{1,2}:\d{2}|noon|midnight"
    r"|o'?clock|half past|quarter (?:past|to)|in the (?:morning|afternoon|evening)"
    r"|half (?:\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
    r"|(?:morning|afternoon|evening|night) \d{1,2})\b",
    re.I,
)
_TIME_PHRASE = re.compile(
    r"\b(?:(?:half past|quarter (?:past|to)) )?(?:\d{1,2}(?::\d{2})?|one|two|three|four|five|six"
    r"|seven|eight|nine|ten|eleven|twelve)(?:\s*(?:a\.?m\.?|p\.?m\.?)\b| o'?clock\b"
    r"| in the (?:morning|afternoon|evening)| at night)"
    r"|\b(?:half(?: past)?|quarter (?:past|to)) (?:\d{1,2}|one|two|three|four|five|six|seven|eight"
    r"|nine|ten|eleven|twelve)\b|\b\d{1,2}:\d{2}\b|\bnoon\b|\bmidnight\b"
    r"|\b(?:morning|afternoon|evening|night) \d{1,2}(?::\d{2})?\b(?![:.]?\d)",  # "evening 5"
    re.I,
)
_CURRENCY = frozenset("$£€¥")
# what makes an amount money: a currency's sign, name or code, or a scale said of one
_MONEY_SAID = re.compile(
    r"[$£€¥]|\b(?:dollars?|bucks?|pounds?|quid|euros?|cents?|pence|yen|usd|gbp|eur|grand)\b"
    r"|\d\s*(?:k|m|bn|p)\b",
    re.I,
)
_BARE_NUMBER = re.compile(r"\d[\d,.]*")
_YEAR = re.compile(r"(?:19|20)\d{2}")
_SCALED = re.compile(r"\d+(?:\.\d+)?\s*[kKmM]")
# a length of time ("3 days", "2-week", "a few more months"): how long, not which day
_DURATION = re.compile(
    r"(?:an?|\d+(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
    r"|fourteen|fifteen|twenty|thirty|a few|a couple of|several)(?:\s+|-)(?:more\s+)?"
    r"(?:minute|hour|day|night|week|fortnight|month|year)s?",
    re.I,
)
# Words around a number that say "roughly" or give its unit's scale, not its identity.
_APPROX = frozenset({"about", "around", "roughly", "approximately", "approx", "almost", "nearly"})
_DAY_WORDS = frozenset({"tomorrow", "today", "tonight", "yesterday"})
# Words in a date that say when something already happened ("last week", "two days ago",
# "earlier this month"), not a day a statement gives ("next Thursday", "tonight")
_PAST_DAY = frozenset(
    {"last", "ago", "yesterday", "earlier", "recently", "since", "before", "later", "beforehand"}
)


# digits in groups joined by hyphens (a phone number, an account number): one code
# ("555-0148", "60-83-71"; not a date: "2025-01-06")
_DIGIT_GROUPS = re.compile(
    r"(?<![\w-])(?!\d{4}-\d\d-\d\d(?![\w-]))(?:\d{3,}(?:-\d{3,})+|\d{2,}(?:-\d{2,}){2,})(?![\w-])"
)


_WORD_DIGITS = re.compile(r"[A-Za-z]+[-_]\d{2,}")
_DOTTED_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+){2,}(?::\d+)?(?![\w]|\.\d)")
# a number with its unit ("2700K", "9W", "500ml", "3rd") is no code
_UNIT = re.compile(
    r"\d+(?:k|K|W|kW|kWh|kg|g|mg|ml|l|L|m|cm|mm|km|h|hr|hrs|min|mins|s|x|GB|MB|TB|st|nd|rd|th"
    r"|am|pm|p|yo|mph|kph)"
)
_MIXED = re.compile(r"(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{2,}#?")
# words and digits joined by hyphens ("us-east-1", "eu-central-1", "covid-19"): one code
_HYPHEN_CODE = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+(?![\w-])")


def _unstopped(text: str) -> str:
    """A token without the full stop a tokenizer left on it ("12B." at a sentence's end)."""
    return text[:-1] if text.endswith(".") and len(text) > 2 and text[-2].isalnum() else text


_SPLIT_VALUES = (
    (_DIGIT_GROUPS, CODE),
    (_DOTTED_NUMBER, CODE),
    (_HYPHEN_CODE, CODE),
    (_TIME_PHRASE, TIME),
)


_PERIODS = frozenset({"day", "days", "date", "time", "week", "month", "year", "evening"})


def _day_referred(span: Any) -> bool:
    """A date that names no day of its own: an article or a demonstrative and a period
    ("that day", "the day", "that week"), with any adjective ("a lovely day"). "This week",
    "today" and "the 5th" name one."""
    words = [t.lower_ for t in span]
    if len(words) < 2 or words[-1] not in _PERIODS:
        return False
    if not all(t.pos_ == "ADJ" for t in span[1:-1]):
        return False
    if words[0] in ("a", "an"):  # "a lovely day"; "for a week", "a full day" are lengths
        before = span.doc[span.start - 1].lower_ if span.start > 0 else ""
        return len(words) > 2 and words[-1] in ("day", "evening") and before not in ("for", "in")
    return words[0] in ("that", "the", "those")


def _pronoun_one(tok: Any) -> bool:
    """ "one" that counts nothing: a pronoun ("that one", "another one", "have a good one"),
    or said after an article ("a one way flight")."""
    if tok.lower_ != "one":
        return False
    if any(c.dep_ == "relcl" for c in tok.children):
        return False  # "she's the one who signs off creative": the value stands for who
    if any(c.dep_ in ("det", "amod") for c in tok.children):
        return True  # "that one", "a good one" ("make it one", "just one" count)
    return tok.dep_ == "nummod" and tok.i > 0 and tok.nbor(-1).lower_ in ("a", "an", "the")


def values_in(doc: Any, first: int, last: int) -> list[Value]:
    """The values among tokens ``first``..``last`` (inclusive) of ``doc``, in order, without
    overlaps: named entities and numbers first, then codes, emails, URLs, quoted strings and
    proper nouns the entity recognizer missed."""
    found: list[Value] = []
    taken: set[int] = set()

    def add(kind: str, a: int, b: int) -> None:
        while a <= b and (doc[a].is_punct or doc[a].lower_ in _APPROX or doc[a].is_space):
            a += 1
        while b >= a and (doc[b].is_punct and doc[b].text not in "%" or doc[b].is_space):
            b -= 1
        relative = [i for i in range(a, b + 1) if doc[i].lower_ in _DAY_WORDS]
        after_day = any(doc[i - 1].lower_ in ("after", "before") for i in relative if i > a)
        if relative and len(relative) < b - a + 1 and not after_day:  # "3 tomorrow": 3
            while a <= b and doc[a].lower_ in _DAY_WORDS:
                a += 1
            while b >= a and doc[b].lower_ in _DAY_WORDS:
                b -= 1
        if a > b or any(i in taken for i in range(a, b + 1)):
            return
        if kind == NUMBER and a == b and _pronoun_one(doc[a]):
            return
        if kind == DATE and _day_referred(doc[a : b + 1]):
            return  # "that day", "the day", "a lovely day": no day of its own
        if kind in (NUMBER, DATE) and a == b and _DAY_OF_MONTH.fullmatch(doc[a].text):
            month = _of_month(doc, b, last)  # "6th of march", "the 5th of this month"
            if month is not None and not any(i in taken for i in range(b + 1, month + 1)):
                b, kind = month, DATE
        if kind in (MONEY, NUMBER, PERCENT):  # "up to £500", "under 150": the amount alone
            while a < b and not (doc[a].like_num or doc[a].text in _CURRENCY):
                a += 1
        if a > first and doc[a - 1].text in _CURRENCY and a - 1 not in taken:
            a, kind = a - 1, MONEY  # "£2,000": the symbol is part of the amount
        after = doc[b + 1] if b < last else None
        if kind == NUMBER and doc[b].lower_ in _FRACTION_WORDS and after is not None:
            # "half a tablet": the amount is "half a", written out as said ("half tablet" is not)
            b += after.lower_ in ("a", "an") and after.i not in taken
        span = doc[a : b + 1]
        text, end_char = span.text, span.end_char
        if kind != NAME and text != _unstopped(text):  # "12B." closing a sentence, one token
            text, end_char = _unstopped(text), end_char - 1
        if kind != CODE and _WORD_DIGITS.fullmatch(text):
            kind = CODE  # "gull-4417" (a password, a reference) the recognizer dated
        elif kind in (NUMBER, DATE, NAME) and _MIXED.fullmatch(text) and not _UNIT.fullmatch(text):
            kind = CODE  # "7KLN392", "4B": letters and digits in one word, read as a number
        elif kind == PERCENT and "%" not in text and "percent" not in text.lower():
            kind = NUMBER
        elif kind == MONEY and not _MONEY_SAID.search(text):  # "518 7th Street" read as money
            kind = NAME if doc[b].tag_ == "NNP" else NUMBER
        if kind in (NUMBER, DATE) and _TIME_WORDS.search(text):
            kind = TIME
        elif kind == DATE and _BARE_NUMBER.fullmatch(text) and not _YEAR.fullmatch(text):
            kind = NUMBER  # "the code is 4471", "4, not 3": a number the recognizer dated
        elif kind in (NAME, DATE) and _SCALED.fullmatch(text):
            kind = NUMBER  # "100k"
        elif kind == DATE and _DURATION.fullmatch(text):
            kind = DURATION  # "for 3 days": how long, not which day
        if kind == NUMBER and a > 0 and doc[a - 1].lower_ == "at" and is_hour(text):
            kind = TIME  # "the call is at 3"
        elif kind == NUMBER and a == b and _day_of_month(doc[a]):
            kind = DATE  # "what about the 14th?": a day, not a count (nor a percentage)
        found.append(Value(text, kind, normal(text, kind), span.start_char, end_char, a, b))
        taken.update(range(a, b + 1))

    lo, hi = doc[first].idx, doc[last].idx + len(doc[last].text)
    # values a tokenizer splits, by their form: "555-0148", "10.0.4.17", "us-east-1" (one
    # code each), "half past 11 in the morning" (one time)
    for pattern, form in _SPLIT_VALUES:
        for m in pattern.finditer(doc.text, lo, hi):
            if pattern is _HYPHEN_CODE and not any(c.isdigit() for c in m.group()):
                continue  # "one-on-one" is words
            a, b = _tokens_of(doc, m.start(), m.end())
            if a is not None and b is not None and first <= a and b <= last:
                add(form, a, b)
    ents = _ents(doc)
    for ent_start, ent_end, label in ents[bisect_left(ents, (first, -1, "")) :]:
        if ent_start > last:
            break
        if ent_end - 1 > last:
            continue
        kind = _ENT_KINDS.get(label)
        if kind is None:
            continue
        span = doc[ent_start:ent_end]
        if kind == NAME and all(t.pos_ not in ("PROPN", "NOUN", "NUM", "X") for t in span):
            continue  # "Nope" read as an organisation
        negation = next((t.i for t in span if t.lower_ in ("not", "n't", "no")), None)
        if negation is not None:  # "half three not half two" read as one number: two values
            ent_end = negation  # (the part after "not" is read on its own below)
            if ent_end <= ent_start:
                continue
        add(kind, ent_start, ent_end - 1)
    i = first
    while i <= last:
        tok = doc[i]
        if i in taken or tok.is_punct or tok.is_space:
            i += 1
            continue
        text = _unstopped(tok.text)  # "It's 12B.": the stop is the sentence's
        if _EMAIL.fullmatch(text):
            add(EMAIL, i, i)
        elif _DOTTED_CODE.fullmatch(text) and any(c.isdigit() for c in text):
            add(CODE, i, i)
        elif _URL.fullmatch(text):
            add(URL, i, i)
        elif weekday(text) and (len(text) > 3 or text.istitle()) and tok.pos_ != "VERB":
            add(DATE, i, i)  # "lessons are tuesdays at 5", "thurs", "Sat": days the recognizer
            # misses in lower case or cut short (not "sat" or "the sun")
        elif tok.like_num or tok.pos_ == "NUM" or _SCALED.fullmatch(text):
            j = i
            while j + 1 <= last and j + 1 not in taken and doc[j + 1].like_num:
                j += 1
            add(NUMBER, i, j)
            i = j
        elif _CODE.fullmatch(text) and not text.isalpha():
            add(CODE, i, i)
        elif _named(tok) and not tok.is_sent_start and i != first:
            j = i
            while j + 1 <= last and j + 1 not in taken and _named(doc[j + 1]):
                j += 1
            add(NAME, i, j)
            i = j
        elif text in {'"', "“", "'"} and tok.tag_ in {"``", "''", '"'}:
            close = next(
                (k for k in range(i + 1, min(last, i + 12) + 1) if doc[k].text in {'"', "”", "'"}),
                None,
            )
            if close is not None and close > i + 1:
                add(QUOTE, i + 1, close - 1)
                i = close
        i += 1
    found = _joined(doc, sorted(found, key=lambda v: v.first))
    return [v for v in found if not _vocative(doc, v, first, last)]


TITLES = frozenset({"mr", "mrs", "ms", "miss", "mx", "dr", "prof", "sir", "dame"})
_FRACTION_WORDS = frozenset({"half", "quarter"})


_DAY_OF_MONTH = re.compile(r"(\d{1,2})(?:st|nd|rd|th)", re.I)


def _of_month(doc: Any, i: int, last: int) -> int | None:
    """Where "of" and a month end after the ordinal at ``i`` ("6th of March", "5th of this
    month"), or None."""
    if i + 2 > last or doc[i + 1].lower_ != "of":
        return None
    if is_month(doc[i + 2].text):
        return i + 2
    if i + 3 <= last and doc[i + 2].lower_ in ("this", "next") and doc[i + 3].lower_ == "month":
        return i + 3
    return None


def _day_of_month(tok: Token) -> bool:
    """An ordinal standing alone after "the" ("the 14th", "for the 3rd"): a day of the month.
    One that describes a noun ("the 3rd floor") or follows no article ("came 3rd") is not."""
    m = _DAY_OF_MONTH.fullmatch(tok.text)
    return (
        m is not None
        and 1 <= int(m.group(1)) <= 31
        and tok.i > 0
        and tok.doc[tok.i - 1].lower_ == "the"
        and tok.dep_ not in ("amod", "nummod", "compound")
    )


def _joined(doc: Any, found: list[Value]) -> list[Value]:
    """Values read apart that are one, joined (``_join``): "Mrs. Alvarez", "899 Sir Francis
    Drake Boulevard", "12 May", "Italian Affair". A joined value may join the one before it
    in turn ("Sir" and "Francis Drake Boulevard", then "899" and both)."""
    out: list[Value] = []
    for v in found:
        out.append(v)
        while len(out) > 1 and out[-1].first == out[-2].last + 1:
            before, after = out[-2], out[-1]
            kind = _join(doc, before, after)
            if kind is None:
                break
            text = doc.text[before.start : after.end]
            said = text
            if before.text.lower().rstrip(".") in TITLES:  # "Mrs." as "Mrs"
                said = before.text.rstrip(".") + text[len(before.text) :]
            out[-2:] = [
                Value(text, kind, normal(said, kind), before.start, after.end, before.first,
                      after.last)
            ]  # fmt: skip
    return out


def _join(doc: Any, before: Value, v: Value) -> str | None:
    """The kind of the one value ``before`` and ``v`` (right after it) are, or None:
    - a title read as a name of its own and the name after it ("Dr Brandauer"), so "Dr
      Okafor" and "Dr Brandauer" share no value;
    - a number that counts a singular proper name right after it: a house number ("899 Sir
      Francis Drake Boulevard"), so a later address replaces the address and no count ("for
      2 people") ever takes its number; a plural name is counted ("3 Apple Watches"); a
      number and a month are a date ("12 May");
    - a name that is a compound of the name after it ("Italian" of "Italian Affair")."""
    head = doc[before.last].head
    inside = v.first <= head.i <= v.last
    if before.kind == v.kind == NAME:
        titled = before.text.lower().rstrip(".") in TITLES
        return NAME if titled or inside and doc[before.last].dep_ == "compound" else None
    if before.kind == NUMBER and v.kind == NAME and inside and doc[before.last].dep_ == "nummod":
        if head.tag_ != "NNP" or head.lower_.endswith("s"):  # "Watches" is tagged singular
            return None
        return DATE if v.first == v.last and is_month(v.text) else NAME
    return None


_PLACES = frozenset({"GPE", "LOC", "FAC"})


def _vocative(doc: Any, value: Value, first: int, last: int) -> bool:
    """A name the speaker addresses ("Thanks so much, Mel!", "Caroline, that's great"): set off
    by a comma at the start or the end of the sentence, it is who is spoken to."""
    if value.kind != NAME or value.text[:1].isdigit() or doc[value.first].ent_type_ in _PLACES:
        return False  # "221 Larch Street, Portland": an address and its town are no one spoken to
    before = doc[value.first - 1] if value.first > first else None
    after = doc[value.last + 1] if value.last < last else None
    at_end = after is None or after.is_punct and after.text in ".!?"
    at_start = (
        before is None
        or before.pos_ == "INTJ"
        or (before.text == "," and (value.first - 2 < first or doc[value.first - 2].pos_ == "INTJ"))
    )
    comma_after = after is not None and after.text == ","
    return (before is not None and before.text == "," and at_end) or (at_start and comma_after)


def _named(tok: Token) -> bool:
    """A name: a proper noun, or a capitalized noun inside a sentence ("back to Ozone")."""
    return tok.text[:1].isupper() and (
        tok.pos_ == "PROPN"
        or tok.pos_ == "NOUN"
        and not tok.text.isupper()
        or tok.text.isupper()
        and len(tok.text) > 1
        and tok.pos_ in ("NOUN", "PROPN")
    )


def tokens_in(doc: Any, start: int, end: int) -> list[Token]:
    """The tokens that start within characters ``[start, end)`` of ``doc``, found by
    bisection: a loop over the whole document for each sentence costs the square of a long
    turn's length."""
    starts = _starts(doc)
    a, b = bisect_left(starts, start), bisect_left(starts, end)
    return [doc[i] for i in range(a, b)]


def _ents(doc: Any) -> list[tuple[int, int, str]]:
    """The doc's entities as (start, end, label), in order (kept on the doc: ``doc.ents``
    builds every span again on each read)."""
    cached: list[tuple[int, int, str]] | None = doc.user_data.get("slot_ents")
    if cached is None:
        cached = [(e.start, e.end, e.label_) for e in doc.ents]
        doc.user_data["slot_ents"] = cached
    return cached


def _starts(doc: Any) -> list[int]:
    """Each token's character offset (kept on the doc: one pass per parse)."""
    cached: list[int] | None = doc.user_data.get("token_starts")
    if cached is None or len(cached) != len(doc):
        cached = [t.idx for t in doc]
        doc.user_data["token_starts"] = cached
    return cached


def _tokens_of(doc: Any, start: int, end: int) -> tuple[int | None, int | None]:
    """The first and last token indices covering characters ``[start, end)``."""
    starts = _starts(doc)
    a = max(bisect_left(starts, start) - 1, 0)
    inside = [
        i
        for i in range(a, bisect_left(starts, end))
        if doc[i].idx < end and doc[i].idx + len(doc[i].text) > start
    ]
    return (inside[0], inside[-1]) if inside else (None, None)


def is_when(value: Value, doc: Any) -> bool:
    """A date said as *when* something happened ("last week", "two days ago", "since
    Monday", "after the 3rd"), not as the value a statement gives ("check in on next
    Thursday", "I need it from March 6th until the 8th", "the call is tomorrow")."""
    if value.kind not in (DATE, TIME):
        return False
    words = {t.lower_ for t in doc[value.first : value.last + 1]}
    before = doc[value.first - 1].lower_ if value.first > 0 else ""
    as_of = before == "of" and value.first > 1 and doc[value.first - 2].lower_ == "as"
    return bool(words & _PAST_DAY) or before in ("since", "after", "before", "ago") or as_of
