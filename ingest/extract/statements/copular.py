"""Copular and attributive statements over the dependency parse: "the staging server is on
Hetzner", "Sarah Okafor is the head of procurement at Dunmore Foods", "traffic was 500 visits a
week", "our CRM is HubSpot" — the attribute the copula states (location, employer, role, a
measure, a value) and its value; a sentence naming several subjects is restated per subject.
Used by the statement reader (``statements/__init__.py``); pure functions, no I/O.
"""

from __future__ import annotations

from typing import Any

from ingest.extract.rules import Extracted
from ingest.extract.sentences import Sentence
from ingest.extract.statements import facts, parts
from ingest.extract.statements.words import LOCATING, VAGUE

Token = Any  # spacy.tokens.Token; spaCy is untyped here


def copular(verb: Token, subj: Token, s: Sentence) -> list[Extracted]:
    """ "X is Y", "X is on Y", "X is now Y", "X is no longer Y", "X is hosted on Y"."""
    attr = next((c for c in verb.children if c.dep_ in {"attr", "oprd"}), None)
    acomp = next((c for c in verb.children if c.dep_ == "acomp"), None)
    located = parts.location(verb)
    owner = parts.named_owner(subj)
    if owner is not None:  # "Globex's CTO is Omar Haddad"
        return facts.owned(subj, owner, attr or _named_acomp(acomp), located, s)
    kind = parts.subject_kind(subj)
    if kind is None:
        return []
    named_value = acomp is not None and (acomp.pos_ == "PROPN" or parts.attribute_noun(subj))
    if attr is None and acomp is not None and (parts.numeric(acomp) or named_value):
        attr = acomp  # "the newsletter tool is Mailchimp" (read as an adjective)
    moved = _up_or_down(verb)
    if attr is None and moved is not None:
        attr = moved  # "traffic is up to 3000 visits a day"
    if attr is None and located is None:  # "the cadence is now one week", "it's Friday"
        near = [
            *verb.children,
            *(g for c in verb.children if c.dep_ == "advmod" for g in c.children),
        ]
        attr = next((c for c in near if c.dep_ == "npadvmod" and _dated(c)), None)
    if attr is None and located is None:
        passive = next((c for c in verb.children if c.dep_ in {"acomp", "xcomp"}), None)
        if passive is not None and passive.lemma_.lower() in LOCATING:
            located = parts.location(passive)
        if located is None:
            return []
    dated = parts.dated_as(subj)
    if dated == "old":
        return []  # "the old address was 4 Mill Lane": a value no longer current
    moved = moved or _quantified_move(attr)  # "traffic is up to 3000" read as "up to 3000"
    if attr is not None and attr.pos_ == "NOUN" and _indefinite(attr) and kind == "topic":
        return []  # "the launch was a success", "the project is a nightmare": a judgement
    negated = parts.negated(verb)
    correction = parts.now(verb) or negated or verb.lemma_.lower() == "become" or dated == "new"
    correction = correction or moved is not None
    if kind == "name":
        return _named(verb, subj, attr, located, negated, correction, s)
    adjective_value = attr is not None and attr.pos_ == "ADJ" and parts.attribute_noun(subj)
    vague = attr is not None and attr.pos_ in {"PRON", "ADJ"} and not parts.numeric(attr)
    if vague and not adjective_value:
        return []  # "X is great", "X is it"
    if (
        attr is not None
        and not parts.numeric(attr)
        and (attr.lemma_.lower() in VAGUE or parts.judged(attr))
    ):
        return []  # "color-coding is a great way to ...": an opinion, not a value
    if attr is not None and parts.judged_value(attr):
        return []  # "the colors were amazing", "the colors are so vivid"
    if attr is not None and (attr.lemma_ == subj.lemma_ or parts.speakers(attr)):
        return []  # "progress is progress", "the Hobbit is one of my favorites"
    if attr is not None:
        value = parts.value(attr)
        if len(value.split()) > _LONGEST_VALUE:
            return []  # "this promotion is a reward for all the hustle ...": a thought
        return [facts.fact(s, subj, kind, "value", value, negated, correction)]
    assert located is not None
    when = located.ent_type_ in {"DATE", "TIME"}  # "the weekly sync is on Monday"
    pred = "value" if when else "location"
    return [facts.fact(s, subj, kind, pred, parts.value(located), negated, correction)]


def _up_or_down(verb: Token) -> Token | None:
    for adv in verb.children:
        if adv.dep_ == "advmod" and adv.lower_ in {"up", "down"}:
            to = next((c for c in adv.children if c.dep_ == "prep" and c.lower_ == "to"), None)
            pobj = parts.pobj_of(to)
            if pobj is not None and parts.numeric(pobj):
                return pobj
    return None


def _quantified_move(attr: Token | None) -> Token | None:
    if attr is None:
        return None
    moved = any(
        c.dep_ == "quantmod" and c.lower_ in {"up", "down"}
        for t in attr.subtree
        for c in t.children
    )
    return attr if moved else None


def _indefinite(attr: Token) -> bool:
    """ "a success", "a waste of time": a kind, not a value (numbers aside: "a week"; a
    relation to a name stays: "a subsidiary of Orion Holdings")."""
    det = any(c.dep_ == "det" and c.lower_ in {"a", "an"} for c in attr.children)
    of = next((c for c in attr.children if c.dep_ == "prep" and c.lower_ == "of"), None)
    pobj = parts.pobj_of(of)
    related = pobj is not None and pobj.pos_ == "PROPN"
    return det and not parts.numeric(attr) and not related


def _dated(tok: Token) -> bool:
    return parts.numeric(tok) or tok.ent_type_ in {"DATE", "TIME"}


_LONGEST_VALUE = 8  # words; "500 visits a week", "head of procurement at Dunmore Foods"


def _named_acomp(acomp: Token | None) -> Token | None:
    return acomp if acomp is not None and acomp.pos_ == "PROPN" else None


def _named(
    verb: Token,
    subj: Token,
    attr: Token | None,
    located: Token | None,
    negated: bool,
    correction: bool,
    s: Sentence,
) -> list[Extracted]:
    """A named subject: "Sarah Okafor is the head of procurement at our client Dunmore Foods"
    states a role and an employer, each as a statement of its own."""
    if attr is None:
        assert located is not None
        org = parts.proper(located)
        if org is None:
            return []
        pred = "location" if parts.place(org) else "employer"
        return [facts.fact(s, subj, "name", pred, parts.value(org), negated, correction)]
    said_as_role = attr.pos_ == "NOUN" or (attr.pos_ == "PROPN" and parts.acronym(attr))
    if not said_as_role or parts.numeric(attr) or not parts.role_noun(attr):
        return []
    if parts.place(subj):
        return []  # "Barcelona is a must-visit city": a place has no role
    role = parts.role(attr)
    out = [facts.fact(s, subj, "name", "role", role, negated, correction)]
    org = parts.employer(attr) or parts.employer(verb)
    if org is not None:
        out.append(facts.fact(s, subj, "name", "employer", org, negated, correction))
    if len(out) > 1:
        name = parts.subject_text(subj)
        out = [_restated(e, name) for e in out]
    return out


def _restated(fact: Extracted, name: str) -> Extracted:
    """One fact of a sentence stating several, as a sentence of its own."""
    value = fact.object or ""
    neg = "no longer " if fact.negated else ""
    if fact.predicate == "employer":
        text = f"{name} {'no longer works' if fact.negated else 'works'} at {value}."
    else:
        article = "the " if " of " in value else ("an " if value[:1] in "aeiou" else "a ")
        text = f"{name} is {neg}{article}{value}."
    return Extracted(**{**fact.__dict__, "content": text, "subject_at": 0})
