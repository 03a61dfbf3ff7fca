"""Statements over spaCy's dependency parse: facts about names and topics, changes of state,
quantities and preferences in every mood, read from the grammar rather than from phrasings.

The rules in ``ingest/rules.py`` match whole sentences of known shapes; this extractor reads
the parse of any sentence: who or what the subject is (a named entity or a *topic* such as
"staging server" or "deploy target"), which attribute the clause states (a copula, a location
preposition, a change-of-state verb) and its value. A topic subject becomes a ``concept``
entity (``Extracted.subject_kind == "topic"``), so a topic gets a supersede chain like a
person does. Pure functions over a parsed ``Doc``; no I/O.

    >>> [e.predicate for e in extract(nlp("The staging server is on Hetzner."))]
    ['location']
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from core.types import MemoryType
from ingest import rules
from ingest import statement_parts as parts
from ingest.rules import Extracted
from ingest.sentences import Sentence, is_pleasantry, split_sentences
from ingest.statement_words import (
    CHANGE_VERBS,
    LIKING,
    LOCATING,
    RULE_VERBS,
    SUBJECTS,
    VAGUE,
)

Token = Any  # spacy.tokens.Token; spaCy is untyped here
OUR_TOPIC = "our-topic"  # a topic reading of an "our ..." sentence, used without an organisation


def extract(doc: Any, text: str | None = None) -> list[Extracted]:
    """Every statement of a turn, in order (questions state nothing). Per sentence, a fact
    the closed-list rules of ``ingest/rules.py`` recognise keeps their reading (a known
    attribute of a name, "our HQ"); otherwise the parse decides; what neither finds as a
    fact or preference falls to the rules' decisions and episodes. Without a parse (a
    resolver that failed), the rules alone."""
    text = doc.text if text is None and doc is not None else text or ""
    if is_pleasantry(text):
        return []
    out: list[Extracted] = []
    for sentence in split_sentences(text):
        if sentence.text.rstrip().endswith("?"):
            continue
        ruled = [_changing(e) for e in rules.sentence(sentence)]
        if any(_settled(e) for e in ruled) or doc is None:
            out.extend(ruled)
            if doc is not None and any(_ours(e) for e in ruled):
                # "Our deploy target is X": the organisation's, when the session has one;
                # else the topic's (``extraction.settle_ours`` keeps one reading).
                parsed = sentence_statements(doc, sentence)
                out.extend(replace(e, subject_kind=OUR_TOPIC) for e in parsed if e.kind == "fact")
            continue
        out.extend(sentence_statements(doc, sentence) or ruled)
    return out


def _changing(ex: Extracted) -> Extracted:
    """A rules' fact said with a change-of-state verb ("Peter moved to Vienna") is a change."""
    if ex.kind == "fact" and not ex.correction and _CHANGED.search(ex.content):
        return replace(ex, correction=True)
    return ex


_CHANGED = re.compile(r"\b(?:moved|relocated|switched|changed|migrated|reverted)\b", re.I)


def _settled(ex: Extracted) -> bool:
    """A rules' reading the parse does not revisit: a fact, or a preference that names its
    topic ("I prefer tabs for indentation")."""
    return ex.kind == "fact" or (ex.predicate or "").startswith("preference:")


def _ours(ex: Extracted) -> bool:
    return ex.kind == "fact" and (ex.subject or "").casefold() == rules.OUR


def sentence_statements(doc: Any, s: Sentence) -> list[Extracted]:
    """The statements of one sentence: its clause roots read one after another."""
    tokens = [t for t in doc if s.start <= t.idx < s.end]
    inside = {t.i for t in tokens}
    roots = [t for t in tokens if t.head.i == t.i or t.head.i not in inside]
    clauses: list[Token] = []
    for root in roots:  # a clause and the clauses beside it, in the order said
        more = [c for c in root.children if c.dep_ in {"conj", "ccomp"} and c.i in inside]
        clauses += sorted([root, *more], key=lambda t: t.i)
    out: list[Extracted] = []
    topic: Token | None = None
    for clause in clauses:
        found = _clause(clause, s, topic)
        if found and found[-1].subject_kind == "topic":
            topic = next(c for c in clause.children if c.dep_ in SUBJECTS | {"dobj"})
        out.extend(found)
    return _positive_wins(out)


def _positive_wins(found: list[Extracted]) -> list[Extracted]:
    """ "X is no longer on A, it is on B": the new value replaces A; the retraction of A
    alone would supersede it a second time."""
    said = {(e.subject, e.predicate) for e in found if e.kind == "fact" and not e.negated}
    return [e for e in found if not (e.negated and (e.subject, e.predicate) in said)]


def _clause(verb: Token, s: Sentence, topic: Token | None = None) -> list[Extracted]:
    """The statement of one clause; ``topic`` is the sentence's topic so far, what "it"
    refers to ("the dashboard is no longer on Heroku, it is on Render")."""
    lemma = verb.lemma_.lower()
    if _subordinate(verb):
        return []
    subj = next((c for c in verb.children if c.dep_ in SUBJECTS), None)
    if subj is not None and subj.lower_ == "it" and topic is not None:
        subj = topic
    if lemma == "be" and subj is not None:
        return _copular(verb, subj, s)
    if subj is not None and parts.misread_copula(verb):
        # "The default branch is develop": the small model reads a progressive; the word
        # after "is" is the value.
        kind = parts.subject_kind(subj)
        if kind == "topic":
            return [_fact(s, subj, kind, "value", verb.text, False, parts.now(verb))]
        return []
    if lemma in CHANGE_VERBS or (lemma in LOCATING and subj is not None):
        return _change(verb, subj, s)
    if subj is not None and subj.lower_ in {"i", "we"} and lemma in LIKING:
        return _liking(verb, s)
    if subj is None and verb.tag_ == "VB" and _commands(verb):
        return _imperative(verb, s)
    return []


def _subordinate(verb: Token) -> bool:
    """ "how calm the office is", "if it is ...", "could have been": not a statement."""
    if verb.dep_ == "ccomp" and any(t.tag_ == "WRB" and t.i < verb.i for t in verb.subtree):
        return True
    for c in verb.children:
        if c.dep_ == "mark" or (c.dep_ == "advmod" and c.tag_ == "WRB"):
            return True
        if c.dep_ == "aux" and c.tag_ == "MD" and c.lower_ not in {"will", "'ll"}:
            return True
    return False


def _commands(verb: Token) -> bool:
    """An imperative: no subject of its own or of the verb it is coordinated with ("you
    never shy away ... and always try"), no auxiliary but "do" ("don't")."""
    if any(c.dep_ in {"csubj", "expl"} for c in verb.children):
        return False
    if any(c.dep_ == "aux" and c.lemma_ != "do" for c in verb.children):
        return False
    head = verb.head
    return not (verb.dep_ == "conj" and any(c.dep_ in SUBJECTS for c in head.children))


# -- facts -------------------------------------------------------------------------------------


def _copular(verb: Token, subj: Token, s: Sentence) -> list[Extracted]:
    """ "X is Y", "X is on Y", "X is now Y", "X is no longer Y", "X is hosted on Y"."""
    kind = parts.subject_kind(subj)
    if kind is None:
        return []
    attr = next((c for c in verb.children if c.dep_ in {"attr", "oprd"}), None)
    acomp = next((c for c in verb.children if c.dep_ == "acomp"), None)
    located = parts.location(verb)
    named_value = acomp is not None and (acomp.pos_ == "PROPN" or parts.attribute_noun(subj))
    if attr is None and acomp is not None and (parts.numeric(acomp) or named_value):
        attr = acomp  # "the newsletter tool is Mailchimp" (read as an adjective)
    if attr is None:  # "the release cadence is now one week"
        attr = next((c for c in verb.children if c.dep_ == "npadvmod" and parts.numeric(c)), None)
    if attr is None and located is None:
        passive = next((c for c in verb.children if c.dep_ in {"acomp", "xcomp"}), None)
        if passive is not None and passive.lemma_.lower() in LOCATING:
            located = parts.location(passive)
        if located is None:
            return []
    negated = parts.negated(verb)
    correction = parts.now(verb) or negated
    if kind == "name":
        return _named(verb, subj, attr, located, negated, correction, s)
    adjective_value = attr is not None and attr.pos_ == "ADJ" and parts.attribute_noun(subj)
    vague = attr is not None and attr.pos_ in {"PRON", "ADJ"} and not parts.numeric(attr)
    if vague and not adjective_value:
        return []  # "X is great", "X is it"
    if attr is not None and (attr.lemma_.lower() in VAGUE or parts.judged(attr)):
        return []  # "color-coding is a great way to ...": an opinion, not a value
    if attr is not None:
        return [_fact(s, subj, kind, "value", parts.value(attr), negated, correction)]
    assert located is not None
    when = located.ent_type_ in {"DATE", "TIME"}  # "the weekly sync is on Monday"
    pred = "value" if when else "location"
    return [_fact(s, subj, kind, pred, parts.value(located), negated, correction)]


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
        return [_fact(s, subj, "name", pred, parts.value(org), negated, correction)]
    if attr.pos_ == "PROPN" or attr.pos_ == "PRON" or parts.numeric(attr):
        return []
    role = parts.role(attr)
    out = [_fact(s, subj, "name", "role", role, negated, correction)]
    org = parts.employer(attr) or parts.employer(verb)
    if org is not None:
        out.append(_fact(s, subj, "name", "employer", org, negated, correction))
    if len(out) > 1:
        name = parts.subject_text(subj)
        out = [_restated(e, name) for e in out]
    return out


def _change(verb: Token, subj: Token | None, s: Sentence) -> list[Extracted]:
    """ "We moved the staging server to AWS", "the threshold changed to 90%", "Peter moved to
    Berlin": the thing changed (the object, else the subject) gets the value after "to"."""
    lemma = verb.lemma_.lower()
    bare = parts.bare_value(verb)
    thing = next((c for c in verb.children if c.dep_ in {"dobj", "nsubjpass"}), None)
    if thing is None and bare is not None:
        thing = next((c for c in bare.children if c.dep_ == "nsubj"), None)
    if thing is None and subj is not None and subj.lower_ not in {"we", "i", "you"}:
        thing = subj
    if thing is None:
        return []
    kind = parts.subject_kind(thing)
    target = parts.to_value(verb)
    if target is None and lemma in LOCATING:
        target = parts.location(verb)
    if kind is None or (target is None and bare is None):
        return []
    value = parts.value(target) if target is not None else parts.bare_text(bare) if bare else None
    pred = "location" if lemma in LOCATING or parts.location(verb) is not None else "value"
    if kind == "name":
        if lemma not in LOCATING:
            return []
        pred = "location"
    negated = parts.negated(verb)
    assert value is not None
    changed = lemma in CHANGE_VERBS or parts.now(verb)  # "runs on Linode" states, "moved" changes
    return [_fact(s, thing, kind, pred, value, negated, changed)]


def _fact(
    s: Sentence,
    subj: Token,
    kind: str,
    predicate: str,
    value: str,
    negated: bool,
    correction: bool,
) -> Extracted:
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


# -- preferences -------------------------------------------------------------------------------


def _liking(verb: Token, s: Sentence) -> list[Extracted]:
    """ "I prefer blog posts under 800 words": a preference about its object's topic."""
    obj = next((c for c in verb.children if c.dep_ in {"dobj", "xcomp", "ccomp"}), None)
    if obj is None:
        return []
    negated = parts.negated(verb)
    topic = _topic_of(obj)
    return [_preference(s, topic, negated, parts.now(verb))] if topic else []


def _imperative(verb: Token, s: Sentence) -> list[Extracted]:
    """ "Keep my blog posts shorter than 800 words, please", "never use emojis", "please stop
    sending PDFs", "don't cc Anna": a rule about how things are done for the user."""
    lemma = verb.lemma_.lower()
    adverbs = {c.lower_ for c in verb.children if c.dep_ in {"advmod", "neg"}}
    if lemma not in RULE_VERBS and not adverbs & {"always", "never"}:
        return []
    if verb.i > 0 and verb.doc[verb.i - 1].lower_ in {"to", "and", "or"}:
        return []
    obj = next((c for c in verb.children if c.dep_ in {"dobj", "xcomp", "ccomp"}), None)
    negated = bool(adverbs & {"never", "not", "n't"}) or lemma in {"stop", "avoid", "skip"}
    topic = _topic_of(obj) if obj is not None else None
    return [_preference(s, topic, negated, parts.now(verb))]


def _preference(s: Sentence, topic: str | None, negated: bool, correction: bool) -> Extracted:
    clause = s.text.strip()
    return Extracted(
        "preference",
        MemoryType.PREFERENCE,
        clause,
        s.start,
        s.end,
        subject="user",
        predicate=f"preference:{topic}" if topic else "instruction",
        object=clause.rstrip(".!"),
        negated=False,  # the value is the whole rule, negation included
        correction=correction,
        importance=0.7,
        confidence=0.75,
    )


def _topic_of(tok: Token) -> str | None:
    """What a preference is about: the object's noun with its compounds ("blog post"), looking
    through a verb ("stop using emojis" → "emoji")."""
    seen = 0
    while tok.pos_ in {"VERB", "AUX"} and seen < 3:
        nxt = next((c for c in tok.children if c.dep_ in {"dobj", "xcomp", "ccomp"}), None)
        if nxt is None:
            return None
        tok, seen = nxt, seen + 1
    if tok.pos_ not in {"NOUN", "PROPN"}:
        return None
    words = [c.lemma_.lower() for c in tok.lefts if c.dep_ == "compound"]
    return " ".join([*words, tok.lemma_.lower()])
