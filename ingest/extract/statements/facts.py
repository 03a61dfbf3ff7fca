"""Facts read from verbs other than "be", for the statement reader (``statements/__init__.py``):
passives ("handled by Dana"), measures ("takes two days", "has 120 members", "sits at 4%"),
dates ("starts on May 4"), employment ("works as a designer at Nimbus", "left Acme and joined
Hooli", "promoted to head of sales"), attributes of a named owner ("Globex's CTO is Omar
Haddad") and decisions ("we opted to ...", "the board agreed to ..."). Pure functions over spaCy
tokens; each returns the statements of one clause, or nothing when the clause is not of its
shape."""

from __future__ import annotations

from typing import Any

from core.types import MemoryType
from ingest.extract import rules
from ingest.extract.rules import Extracted
from ingest.extract.sentences import Sentence
from ingest.extract.statements import parts
from ingest.extract.statements.words import (
    COUNTING,
    DECIDERS,
    HIRING,
    LEAVING,
    MEASURE_ATTRIBUTES,
    PERSONAL,
    PROMOTING,
    TAKING_OVER,
)

Token = Any  # spacy.tokens.Token; spaCy is untyped here


def fact(
    s: Sentence,
    subj: Token,
    kind: str,
    predicate: str,
    value: str,
    negated: bool,
    correction: bool,
) -> Extracted:
    """One fact of the sentence ``s`` about the subject token ``subj``."""
    first = min(t.idx for t in parts.subject_tokens(subj))
    return Extracted(
        "fact",
        MemoryType.FACT,
        s.text.strip(),
        s.start,
        s.end,
        subject=parts.subject_text(subj),
        subject_start=first,
        subject_kind=kind,
        predicate=predicate,
        object=value,
        negated=negated,
        correction=correction,
        importance=0.7,
        confidence=0.75,
    )


def owned(
    subj: Token, owner: Token, attr: Token | None, located: Token | None, s: Sentence
) -> list[Extracted]:
    """ "Globex's CTO is Omar Haddad", "Acme's headquarters are in Rotterdam": an attribute
    of the named owner, called by the subject's words; the value a name or a number (so
    "Peter's car is a wreck" states nothing)."""
    words = [*parts.compounds(subj), subj]
    predicate = rules.predicate_of(" ".join(t.lemma_.lower() for t in words))
    if attr is not None:
        if attr.pos_ != "PROPN" and not parts.numeric(attr):
            return []
        value = parts.value(attr)
    elif located is not None and parts.proper(located) is not None:
        value = parts.value(located)
    else:
        return []
    verb = subj.head
    return [fact(s, owner, "name", predicate, value, parts.negated(verb), parts.now(verb))]


def passive(verb: Token, subj: Token, s: Sentence) -> list[Extracted]:
    """ "The invoices are handled by Dana", "our emails are sent through Postmark": who or
    what does it to a topic, as the attribute the participle names ("handled_by")."""
    if parts.subject_kind(subj) != "topic":
        return []
    for prep in verb.children:
        if prep.dep_ not in {"agent", "prep"} or prep.lower_ not in _AGENTS:
            continue
        pobj = parts.pobj_of(prep)
        if pobj is None or parts.proper(pobj) is None:
            continue
        predicate = f"{verb.lower_}_{prep.lower_}"
        value = parts.value(parts.proper(pobj))
        return [fact(s, subj, "topic", predicate, value, parts.negated(verb), parts.now(verb))]
    return []


_AGENTS = frozenset({"by", "through", "via", "with", "using"})


def called(verb: Token, subj: Token, s: Sentence) -> list[Extracted]:
    """ "The client portal is now called Hub", "the app was renamed Lumen", "the project is
    known as Atlas": a topic's name (a person's "called" is a nickname, small talk)."""
    if parts.subject_kind(subj) != "topic":
        return []
    name = next((c for c in verb.children if c.dep_ in {"oprd", "attr"}), None)
    if name is None:
        prep = next((c for c in verb.children if c.dep_ == "prep" and c.lower_ == "as"), None)
        name = parts.pobj_of(prep)
    if name is None or name.pos_ not in {"PROPN", "NOUN"}:
        return []
    changed = parts.now(verb) or parts.changing(verb)
    return [fact(s, subj, "topic", "name", parts.value(name), parts.negated(verb), changed)]


def measured(verb: Token, subj: Token, s: Sentence) -> list[Extracted]:
    """ "The migration takes two days", "our mailing list has 8000 subscribers", "revenue hit
    1.2 million", "signups sit at 350", "the price went up to 15 dollars": a measure of a
    topic or an organisation (a person's counts are small talk: "she has two dogs")."""
    kind = parts.subject_kind(subj)
    if kind is None or (kind == "name" and (subj.ent_type_ == "PERSON" or _personal(subj))):
        return []
    lemma = verb.lemma_.lower()
    changed = parts.changing(verb)
    if lemma == "go" and not changed:
        return []
    amount = _amount(verb)
    if amount is None:
        return []
    if lemma in COUNTING:
        counted = next((c for c in amount.children if c.dep_ == "prep" and c.lower_ == "of"), None)
        unit = parts.pobj_of(counted)
        predicate = (unit if unit is not None else amount).lemma_.lower()
    else:
        predicate = MEASURE_ATTRIBUTES.get(lemma, "value")
    value = parts.value(amount)
    return [fact(s, subj, kind, predicate, value, False, changed or parts.now(verb))]


def _personal(subj: Token) -> bool:
    return subj.lower_ in PERSONAL or subj.pos_ == "PRON"


def _amount(verb: Token) -> Token | None:
    """The number a measuring verb states: its object, or the object of "at"/"to"/"around"
    ("sits at 350", "came in at 42")."""
    for c in verb.children:
        if c.dep_ in {"dobj", "attr"} and parts.numeric(c):
            return c
    for prep in [
        *verb.children,
        *[g for c in verb.children if c.dep_ == "prt" for g in c.children],
    ]:
        if prep.dep_ == "prep" and prep.lower_ in {"at", "to", "around", "about"}:
            pobj = parts.pobj_of(prep)
            if pobj is not None and parts.numeric(pobj):
                return pobj
    return None


def scheduled(verb: Token, subj: Token, s: Sentence) -> list[Extracted]:
    """ "The trade fair starts on May 4", "the lease expires in 2027": when a topic starts or
    ends, said in the present or the future (a past "the movie ended at midnight" is an
    event, not a standing value)."""
    if parts.subject_kind(subj) != "topic":
        return []
    future = any(c.dep_ == "aux" and c.lower_ in {"will", "'ll"} for c in verb.children)
    if verb.tag_ not in {"VBZ", "VBP"} and not future:
        return []
    when = _date(verb)
    if when is None:
        return []
    lemma = verb.lemma_.lower()
    predicate = {"kick": "start", "wrap": "end", "begin": "start", "finish": "end",
                 "run": "end", "go": "date"}.get(lemma, lemma)  # fmt: skip
    negated = parts.negated(verb)
    return [fact(s, subj, "topic", predicate, parts.value(when), negated, parts.now(verb))]


_DATE_PREPS = frozenset({"on", "in", "at", "by", "until", "till", "through", "from"})


def _date(verb: Token) -> Token | None:
    for c in verb.children:
        if c.dep_ == "npadvmod" and c.ent_type_ in {"DATE", "TIME"}:
            return c
        if c.dep_ == "prep" and c.lower_ in _DATE_PREPS:
            pobj = parts.pobj_of(c)
            if pobj is not None and (pobj.ent_type_ in {"DATE", "TIME"} or pobj.like_num):
                return pobj
    return None


def employment(verb: Token, subj: Token, s: Sentence) -> list[Extracted]:
    """A person's role and employer from a verb: "works as a product designer at Nimbus",
    "joined Hooli as COO", "left Acme" (no longer there), "has been promoted to head of
    sales", "was hired by Initech"."""
    if parts.subject_kind(subj) != "name":
        return []
    lemma = verb.lemma_.lower()
    now = parts.now(verb)
    as_role = _as_role(verb)
    if lemma == "work":
        org = parts.employer(as_role) if as_role is not None else None
        org = org or parts.employer(verb)
        return _person(s, subj, as_role, org, False, now)
    if lemma == "join":
        obj = next((c for c in verb.children if c.dep_ == "dobj"), None)
        org = parts.proper(obj) if obj is not None else None
        if org is None:
            return []
        left = verb.dep_ == "conj" and verb.head.lemma_.lower() in LEAVING
        return _person(s, subj, as_role, _name(org), False, now or left)
    if lemma in LEAVING:
        obj = next((c for c in verb.children if c.dep_ == "dobj"), None)
        org = parts.proper(obj) if obj is not None else None
        if org is None or org.ent_type_ == "PERSON" or (parts.place(org) and not _for(verb)):
            return []
        new = _for(verb)  # "left Initech for Hooli": the new employer replaces the old
        if new is not None:
            return _person(s, subj, None, _name(new), False, True)
        return _person(s, subj, None, _name(org), True, True)
    if (lemma, _particle(verb)) in TAKING_OVER and as_role is not None:
        return [fact(s, subj, "name", "role", parts.role(as_role), False, True)]
    if lemma in PROMOTING:
        role = parts.to_value(verb) or as_role or _infinitive(verb)
        if role is None:
            return []
        text = parts.bare_text(role) if role.pos_ in {"VERB", "AUX"} else parts.role(role)
        return [fact(s, subj, "name", "role", text, False, True)]
    if lemma in HIRING:
        agent = next((c for c in verb.children if c.dep_ == "agent"), None)
        pobj = parts.pobj_of(agent)
        org = _name(parts.proper(pobj)) if pobj is not None and parts.proper(pobj) else None
        return _person(s, subj, as_role, org or parts.employer(verb), False, now)
    return []


def _for(verb: Token) -> Token | None:
    prep = next((c for c in verb.children if c.dep_ == "prep" and c.lower_ == "for"), None)
    pobj = parts.pobj_of(prep)
    return parts.proper(pobj) if pobj is not None else None


def _particle(verb: Token) -> str | None:
    return next((c.lower_ for c in verb.children if c.dep_ == "prt"), None)


def _infinitive(verb: Token) -> Token | None:
    """ "promoted to head of sales": the small model reads the role as an infinitive."""
    for c in verb.children:
        if c.dep_ == "xcomp" and any(g.dep_ == "aux" and g.lower_ == "to" for g in c.children):
            return c
    return None


def _as_role(verb: Token) -> Token | None:
    prep = next((c for c in verb.children if c.dep_ == "prep" and c.lower_ == "as"), None)
    pobj = parts.pobj_of(prep)
    if pobj is None:  # "took over from Anja as team lead": "as" read as a conjunction
        pobj = next(
            (c for c in verb.children if c.dep_ == "advcl" and c.pos_ == "NOUN"
             and any(g.dep_ == "mark" and g.lower_ == "as" for g in c.children)),
            None,
        )  # fmt: skip
    if pobj is None or pobj.ent_type_ in {"PERSON", "GPE"}:
        return None
    return pobj if pobj.pos_ == "NOUN" or pobj.text.isupper() else None  # "as COO"


def _name(tok: Token) -> str:
    return " ".join(t.text for t in [*parts.compounds(tok), tok])


def _person(
    s: Sentence,
    subj: Token,
    role: Token | None,
    org: str | None,
    negated: bool,
    correction: bool,
) -> list[Extracted]:
    out = []
    if role is not None:
        out.append(fact(s, subj, "name", "role", parts.role(role), negated, correction))
    if org is not None:
        out.append(fact(s, subj, "name", "employer", org, negated, correction))
    return out


def _with_next(verb: Token) -> bool:
    """ "going with Postgres", "stick with the old supplier": "with" right after the verb."""
    nxt = verb.doc[verb.i + 1] if verb.i + 1 < len(verb.doc) else None
    return nxt is not None and nxt.lower_ == "with" and nxt.head.i == verb.i


_SETTLING = frozenset({"go", "stick", "opt", "commit"})


def decision(verb: Token, subj: Token | None, s: Sentence) -> list[Extracted]:
    """A choice settled by the speaker or a group: "we opted to delay the launch", "the board
    agreed to fund the pilot", "let's stick with the old supplier", "we're going with
    Postgres". Said as done (past, perfect, "going with", "will", "let's"), not as a wish."""
    if subj is None or parts.negated(verb):
        return []
    who = subj.lower_ if subj.pos_ == "PRON" else subj.lemma_.lower()
    if who not in DECIDERS and subj.lower_ not in DECIDERS and subj.ent_type_ != "ORG":
        return []
    lemma = verb.lemma_.lower()
    preps = {c.lower_ for c in verb.children if c.dep_ == "prep"}
    governs = any(c.dep_ in {"xcomp", "ccomp", "dobj"} for c in verb.children)
    if lemma in {"go", "stick"} and not _with_next(verb):
        return []  # "we went on a trip with workmates": company, not a choice
    if lemma == "pick" and _particle(verb) == "up":
        return []  # "I picked up a book": took it, chose nothing
    if lemma in {"agree", "settle", "commit", "vote", "opt"} and not (
        governs or preps & {"on", "to", "for"}
    ):
        return []  # "I agree with you" agrees with a person, it settles nothing
    auxes = {c.lower_ for c in verb.children if c.dep_ == "aux"}
    done = verb.tag_ == "VBD" or (verb.tag_ == "VBN" and auxes & {"have", "'ve", "has", "had"})
    # "we're going with Postgres" is settled; "we're still deciding" is not
    going = verb.tag_ == "VBG" and auxes & {"are", "'re", "am", "is"} and lemma in _SETTLING
    let = who == "'s" or (who == "us" and verb.head.lemma_.lower() == "let")
    if not (done or going or auxes & {"will", "'ll"} or let):
        return []
    clause = s.text.strip()
    return [Extracted("decision", MemoryType.SEMANTIC, clause, s.start, s.end, importance=0.75)]
