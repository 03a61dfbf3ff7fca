"""Values a statement gives by their position in the parse (``ingest/slots/analysis.py``):
what "is" is, what a change goes to, the role a verb gives, the noun a verbless
sentence puts forward, and the values said not to be so."""

from __future__ import annotations

from typing import Any

from core.statements import (
    NAME,
    WORD,
    Value,
    normal,
)
from ingest.slots.grammar import (
    CHANGING,
    COPULAS,
    NAME_PARTS,
    NO_ROLE,
    PLACE_PREPS,
    Token,
    answers_no,
    goes_up,
    objects_of,
    owned_subject,
    phrase_span,
    specific_subject,
)


def positional(
    doc: Any, tokens: list[Token], root: Token | None
) -> tuple[list[tuple[int, int]], set[int], bool]:
    """Spans that are a statement's value by position (what "is" is; what a change goes
    *to*), token indices of values said not to be so, and whether a change verb is used."""
    spans: list[tuple[int, int]] = []
    negated: set[int] = set()
    change = False
    if root is None:
        return spans, negated, change
    inside = {t.i for t in tokens}
    for verb in [root, *(c for c in root.children if c.dep_ == "conj")]:
        lemma = verb.lemma_.lower()
        if verb.i not in inside:
            continue  # a clause of its own (``clauses_of``)
        if lemma in CHANGING or goes_up(verb):
            change = True
            preps = [*verb.children, *(g for c in verb.children if c.dep_ in ("advmod", "prt")
                                       for g in c.children)]  # fmt: skip
            for prep in preps:
                if prep.dep_ == "prep" and prep.lower_ in ("to", "into", "with"):
                    spans += [phrase_span(p, inside) for p in objects_of(prep)]
                elif prep.dep_ == "prep" and prep.lower_ == "from":
                    negated.update(t.i for p in objects_of(prep) for t in p.subtree)
        # the role a verb gives its subject: "joining *as the senior designer*" (with an
        # object, the role is the object's: "we use Notion as our wiki", and Notion the value)
        objects = any(c.dep_ in ("dobj", "obj") for c in verb.children)
        for prep in verb.children:
            if prep.dep_ == "prep" and prep.lower_ == "as" and not objects:
                spans += [
                    phrase_span(p, inside)
                    for p in objects_of(prep)
                    if p.pos_ in ("NOUN", "PROPN") and p.lemma_.lower() not in NO_ROLE
                ]
        copular = lemma in COPULAS or verb.pos_ == "AUX" and verb.dep_ == "ROOT"
        if copular:
            attrs = [c for c in verb.children if c.dep_ in ("attr", "acomp", "oprd")]
            owned = owned_subject(verb)
            specific = owned or specific_subject(verb)
            spans += [
                phrase_span(a, inside)
                for a in attrs
                if a.pos_ not in ("PRON", "DET") and (owned if a.pos_ == "ADJ" else specific)
            ]
            if not attrs:
                for prep in verb.children:
                    if prep.dep_ == "prep" and prep.lower_ in PLACE_PREPS:
                        spans += [phrase_span(p, inside) for p in objects_of(prep)]
        elif (
            specific_subject(verb)
            and verb.tag_ == "VBG"
            and any(c.dep_ == "aux" and c.lemma_ == "be" for c in verb.children)
            and not any(c.dep_ in ("dobj", "prep", "xcomp", "ccomp") for c in verb.children)
        ):
            spans.append((verb.i, verb.i))  # "the deploy target is staging", misread
    change = change or any(_said_new(t) for t in tokens)
    for tok in tokens:  # "4, not 3"; "Jenna, not Jen"; "instead of X"; "rather than X"
        if tok.lower_ in ("not", "n't") and tok.head.i != tok.i:
            target = tok.head
            nxt = doc[tok.i + 1] if tok.i + 1 < len(doc) else None
            if target.i < tok.i and nxt is not None and nxt.i in inside and not nxt.is_punct:
                target = nxt  # "it's 4 now, not 3": the word after "not"
            if target.pos_ in ("NUM", "PROPN", "NOUN", "ADJ") and target.i > tok.i - 1:
                # what follows "not", up to a pause ("4, not 3": the parser may hang the 4 on
                # the 3; "not half two — 15:30": the 15:30 is what it is)
                pause = next((t.i for t in doc[tok.i + 1 :] if t.is_punct), len(doc))
                negated.update(t.i for t in target.subtree if t.i in inside and tok.i < t.i < pause)
        if tok.lower_ in ("instead", "rather") and tok.i + 2 < len(doc):
            after = doc[tok.i + 1]
            if after.lower_ in ("of", "than"):
                negated.update(t.i for t in after.subtree if t.i in inside and t.i != after.i)
    return spans, negated, change


def after_not(doc: Any, tokens: list[Token], taken: set[int]) -> list[Value]:
    """What "not", "instead of" and "rather than" name when the recognizer saw no value there
    ("It's Jenna, not Jenny"): the noun phrase right after them, as a value."""
    out: list[Value] = []
    inside = {t.i for t in tokens}
    for tok in tokens:
        lower = tok.lower_
        if lower in ("of", "than") and tok.i > 0 and doc[tok.i - 1].lower_ in ("instead", "rather"):
            pass
        elif lower not in ("not", "n't"):
            continue
        a = tok.i + 1
        while a in inside and doc[a].pos_ in ("DET", "SYM"):
            a += 1
        b = a
        while b + 1 in inside and doc[b + 1].pos_ in ("PROPN", "NOUN") and b + 1 - a < 3:
            b += 1
        if a not in inside or a in taken or doc[a].pos_ not in ("PROPN", "NOUN", "ADJ", "NUM"):
            continue
        if any(i in taken for i in range(a, b + 1)):
            continue
        span = doc[a : b + 1]
        kind = NAME if span.text[:1].isupper() else WORD
        out.append(
            Value(span.text, kind, normal(span.text, kind), span.start_char, span.end_char, a, b)
        )
        taken.update(range(a, b + 1))
    return out


def fragment_value(
    doc: Any, tokens: list[Token], root: Token | None, taken: set[int], contrasted: bool
) -> list[Value]:
    """A sentence without a verb that sets a noun against another ("Brightpath, not
    Brightwater"): the noun it puts forward is a value, as a recognised name would be."""
    if root is None or not contrasted or root.i in taken or root.pos_ not in ("PROPN", "NOUN"):
        return []
    # the noun set against it comes next ("ugh typo, half three not half two": three is)
    against = next((c for c in root.children if c.dep_ in ("appos", "conj", "npadvmod")), None)
    if not any(
        c.dep_ == "neg" and not answers_no(c)
        for c in [*root.children, *(against.children if against else ())]
    ):
        return []
    if any(t.pos_ in ("VERB", "AUX") for t in tokens):
        return []
    inside = {t.i for t in tokens}
    a = b = root.i  # the noun with the words before it that make its name ("Acme Corp")
    while a - 1 in inside and doc[a - 1].head.i == root.i and doc[a - 1].dep_ in NAME_PARTS:
        a -= 1
    if any(i in taken for i in range(a, b + 1)):
        return []
    span = doc[a : b + 1]
    kind = NAME if span.text[:1].isupper() else WORD
    taken.update(range(a, b + 1))
    return [Value(span.text, kind, normal(span.text, kind), span.start_char, span.end_char, a, b)]


def said_not(doc: Any, value: Value, first: int) -> bool:
    """ "not 3", "not £1,500", "instead of 2", "rather than Friday", "from 1200 to ...": a
    value said to be no longer so."""
    i = value.first - 1
    while (
        i >= first
        and (doc[i].is_punct and doc[i].text not in ",;")
        or (i >= first and doc[i].pos_ in ("DET", "SYM"))
    ):
        i -= 1
    if i < first:
        return False
    word = doc[i].lower_
    if word in ("not", "n't"):
        return True
    if word in ("of", "than") and i - 1 >= first:
        return doc[i - 1].lower_ in ("instead", "rather")
    if word == "from":
        return any(t.lemma_.lower() in CHANGING for t in doc[first : value.first])
    return False


def _said_new(tok: Token) -> bool:
    """ "New amount for the fig: 300 ml", "the new approval limit is £2,000": the thing a
    value is given for, said to be new (what it is said of, a heading or the subject of
    "is"). A new thing had, not given a value ("we got a new puppy"), changes nothing."""
    if tok.lower_ not in ("new", "updated", "revised") or tok.dep_ != "amod":
        return False
    thing = tok.head
    heading = thing.dep_ in ("ROOT", "dep") and thing.pos_ == "NOUN"
    subject = thing.dep_ in ("nsubj", "nsubjpass") and thing.head.lemma_.lower() in COPULAS
    return heading or subject
