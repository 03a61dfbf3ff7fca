"""Does a new statement replace an earlier one? Two ways, neither tied to a phrasing:

- **Same slot** (``same_slot``): the two frames (sentences with values masked, function words
  and change verbs left out; ``ingest/slots/analysis.py``) say the same thing about the same
  subject, and a value of one family differs: "Our deploy target is staging" and "We switched
  the deploy target to production" share the frame ``deploy target <thing>``. A word that
  only one frame has is allowed (an elliptical "1800 subscribers now"); a word each frame has
  and the other lacks is a different subject ("the *staging* server" is not "the
  *production* server"; "warehouse *1*" is not "warehouse *3*").
- **A correction** (``corrects``): "sorry, 4, not 3", "I meant Thursday", "make it 7:30":
  said right after what it corrects, it names no subject; it binds to the latest statement
  of the session that holds a value of its kind (or the value it says is not so), and to the
  other statements of the session that held the same value.

``substitute`` writes the corrected statement out ("The call is at 4"), so the current value
reads on its own in a context years later.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from difflib import SequenceMatcher

from core.statements import (
    ASSERT,
    DATE,
    EMAIL,
    QUESTION,
    REQUEST,
    URL,
    WORD,
    Statement,
    Value,
    normal,
    replaceable,
    slips,
    words,
)

# Frame words too general to make two statements one slot on their own ("I want ...", "we use").
GENERIC = words(
    """want need like love use book reserve get find look see think know say tell give
    thing people person way lot bit kind sort today day week"""
)
MIN_OVERLAP = 0.5  # share of the frames' content words both hold (calibrated: bench.slot_pairs)


@dataclass(frozen=True)
class Replacement:
    """``new`` replaces ``old``: the values it changes (old, new), how sure, and why."""

    old: Statement
    new: Statement
    changed: tuple[tuple[Value, Value], ...]
    score: float
    reason: str

    @property
    def restated(self) -> bool:
        """The same value said again: nothing is replaced."""
        return not self.changed


def same_slot(new: Statement, old: Statement, any_mood: bool = False) -> Replacement | None:
    """``new`` as a later value of ``old``'s slot, or None (see the module docstring).
    ``any_mood``: compare what they are about even if one only asks or supposes."""
    if not new.values or not old.values:
        return None
    if not any_mood and (new.mood not in (ASSERT, REQUEST) or old.mood not in (ASSERT, REQUEST)):
        return None
    shared = new.words & old.words
    if not shared - GENERIC:
        return None
    only_new, only_old = new.words - old.words, old.words - new.words
    if only_new and only_old:
        return None  # each names something the other does not: two subjects
    overlap = len(shared) / len(new.words | old.words)
    if overlap < MIN_OVERLAP:
        return None
    pairs = _pair_values(new, old)
    if not pairs:
        return None
    changed = tuple((o, n) for o, n in pairs if not o.same(n))
    named = [o for o, _ in changed if o.family == "thing" and o.kind != "word"]
    if named and len(changed) > 1 and not (new.correction or new.change):
        return None  # "$49 a month for Notion", "$29 a month for Slack": two things' values
    return Replacement(old, new, changed, overlap, _reason(changed, "same slot"))


def corrects(
    new: Statement, recent: Sequence[tuple[Statement, bool]]
) -> list[tuple[int, Replacement]]:
    """What a correction said in a session replaces among the session's ``recent`` statements
    (newest first; each with whether the user said it): (index into ``recent``, replacement).

    The first target is the newest statement holding a value the correction says is not so,
    else the newest holding a value of the correction's kind; then every other recent
    statement that held one of the replaced values (a time, a date, a name said again by the
    assistant) or, for plain numbers, held it in the same frame.
    """
    if not (new.correction or new.change) or not new.values:
        return []
    if new.mood not in (ASSERT, REQUEST):
        return []
    if len(new.words - GENERIC) > 3 and not new.negated:
        return []  # says enough to stand on its own: a slot of its own, not a patch
    primary: tuple[int, Replacement] | None = None
    for i, (old, _) in enumerate(recent):  # a value said again with a slip fixed, first
        fixed = slips(new, old)[:1]
        if fixed:  # ("er 10.0.4.71 sorry" fixes 10.0.4.17, not the "one" of "one-liner")
            primary = (i, Replacement(old, new, fixed, 1.0, _reason(fixed, "correction")))
            break
    # the user's own words first: "actually make that 28k total" after the user's "budget is
    # 18k" and the assistant's "maybe 60% / 40%" fixes the budget; the assistant's line is
    # corrected only when the user said no value of the kind ("no, Saturday" after "booked
    # for Friday")
    ordered = sorted(range(len(recent)), key=lambda i: not recent[i][1])
    for i in ordered if primary is None else ():
        old = recent[i][0]
        if old.mood == QUESTION and not old.values:
            continue
        if not (new.correction or new.negated) and not (new.words - GENERIC) <= old.words:
            continue  # "the threshold is now 90%": a change of what it names, not of this
        changed = _corrected_values(new, old)
        if changed:
            primary = (i, Replacement(old, new, changed, 1.0, _reason(changed, "correction")))
            break
    if primary is None:
        return []
    out = [primary]
    stale = [o for o, _ in primary[1].changed]
    for i, (old, _) in enumerate(recent):
        if i == primary[0]:
            continue
        held = [
            _part_replaced(v, n)
            for v in old.values
            for o, n in primary[1].changed
            if v.same(o) or _part_replaced(v, n)[0].same(o)
        ]
        if not held:
            continue
        precise = all(v.family not in ("amount",) for v, _ in held)
        if precise or same_slot(primary[1].old, old) or old.words & primary[1].old.words - GENERIC:
            changed = tuple((v, n) for v, n in held)
            out.append((i, Replacement(old, new, changed, 0.9, _reason(changed, "correction"))))
    del stale
    return out


def substitute(text: str, changed: Sequence[tuple[Value, Value]], offset: int = 0) -> str:
    """``text`` with each old value replaced by its new one (spans relative to ``offset``):
    "The call is at 3." with (3 → 4) is "The call is at 4."."""
    out = text
    for old, new in sorted(changed, key=lambda p: -p[0].start):
        a, b = old.start - offset, old.end - offset
        if 0 <= a <= b <= len(out):
            said = new.text
            if re.match(r"the\s", said, re.I) and re.search(r"\bthe\s+$", out[:a], re.I):
                said = said[4:].lstrip()  # "for the 4th" → "for the 9th of March", not "the the"
            out = out[:a] + said + out[b:]
    return out


def _corrected_values(new: Statement, old: Statement) -> tuple[tuple[Value, Value], ...]:
    """The (old, new) value pairs a correction changes in ``old``: a value it names as not
    so, else the values of its kinds; of each, the part the new value replaces
    (``_part_replaced``)."""
    return tuple(_part_replaced(o, n) for o, n in _changed_values(new, old))


def _part_replaced(old: Value, new: Value) -> tuple[Value, Value]:
    """The part of ``old`` that ``new`` replaces: an email's domain for a bare domain
    ("baltictimber.lt"), a date's day for a bare day of the month ("it's the 8th" makes "march
    3rd" "march 8th"); else all of it, a bare day said as one ("the 14th")."""
    if old.kind == EMAIL and new.kind == URL and "@" in old.text and "/" not in new.text:
        at = old.text.index("@") + 1
        return _sub_value(old, at, len(old.text), URL), new
    if old.kind == DATE and new.kind == DATE and _DAY.fullmatch(new.text.strip()):
        day = _DAY_IN.search(old.text)
        if day is not None and not _DAY.fullmatch(old.text.strip()):
            bare = re.sub(r"^the\s+", "", new.text.strip(), flags=re.I)  # "march 8th"
            return _sub_value(old, day.start(), day.end(), DATE), replace(new, text=bare)
    if new.kind == DATE and _ORDINAL.fullmatch(new.text.strip()):
        return old, replace(new, text=f"the {new.text.strip()}")  # "next Friday" → "the 14th"
    return old, new


_DAY = re.compile(r"(?:the\s+)?\d{1,2}(?:st|nd|rd|th)", re.I)  # a bare day of the month
_ORDINAL = re.compile(r"\d{1,2}(?:st|nd|rd|th)", re.I)
_DAY_IN = re.compile(r"(?<![\d:])\d{1,2}(?:st|nd|rd|th)?(?![\d:])", re.I)


def _sub_value(whole: Value, a: int, b: int, kind: str) -> Value:
    text = whole.text[a:b]
    return Value(text, kind, normal(text, kind), whole.start + a, whole.start + b, -1, -1)


def _changed_values(new: Statement, old: Statement) -> tuple[tuple[Value, Value], ...]:
    if new.negated:
        named = [
            part
            for o in (*old.values, *old.named)
            for v in new.negated
            for part in [o if o.norm == v.norm else o.part(v) or (o if o.same(v) else None)]
            if part is not None
        ]
        if not named:
            return ()
        return tuple(
            (o, n)
            for o in named
            for n in [next((n for n in new.values if replaceable(o, n)), None)]
            if n is not None and not o.same(n)
        )
    return tuple((o, n) for o, n in _pair_values(new, old) if not o.same(n))


def _pair_values(new: Statement, old: Statement) -> list[tuple[Value, Value]]:
    """Each new value with the old value of its family at the same place in the frame (the
    n-th of its family), old first."""
    pairs: list[tuple[Value, Value]] = []
    used: set[int] = set()
    matcher = SequenceMatcher(a=old.frame, b=new.frame, autojunk=False)
    aligned = {j: i for a, b, size in matcher.get_matching_blocks() for i, j in
               zip(range(a, a + size), range(b, b + size), strict=True)}  # fmt: skip
    new_slots = [k for k, w in enumerate(new.frame) if w.startswith("<")]
    old_slots = [k for k, w in enumerate(old.frame) if w.startswith("<")]
    for n_index, value in enumerate(new.values):
        at = new_slots[n_index] if n_index < len(new_slots) else None
        o_index: int | None = None
        if at is not None and at in aligned and aligned[at] in old_slots:
            o_index = old_slots.index(aligned[at])
        if o_index is None or o_index >= len(old.values) or o_index in used:
            o_index = next(
                (k for k, o in enumerate(old.values) if k not in used and replaceable(o, value)),
                None,
            )
        if o_index is None or not replaceable(old.values[o_index], value):
            continue
        used.add(o_index)
        pairs.append((old.values[o_index], value))
    return pairs


def _reason(changed: Sequence[tuple[Value, Value]], how: str) -> str:
    if not changed:
        return f"{how}: restated"
    said = ", ".join(f"{o.text!r} to {n.text!r}" for o, n in changed)
    return f"{how}: changed {said}"


# -- the question's slot (the read path) ------------------------------------------------------

_THE = r"\bwhat(?:'s|\s+is|\s+are|\s+was|\s+were)?\s+the\s+"  # "what is the ..."
_UNITS = r"(?:minute|hour|day|night|week|month|year)s"
_QUESTION_FAMILIES: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = (
    (re.compile(r"\b(?:who|whom|whose)\b", re.I), frozenset({"thing"})),
    # how long, how many days: a length of time ("for 3 days") or a number ("net 45", "30s")
    (
        re.compile(rf"\bhow (?:long|many {_UNITS})\b|{_THE}number of {_UNITS}\b", re.I),
        frozenset({"duration", "amount"}),
    ),
    (
        re.compile(r"\bhow (?:many|much)\b|\bwhat(?:'s| is)? the (?:price|cost|number)", re.I),
        frozenset({"amount"}),
    ),  # fmt: skip
    (
        re.compile(r"\bwhen\b", re.I),
        frozenset({"time", "date", "duration"}),  # "within 30 days", "in two weeks"
    ),
    (
        re.compile(r"\bwhat (?:time|day|date)\b|\bwhich (?:day|date)\b", re.I),
        frozenset({"time", "date"}),
    ),  # fmt: skip
    # the thing a question names it asks for: "What is the date of departure flight?"
    (re.compile(rf"{_THE}(?:[\w-]+\s+)?(?:date|day)\b", re.I), frozenset({"date"})),
    (re.compile(rf"{_THE}(?:[\w-]+\s+)?(?:time|hour)\b", re.I), frozenset({"time"})),
    (re.compile(r"\bwhere\b", re.I), frozenset({"thing"})),
)
_WH = re.compile(r"\b(?:who|whom|whose|what|which|when|where|how)\b", re.I)


def _asked(query: str) -> tuple[frozenset[str] | None, str]:
    """The families of value the question asks for, from its question word: the first one
    ("Which airline should you check first when booking?" asks for a thing, not a time); and
    the words that ask it ("what time": the kind of value, not what the question is about)."""
    wh = _WH.search(query)
    if wh is None:
        return None, ""
    rest = query[wh.start() :]
    for pattern, families in _QUESTION_FAMILIES:
        m = pattern.search(rest)
        if m is not None and m.start() == 0:
            return families, m.group()
    if re.search(r"\bwhere\b", rest[wh.end() - wh.start() :], re.I):
        return frozenset({"thing"}), ""  # "What is the city where you are leaving from?"
    return None, ""


_TOKEN = re.compile(r"[A-Za-z][\w'&.-]*|\d[\d,.:]*")
_QUESTION_WORDS = words(
    """who whom whose what which when where why how is are was were do does did can could
    should would will the a an of to in on at for with about our my your their me us we i you
    it its this that these those there here any some tell please know remember from into
    have has had"""
)


@dataclass(frozen=True)
class Focus:
    """What a question asks about: its content words (stemmed), the names and numbers it
    gives (an answer must be about them), and the families of value it asks for (None:
    any). ``Focus.of("Who is leading the Atlas migration?")`` asks for a name, about
    "Atlas"."""

    words: frozenset[str]
    names: tuple[str, ...]
    families: frozenset[str] | None
    text: str

    @staticmethod
    def of(query: str) -> Focus:
        tokens = _TOKEN.findall(query)
        # A capitalised word inside a question is a name; the first word too when the query is
        # a phrase rather than a question ("Acme API rate limit").
        bare = [t.rstrip(".,").removesuffix("'s").removesuffix("’s") for t in tokens]
        phrase = bool(bare) and bare[0].lower() not in _QUESTION_WORDS
        names = tuple(
            t
            for i, t in enumerate(bare)
            if (t[:1].isupper() and (i > 0 or phrase) and t.lower() not in _QUESTION_WORDS)
            or t[:1].isdigit()
        )
        content = {  # "father-in-law": its words, as a parse splits them
            stem(part) for t in tokens for part in t.lower().removesuffix("'s").split("-")
        }
        content -= {stem(w) for w in _QUESTION_WORDS}
        families, asking = _asked(query)
        # "what *time* is standup": the kind of value asked, not what it is asked of
        content -= {stem(w) for w in asking.lower().split() if w in ("time", "day", "date")}
        return Focus(frozenset(w for w in content if len(w) > 2), names, families, query.lower())

    def as_said(self, texts: Iterable[str]) -> Focus:
        """This focus with an acronym it names that none of ``texts`` says dropped from its
        names: "who's my ISP?" asks about the user's internet provider, which no one needs to
        have called an ISP ("I'm back with Comcast"). A name in letters stays asked."""
        acronyms = [n for n in self.names if n.isupper() and n.isalpha() and len(n) <= 5]
        if not acronyms:
            return self
        said = [t.lower() for t in texts]
        unsaid = {
            n
            for n in acronyms
            if not any(re.search(rf"(?<!\w){re.escape(n.lower())}(?!\w)", t) for t in said)
        }
        names = tuple(n for n in self.names if n not in unsaid)
        return self if names == self.names else replace(self, names=names)

    def names_in(self, said: str) -> bool:
        """Whether ``said`` names what the question names (one of its names is enough: "Akiko"
        for "Akiko from Sora Logistics")."""
        if not self.names:
            return True
        lowered = said.lower()
        return any(re.search(rf"(?<!\w){re.escape(n.lower())}(?!\w)", lowered) for n in self.names)

    def relevant(
        self,
        statement: Statement,
        said: str,
        subjects: Sequence[frozenset[str]] = (),
        names_ok: bool = False,
        close: bool = False,
    ) -> bool:
        """Whether ``statement`` (of a memory saying ``said``) is about what the question
        asks: it shares a content word with the question, gives a value of the kind asked
        for, names what the question names, and is not about another subject of the same
        kind ("the production server" for a question about the staging server; ``subjects``:
        the subject words of each statement in the result). ``names_ok``: the names were
        said in the same conversation (a follow-up: "October. 3 October."). ``close``: it is
        about the question by meaning (``retrieval/closeness.py``), whatever its words."""
        # its words, its subject's, and its common-noun values' ("X is the bean supplier"); not
        # the names it gives (a name the question gives is no topic in itself: "a staging box
        # on Ubuntu 24.04" is not about the production server's Ubuntu). A name is one token.
        said_words = [
            *statement.words,
            *statement.subject,
            *(v.norm for v in statement.values if v.kind == WORD),
        ]
        mine = {stem(w) for token in said_words for w in token.split()}
        if (
            not close
            and not matching(mine, self.words) - {stem(w) for w in GENERIC}
            and not (
                # or it names what a question for an amount or a time names, in its own sentence:
                # "the Pour-Over Set retails at £38" for "How much does the Pour-Over Set cost?"
                self.names
                and self.families is not None
                and "thing" not in self.families
                and self.names_in(statement.text)
            )
        ):
            return False
        if not self.answers(statement):
            return False
        lowered = said.lower()
        if not names_ok and not self.names_in(said):
            return False
        # Another subject of the same kind: the statement's subject shares a word with the
        # question and has one it lacks, and the question has one the memory lacks that is some
        # hit's subject word ("the production server" when the question and another hit say
        # "staging server").
        names = {stem(w) for v in statement.named for w in v.norm.split()}
        subject = {stem(w) for w in statement.subject}
        head = matching(subject, self.words)
        other = subject - head - {stem(w) for w in GENERIC}
        other -= names  # "our Starling sort code": a name the question need not say
        missing = {w for w in self.words if w not in lowered}
        # the question's missing word must be said of the same head in some subject:
        # "staging" beside "server"
        return not (head and other and any(missing & ss and head & ss for ss in subjects))

    def owned_elsewhere(self, statement: Statement) -> bool:
        """Whether ``statement`` is about what the question asks of the speaker's own ("my
        manager", "our deadline") but of another owner: its subject shares that word and has
        an owner the question does not name, said as a possessive ("my wife's manager, Gareth,
        ..." for "who is my manager?"; "the client's deadline" for "what is our deadline?")."""
        subject = [w.lower() for w in statement.subject]
        heads = matching({stem(w) for w in subject}, self.words)
        own = (
            re.search(rf"(?<!\w)(?:my|our)\s+(?:\w+\s+)?{re.escape(t)}(?!\w)", self.text)
            for t in re.findall(r"[a-z]+", self.text)
            if stem(t) in heads
        )
        if not any(m is not None for m in own):
            return False
        text = statement.text.lower()
        return any(
            stem(w) not in self.words
            and w not in self.text
            and re.search(rf"(?<!\w){re.escape(w)}['’]s(?!\w)", text) is not None
            for w in subject
        )

    def answers(self, statement: Statement) -> list[Value]:
        """The statement's values of the kind the question asks for, other than the values
        the question itself names."""
        asked = [*statement.values]
        if self.families is not None and "thing" in self.families:
            asked += statement.named  # "Nadia Petrov has taken over X": who, for a "who"
        named = {n.lower() for n in self.names}
        return [
            v
            for v in asked
            if (self.families is None or v.family in self.families)
            and v.norm not in self.text
            and v.text.lower() not in self.text
            and not set(v.norm.split()) & named  # "Akiko at Sora Logistics": who is asked about
        ]


def matching(words: set[str] | frozenset[str], others: frozenset[str]) -> set[str]:
    """The ``words`` that match one of ``others``, as stems or as one word of the other's
    family ("based" and "base", "logistics" and "logistic", "leading" and "lead")."""
    out = set()
    for w in words:
        if (
            w in others
            or len(w) >= 4
            and any(
                len(o) >= 4 and (w.startswith(o) or o.startswith(w)) and abs(len(w) - len(o)) <= 3
                for o in others
            )
        ):
            out.add(w)
    return out


def stem(word: str) -> str:
    """A crude stem, for comparing a question's words with a statement's lemmas."""
    w = word.lower()
    if len(w) > 5 and w.endswith(("sses", "shes", "ches", "xes", "zes")):
        return w[:-2]
    for suffix in ("ing", "ed", "s"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix) and not w.endswith("ss"):
            return w[: -len(suffix)]
    return w
