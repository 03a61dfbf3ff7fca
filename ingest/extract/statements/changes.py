"""Changes of state over the dependency parse: "We moved the staging server to AWS", "the
threshold changed to 90%", "dropped Zoom for Google Meet as our video tool", "Nimbus has
changed its name to Cirrus". Which thing changed (the object, the topic after "as" or "for",
else the subject) and its new value (after "to", the end of a "from ... to" range, the object
of "with"/"for" in a substitution, the place of a locating verb). Used by
the statement reader (``statements/__init__.py``); pure functions, no I/O.
"""

from __future__ import annotations

from typing import Any

from ingest.extract.rules import Extracted
from ingest.extract.sentences import Sentence
from ingest.extract.statements import facts, parts
from ingest.extract.statements.words import LOCATING, PLACING, SUBSTITUTING

Token = Any  # spacy.tokens.Token; spaCy is untyped here


def change(verb: Token, subj: Token | None, s: Sentence) -> list[Extracted]:
    """ "We moved the staging server to AWS", "the threshold changed to 90%", "Peter moved to
    Berlin": the thing changed (the object, else the subject) gets the value after "to"."""
    lemma = verb.lemma_.lower()
    bare = parts.bare_value(verb)
    thing = _changed_thing(verb, subj, bare)
    if thing is None:
        return []
    kind = parts.subject_kind(thing)
    target = _new_value(verb, subj)
    if kind is None or (target is None and bare is None):
        return []
    if target is not None:
        value = parts.value(target)
    else:
        assert bare is not None
        value = bare.text if _for_topic(bare) is thing else parts.bare_text(bare)
    pred = "location" if lemma in LOCATING or parts.location(verb) is not None else "value"
    if target is not None and target.ent_type_ in {"DATE", "TIME"}:
        pred = "value"  # "the webinar moves to Wednesdays": when, not where
    own = _object(verb)
    if kind == "name" and thing is subj and own is not None and _its(own):
        pred = own.lemma_.lower()  # "changed its name to Cirrus"
    elif kind == "name":
        if lemma not in LOCATING:
            return []
        pred = "location"
    changed = parts.changing(verb) or parts.now(verb)  # "runs on Linode" states, "moved" changes
    return [facts.fact(s, thing, kind, pred, value, parts.negated(verb), changed)]


def _changed_thing(verb: Token, subj: Token | None, bare: Token | None) -> Token | None:
    """What a change verb changes: the topic after "as" ("dropped Zoom for Google Meet as our
    video tool"), the object, the subject of a misread "to X", the topic after "for" ("gone
    from Heroku to Render for the API"), else the subject; the subject itself when the object
    is its own ("Nimbus has changed its name")."""
    obj = next((c for c in verb.children if c.dep_ in {"dobj", "nsubjpass"}), None)
    if _its(obj) and subj is not None and parts.subject_kind(subj) == "name":
        return subj
    thing = _as_topic(verb) or obj
    if thing is None and bare is not None:
        thing = next((c for c in bare.children if c.dep_ == "nsubj"), None)
    if thing is None:
        thing = _for_topic(verb) or (_for_topic(bare) if bare is not None else None)
    if thing is None and subj is not None and subj.lower_ not in {"we", "i", "you"}:
        thing = subj
    return thing


def _new_value(verb: Token, subj: Token | None) -> Token | None:
    """The value a change sets: after "to"; after "with"/"for" for a substitution, or its
    subject ("Linear has replaced Jira as our issue tracker"); the place of a locating verb."""
    lemma = verb.lemma_.lower()
    target = parts.to_value(verb) or _range_end(verb)
    if target is None and lemma in SUBSTITUTING:
        target = _substitute(verb)  # "replaced the old CRM with Pipedrive"
        topic = _as_topic(verb)
        if target is None and topic is not None and subj is not None:
            target = subj if subj.lower_ not in {"we", "i", "you"} else None
    if target is None and lemma in LOCATING | PLACING:
        obj = _object(verb)
        target = parts.location(verb) or (parts.location(obj) if obj is not None else None)
    return target


def _range_end(verb: Token) -> Token | None:
    """ "increased from 200 to 350 dollars": the small model reads "200 to 350 dollars" as one
    quantity after "from"; its end is the value (``parts.value`` keeps what follows "to")."""
    for prep in verb.children:
        if prep.dep_ == "prep" and prep.lower_ == "from":
            pobj = parts.pobj_of(prep)
            if pobj is not None and any(
                t.dep_ == "quantmod" and t.lower_ == "to" for t in pobj.subtree
            ):
                return pobj
    return None


def _object(verb: Token) -> Token | None:
    return next((c for c in verb.children if c.dep_ == "dobj"), None)


def _as_topic(verb: Token) -> Token | None:
    """ "We dropped Zoom for Google Meet as our video tool": the topic whose value changed is
    the one after "as" (the object is the old value)."""
    return _topic_after(verb, "as")


def _for_topic(verb: Token) -> Token | None:
    return _topic_after(verb, "for")


def _topic_after(verb: Token, preposition: str) -> Token | None:
    """The object of ``preposition`` on the verb, when it is one of the tenant's topics."""
    for prep in verb.children:
        if prep.dep_ == "prep" and prep.lower_ == preposition:
            pobj = parts.pobj_of(prep)
            if pobj is not None and parts.subject_kind(pobj) == "topic":
                return pobj
    return None


def _its(thing: Token | None) -> bool:
    """ "its name", "their office": an attribute of the clause's own subject."""
    return thing is not None and any(
        c.dep_ == "poss" and c.lower_ in {"its", "their"} for c in thing.children
    )


def _substitute(verb: Token) -> Token | None:
    """The new value of a substitution: the object of "with" or "for"."""
    for prep in verb.children:
        if prep.dep_ == "prep" and prep.lower_ in {"with", "for"}:
            pobj = parts.pobj_of(prep)
            if pobj is not None and pobj.pos_ in {"PROPN", "NOUN"}:
                return pobj
    return None
