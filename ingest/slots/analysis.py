"""What each sentence of a turn states, read from its structure rather than its wording.

A ``Statement`` is one sentence reduced to three things a later sentence can be compared
with, whatever words either uses:

- its **mood**: does it assert something as true now (``ASSERT``), ask for something
  (``REQUEST``), or only ask, suppose, plan, report someone else's view, recall history,
  negate without a new value, or narrate a past event? Only assertions and requests can
  replace an earlier value; the rest are kept as said and replace nothing.
- its **values** (``ingest/slots/values.py``): numbers, amounts, times, dates, names, codes,
  the complement of "is" ("the deploy target is *staging*") and the target of a change ("we
  switched it to *production*"), and the values it says are *not* so ("4, not 3").
- its **frame**: the sentence with its values masked and its function words, discourse
  markers ("sorry", "actually", "now") and change verbs ("switched", "moved") left out:
  ``["deploy", "target", "<thing>"]``. Two statements with one frame and different values
  are two values of one slot (``ingest/slots/matching.py``). Names and numbers in the
  *subject* stay in the frame ("the door code for warehouse 1" is not warehouse 3's).

Pure functions over a spaCy ``Doc``; no I/O. The parts: ``clauses.py`` (sentences and
clauses), ``mood.py``, ``positions.py`` (values by their place in the parse), ``values.py``
(values by their form), ``grammar.py`` (the word lists and token helpers they share).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from core.slots import GENERIC
from core.statements import (
    ASSERT,
    NAME,
    REQUEST,
    WORD,
    Statement,
    Value,
    content_words,
    normal,
)
from ingest.slots.clauses import clauses_of, sentences_of, without_heading
from ingest.slots.grammar import (
    ALTERNATIVE,
    ASIDE_PREPS,
    CHANGING,
    CORRECTING,
    STOP,
    Token,
    has_not,
    in_other_clause,
    kept_in_frame,
    lemma_of,
    main_clause,
    negated_clause,
)
from ingest.slots.mood import mood_of, says_correction
from ingest.slots.positions import after_not, fragment_value, positional, said_not
from ingest.slots.values import is_when, tokens_in, values_in

_FROM_ON = re.compile(r"\bgoing forward\b|\bfrom (?:now|here|then|today) on\b|\bhenceforth\b", re.I)


def statements(doc: Any, text: str | None = None) -> list[Statement]:
    """Every sentence of a parsed turn as a ``Statement``, in order."""
    text = doc.text if text is None else text
    out: list[Statement] = []
    for tokens in sentences_of(doc, text):
        tokens = without_heading(tokens)
        if not tokens or all(t.is_punct or t.is_space for t in tokens):
            continue
        for clause, head in clauses_of(tokens):
            a, b = clause[0].idx, clause[-1].idx + len(clause[-1].text)
            out.append(_statement(doc, clause, text[a:b], a, b, head))
    return _alternatives(doc, _owned(doc, _carried(doc, _set_against(doc, out))))


_OWNERS = frozenset({"their", "its", "his", "her"})


def _owned(doc: Any, said: list[Statement]) -> list[Statement]:
    """A statement about something of "theirs" ("their contract is worth £8k a month") is about
    the one its turn named as a subject before it ("Acme's account manager is Lena, and their
    contract ..."; "Northwind is signing. Marco will be their account manager"): that name
    joins its frame, so another client's contract is another slot. A clause of the same
    sentence right after one that took the name, about "the" something ("... and the contract
    is £5k a month"), takes it too."""
    out = list(said)
    topic: str | None = None
    took: Statement | None = None  # the statement before, if it took the name
    for i, s in enumerate(said):
        tokens = tokens_in(doc, s.start, s.end)
        own = _topic_of(tokens, s)
        follows = (
            took is not None
            and tokens[0].lower_ == "the"
            and not re.search(r"[.!?]", doc.text[took.end : s.start])
        )
        took = None
        theirs = any(t.dep_ == "poss" and t.lower_ in _OWNERS for t in tokens)
        if own is None and topic and s.values and (theirs or follows) and topic not in s.words:
            took = out[i] = replace(
                s, frame=(topic, *s.frame), subject=(*s.subject, topic), words=s.words | {topic}
            )
        if own is not None:
            topic = own
    return out


def _topic_of(tokens: list[Token], s: Statement) -> str | None:
    """A name that is a subject or an owner in ``s`` ("Northwind is signing", "Acme's account
    manager"), not one of its values."""
    for t in tokens:
        if t.dep_ not in ("nsubj", "nsubjpass", "poss"):
            continue
        bare = (
            t.pos_ == "NOUN"
            and t.is_title
            and not any(c.dep_ in ("det", "poss") for c in t.children)
        )  # "Northwind is signing": a bare title-case noun as subject is a name
        if t.pos_ != "PROPN" and not bare:
            continue
        if any(v.start <= t.idx < v.end for v in s.values):
            continue
        return str(t.lower_)
    return None


def _set_against(doc: Any, said: list[Statement]) -> list[Statement]:
    """ "terminal 2! not 3", "Thursday. Not Friday.": a fragment that only says which value is
    not so belongs to the statement just before it, which it makes a correction (as "terminal
    2, not 3" is one)."""
    out: list[Statement] = []
    for s in said:
        before = out[-1] if out else None
        if (
            before is not None
            and s.negated
            and not s.values
            and not s.words - GENERIC
            and before.values
            and not before.negated
            and s.start - before.end <= 3
            and not any(t.pos_ in ("VERB", "AUX") for t in tokens_in(doc, s.start, s.end))
        ):
            out[-1] = replace(
                before,
                text=doc.text[before.start : s.end],
                end=s.end,
                negated=s.negated,
                correction=True,
                change=True,
            )
            continue
        out.append(s)
    return out


def _carried(doc: Any, said: list[Statement]) -> list[Statement]:
    """A statement whose subject is a pronoun and that names nothing else it is about takes
    what the sentence before it was about: "the guest wifi password you have is wrong. it's
    tidepool2025" is about the guest wifi password (and corrects it, as the sentence before
    says); "I had Akiko wrong. She works out of the Singapore office" is about Akiko. A
    change or correction announced without a value is the next valued statement's."""
    out = list(said)
    news = False  # a change announced without a value ("Quick update for your records.")
    for i in range(1, len(out)):
        s, before = out[i], said[i - 1]
        news = news or before.change and not before.values and not before.correction
        if not s.values or s.mood not in (ASSERT, REQUEST):
            continue
        if before.correction and not before.values and not s.correction:
            s = out[i] = replace(s, correction=True, change=True)  # "Scratch that. Let's do X"
        elif news and not s.change:  # "Quick update. The ThinkPad was recalled, and I have
            s = out[i] = replace(s, change=True)  # been issued a Dell Latitude 7440"
        news = False
        pronoun = _pronoun_subject(doc, s)
        if pronoun in ("it", "this", "that") and before.subject and not s.words - GENERIC:
            fix = before.correction and not before.values  # "... is wrong. it's X"
            out[i] = replace(
                s,
                frame=(*before.subject, *s.frame),
                subject=before.subject,
                words=s.words | set(before.subject),
                correction=s.correction or fix,
                change=s.change or fix,
            )
        elif pronoun in ("he", "she", "they") and not s.named:
            name = next((v for v in [*before.named, *before.values] if v.kind == NAME), None)
            if name is not None:
                # whom the pronoun names is named by the statement ("Imani Cole started
                # monday. she moved our pipeline review": who runs the review)
                out[i] = replace(s, subject=(*s.subject, *name.norm.split()), named=(name,))
    return out


def _pronoun_subject(doc: Any, s: Statement) -> str | None:
    """The pronoun that is ``s``'s first subject, if it is one ("it's X, they changed it")."""
    tokens = tokens_in(doc, s.start, s.end)
    subject = next((t for t in tokens if t.dep_ in ("nsubj", "nsubjpass")), None)
    return subject.lower_ if subject is not None and subject.pos_ == "PRON" else None


def _alternatives(doc: Any, said: list[Statement]) -> list[Statement]:
    """A request for something else ("Do you have anything else? I'd like to go to San Fran",
    "any other options in Santa Clara?", "let's try another time"): its values stand in
    place of the ones asked for before, as a correction's do."""
    asking = [i for i, s in enumerate(said) if ALTERNATIVE & set(s.text.lower().split())]
    if not asking:
        return said
    first = asking[0]
    return [
        replace(s, correction=True, change=True)
        if i >= first and s.mood == REQUEST and s.values
        else s
        for i, s in enumerate(said)
    ]


def _statement(
    doc: Any, tokens: list[Token], text: str, start: int, end: int, head: Token | None = None
) -> Statement:
    first, last = tokens[0].i, tokens[-1].i
    inside = {t.i for t in tokens}
    roots = [t for t in tokens if t.head.i == t.i or t.head.i not in inside]
    root = head if head is not None else main_clause(roots)
    subject = _subject_zone(root, inside) if root is not None else set()
    complements, negated_at, change = positional(doc, tokens, root)
    every = values_in(doc, first, last)
    found = [v for v in every if not is_when(v, doc)]
    when = {i for v in every if is_when(v, doc) for i in range(v.first, v.last + 1)}
    taken = {i for v in every for i in range(v.first, v.last + 1)}
    for a, b in complements:  # a complement the recognizer did not see as a value
        if not any(i in taken for i in range(a, b + 1)):
            span = doc[a : b + 1]
            found.append(
                Value(span.text, WORD, normal(span.text, WORD), span.start_char,
                      span.end_char, a, b)
            )  # fmt: skip
            taken.update(range(a, b + 1))
    found += after_not(doc, tokens, taken)
    found += fragment_value(doc, tokens, root, taken, bool(negated_at) or has_not(tokens))
    found.sort(key=lambda v: v.first)
    subject = _last_listed(doc, subject, found)
    moved = _value_subject(root, subject, found, inside)
    if moved != subject and not any(v.first in subject for v in found):
        a, b = min(subject), max(subject)  # "Priya is our lead designer": Priya is the value
        span = doc[a : b + 1]
        found.append(
            Value(span.text, NAME, normal(span.text, NAME), span.start_char, span.end_char, a, b)
        )
        found.sort(key=lambda v: v.first)
    subject = moved
    negated_at |= {v.first for v in found if said_not(doc, v, first)}
    if root is not None and negated_clause(
        root, {v.first for v in found}
    ):  # "we don't use Stripe anymore"
        negated_at |= {v.first for v in found if root.i in {a.i for a in doc[v.first].ancestors}
                       and not in_other_clause(doc[v.first], root)}  # fmt: skip
    in_subject = [v for v in found if v.first in subject]
    values = [v for v in found if v.first not in subject and v.first not in negated_at]
    negated = [v for v in found if v.first in negated_at and v.first not in subject]
    aside = _asides(root, {t.i for t in tokens}) if root is not None else set()
    kept = [t for t in tokens if t.i not in when and t.i not in aside]
    frame = _frame(doc, kept, [v for v in values if v.first not in aside], negated, in_subject)
    lowered = {t.lower_ for t in tokens}
    correction = bool(lowered & CORRECTING) or says_correction(tokens) or bool(negated)
    change = (
        change
        or bool(lowered & {"now", "anymore", "longer", "instead"})
        # a change verb anywhere in the clause ("finished *upgrading* the db to pg 15"), or
        # "take over" ("Felix took over the sales team")
        or any(t.lemma_.lower() in CHANGING and t.pos_ == "VERB" for t in tokens)
        or any(
            t.lemma_.lower() == "take" and any(c.lower_ == "over" for c in t.children)
            for t in tokens
        )  # fmt: skip
        # from a time on: "a 30% deposit going forward", "Tobias runs atlas from here on"
        or _FROM_ON.search(text) is not None
        # back to an earlier value: "CI is back on Jenkins", "we've rolled prod back to X"
        or any(t.lower_ == "back" and t.dep_ in ("advmod", "prt") for t in tokens)
        or "as of" in text.lower()  # "... as of this week"
        or any(_makes_it(t) for t in tokens)  # "let's make the limit 200 words"
    )
    mood = mood_of(doc, tokens, root, text, values, negated)
    return Statement(
        text=text,
        start=start,
        end=end,
        mood=mood,
        frame=tuple(frame),
        subject=tuple(lemma_of(doc[i]) for i in sorted(subject) if kept_in_frame(doc[i])),
        values=tuple(values),
        negated=tuple(negated),
        named=tuple(v for v in in_subject if v.first not in negated_at),
        correction=correction,
        change=change or correction,
        words=content_words(frame),
    )


def _subject_zone(root: Token, inside: set[int]) -> set[int]:
    """Token indices of what the main clause is about: its subject (said before the verb),
    or what a change verb changes ("we switched *the CRM* to Salesforce")."""
    zone: set[int] = set()
    for verb in [root, *(c for c in root.children if c.dep_ == "conj" and c.pos_ != "NOUN")]:
        changing = verb.lemma_.lower() in CHANGING
        for c in verb.children:
            if (
                c.dep_ in ("nsubj", "nsubjpass")
                and c.i < verb.i
                and c.lower_ not in STOP
                or changing
                and c.dep_ == "dobj"
                and c.lower_ not in STOP
            ):
                zone.update(t.i for t in c.subtree if t.i in inside)
    return zone


def _last_listed(doc: Any, subject: set[int], found: list[Value]) -> set[int]:
    """A list of facts the parse took for the subject ("Key facts: Larchfield Barn, Saturday
    14 June, 120 guests, and the band is The Velvet Owls"): items set off by commas whose
    values are of several kinds (a place, a date, a count) are told, and only the item the
    verb follows is what the clause is about. A list of one kind ("Priya, Tom, and Ana are
    the leads") is the subject as a whole."""
    commas = sorted(i for i in subject if doc[i].text == ",")
    if len(commas) < 2:
        return subject
    last = {i for i in subject if i > commas[-1] and doc[i].dep_ != "cc"}
    listed = [v for v in found if v.first in subject and v.first < commas[-1]]
    if not last or len({v.family for v in listed}) < 2:
        return subject
    return last


def _value_subject(
    root: Token | None, subject: set[int], found: list[Value], inside: set[int]
) -> set[int]:
    """An inverted "is": when the subject is only a value and the complement says what it
    is ("realistically *2:05* is the target", "*£2,000* is the new limit", "*Priya* is our
    lead designer"), the value is what is said and the complement what it is said of."""
    if root is None or root.lemma_ != "be" or not subject:
        return subject
    attr = next((c for c in root.children if c.dep_ in ("attr", "acomp") and c.i > root.i), None)
    if attr is None or attr.pos_ not in ("NOUN", "PROPN", "ADJ"):
        return subject
    whole = [v for v in found if v.kind not in (WORD, NAME)]
    if not any(subject <= set(range(v.first, v.last + 1)) for v in whole) and not (
        # "Priya is our lead designer": the role is the slot, the name its value (as in "our
        # lead designer is Priya"); not "Priya is a designer" (one of several)
        attr.pos_ == "NOUN"
        and any(c.dep_ == "poss" or c.lower_ == "the" for c in attr.children)
        and (
            all(root.doc[i].pos_ == "PROPN" for i in subject)
            or any(v.kind == NAME and subject <= set(range(v.first, v.last + 1)) for v in found)
        )
    ):
        return subject
    return {t.i for t in attr.subtree if t.i in inside}


def _asides(root: Token, inside: set[int]) -> set[int]:
    """Token indices of what a clause says around its statement: when or why ("after the
    incident", "since half the team is in Lisbon", "because ..."), not what it is about."""
    out: set[int] = set()
    for c in root.children:  # a clause introduced as when or why: "since ...", "because ..."
        if c.dep_ == "advcl" and any(g.dep_ == "mark" for g in c.children):
            out.update(t.i for t in c.subtree if t.i in inside)
    for i in inside:
        t = root.doc[i]
        if t.dep_ == "prep" and t.lower_ in ASIDE_PREPS:  # wherever the parse hung it
            out.update(x.i for x in t.subtree if x.i in inside)
    return out


def _frame(
    doc: Any,
    tokens: list[Token],
    values: list[Value],
    negated: list[Value],
    in_subject: list[Value],
) -> list[str]:
    """The sentence with values masked (``<family>``), the subject's names kept, and function
    words, markers and change verbs left out."""
    at = {v.first: v for v in values}
    skip = {i for v in [*values, *negated] for i in range(v.first, v.last + 1)}
    named = {v.first: v for v in in_subject}
    named_skip = {i for v in in_subject for i in range(v.first + 1, v.last + 1)}
    out: list[str] = []
    for tok in tokens:
        i = tok.i
        if i in at:
            out.append(f"<{at[i].family}>")
            continue
        if i in named:
            out.append(named[i].norm)
            continue
        if i in skip or i in named_skip or not kept_in_frame(tok):
            continue
        out.append(lemma_of(tok))
    return out


def _makes_it(token: Token) -> bool:
    """ "make it 4", "make the limit 200 words", "make that 3 bullets": a value set anew
    (not "make a booking")."""
    if token.lemma_.lower() != "make" or token.pos_ != "VERB":
        return False
    objects = [c for c in token.children if c.dep_ in ("dobj", "ccomp", "nsubj") and c.i > token.i]
    first = [min(o.subtree, key=lambda t: t.i) for o in objects]  # what the object opens with
    return any(t.lower_ in ("it", "that", "this", "the", "our", "my") for t in first)
