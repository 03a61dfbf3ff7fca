"""Preferences and rules read from the parse, for the statement reader
(``statements/__init__.py``): "I prefer ...", "I'd rather you ...", "I want ... from now on",
imperatives that state a standing rule ("keep answers under 200 words", "never use emojis",
"remember to always add alt text") and limits said as a fragment ("no more than two exclamation
marks per email, please").

What is *not* a preference matters as much: a one-off request ("send my regards to your
parents"), encouragement ("keep going!"), a habit of the past ("I preferred window seats
back then"), someone else's wish or words (those never reach here: ``statements`` skips
reported and quoted clauses). An imperative states a rule when its verb is one of rules
(avoid, stop), when a word makes it standing ("always", "every", "from now on", "on
Mondays"), or when a rule verb's object is generic or given a shape ("answers under 200
words", "the tone formal"), not a particular thing.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from core.types import MemoryType
from ingest.extract.rules import Extracted
from ingest.extract.sentences import Sentence
from ingest.extract.statements import parts
from ingest.extract.statements.words import DEFERRING, LIKING, RULE_VERBS, STANDING

Token = Any  # spacy.tokens.Token; spaCy is untyped here

_FORWARD = re.compile(
    r"\b(?:from now on|going forward|moving forward|in (?:the )?future|from today on)\b", re.I
)
_RULES_ALONE = frozenset({"avoid", "stop", "skip", "limit"})  # a rule whatever their object
_PARTS_OF_DAY = frozenset(
    {"weekend", "morning", "afternoon", "evening", "night", "monday", "tuesday", "wednesday",
     "thursday", "friday", "saturday", "sunday", "weekday", "holiday"}
)  # fmt: skip
_SPECIFIC = frozenset(
    {"the", "this", "that", "these", "those", "my", "your", "his", "her", "their"}
)


def wanted(verb: Token, s: Sentence) -> list[Extracted]:
    """ "I prefer blog posts under 800 words", "I'd rather you skip the small talk", "I want
    the summaries in bullet points from now on": what the speaker wants, now and on."""
    lemma = verb.lemma_.lower()
    if lemma in LIKING and verb.tag_ != "VBD":  # "I preferred ... back then": a past habit
        return _about(verb, s)
    if verb.tag_ == "MD" and lemma in {"would", "'d"}:
        rather = next((c for c in verb.children if c.dep_ == "ccomp" and _rather(c)), None)
        return _about(rather, s) if rather is not None else []
    polite = any(c.dep_ == "aux" and c.lower_ in {"'d", "would"} for c in verb.children)
    if polite and any(c.lower_ == "rather" for c in verb.children):
        return _about(verb, s)  # "I'd rather have a short call than a long thread"
    if polite and lemma == "like" and _shaped_object(verb):
        return _about(verb, s)  # "I'd like the invoices in one PDF"
    perfect = any(c.dep_ == "aux" and c.lemma_ == "have" for c in verb.children)
    if perfect:  # "I've always wanted to learn Spanish": a wish of long standing, no rule
        return []
    if lemma in {"want", "need", "like"} and verb.tag_ != "VBD" and standing(verb, s):
        return _about(verb, s)
    return []


def _shaped_object(verb: Token) -> bool:
    """ "the invoices in one PDF", "the report as bullet points": an object given a form,
    not a thing asked for once ("I'd like a coffee")."""
    obj = next((c for c in verb.children if c.dep_ == "dobj"), None)
    if obj is None:
        return False
    near = [*obj.children, *verb.children]
    return any(c.dep_ == "prep" and c.lower_ in {"in", "as"} for c in near)


def fan(verb: Token, s: Sentence) -> list[Extracted]:
    """ "I'm a big fan of short, punchy headlines": a like, said as a noun."""
    attr = next((c for c in verb.children if c.dep_ == "attr"), None)
    if attr is None or attr.lemma_.lower() != "fan" or verb.tag_ == "VBD":
        return []
    of = next((c for c in attr.children if c.dep_ == "prep" and c.lower_ == "of"), None)
    pobj = parts.pobj_of(of)
    if pobj is None:
        return []
    liked = preference(s, topic_of(pobj), parts.now(verb))
    return [replace(liked, predicate="likes")]


def _rather(verb: Token) -> bool:
    return any(c.lower_ == "rather" for c in verb.children) or any(
        t.lower_ == "rather" for t in verb.head.children
    )


def _about(verb: Token, s: Sentence) -> list[Extracted]:
    obj = next((c for c in verb.children if c.dep_ in {"dobj", "xcomp", "ccomp"}), None)
    if obj is None:
        return []
    topic = topic_of(obj)
    return [preference(s, topic, parts.now(verb))] if topic else []


def imperative(verb: Token, s: Sentence) -> list[Extracted]:
    """ "Keep my blog posts shorter than 800 words, please", "never use emojis", "please stop
    sending PDFs", "remember to always add alt text": a rule about how things are done for
    the user. "Make sure to have fun" hands the decision to "have fun", which states none."""
    if verb.i > 0 and verb.doc[verb.i - 1].lower_ in {"to", "and", "or"}:
        return []
    if verb.lemma_.lower() == "let":  # "let me know", "let's keep going": an offer, a cheer
        return []
    if verb.lemma_.lower() in DEFERRING:
        governed = _governed(verb)
        if governed is not None:
            return _rule(governed, s)
        if verb.lemma_.lower() != "make":
            return []
    return _rule(verb, s)


def _cheering(verb: Token) -> bool:
    """ "Keep at it", "keep diving in and enjoying it": "it" is what the listener is doing;
    a rule gives "it" a shape ("keep it under 200 words", "keep it formal")."""
    words = list(verb.subtree)
    if _shaped(verb) or any(t.lower_ in {"always", "never"} for t in words):
        return False
    limited = any(t.lower_ in _LIMITS for t in words)
    return not limited and any(t.lower_ == "it" for t in words)


_LIMITS = frozenset({"under", "below", "within", "short", "shorter", "brief", "simple"})


def _governed(verb: Token) -> Token | None:
    """The verb a "remember to ..." or "make sure to ..." hands the instruction to."""
    heads = [verb, *[c for c in verb.children if c.dep_ == "acomp" and c.lemma_ == "sure"]]
    if verb.lemma_.lower() in {"make", "be"} and len(heads) == 1:
        return None  # "make the slides 16:9": a rule of its own
    for head in heads:
        for c in head.children:
            own = any(g.dep_ in {"nsubj", "nsubjpass"} for g in c.children)
            if c.dep_ in {"xcomp", "ccomp"} and c.pos_ == "VERB" and not own:
                return c  # "remember to add ...", not "remember, small things can ..."
    return verb if len(heads) > 1 else None


def _rule(verb: Token, s: Sentence) -> list[Extracted]:
    lemma = verb.lemma_.lower()
    if lemma == "keep" and _cheering(verb):
        return []  # "keep at it", "keep rockin' it!": encouragement
    obj = next((c for c in verb.children if c.dep_ in {"dobj", "xcomp", "ccomp"}), None)
    said_how = obj is not None or any(c.dep_ == "prep" for c in verb.children)
    ruled = (
        lemma in _RULES_ALONE
        or standing(verb, s)
        or (lemma in RULE_VERBS and said_how and (_shaped(verb) or _generic(obj)))
    )
    if not ruled:
        return []
    topic = topic_of(obj) if obj is not None else None
    return [preference(s, topic, parts.now(verb))]


_QUANTIFIERS = frozenset({"all", "every", "everything"})


def _quantifies_object(t: Token) -> bool:
    """ "every call", "all invoices", "everything you write": said of what the rule is about."""
    if t.dep_ in {"dobj", "pobj"}:
        return True
    return t.dep_ in {"det", "predet"} and t.head.dep_ in {"dobj", "pobj", "npadvmod"}


def standing(verb: Token, s: Sentence) -> bool:
    """Said as holding from now on: "always", "every call", "from now on", "on weekends",
    "after 6pm"."""
    if _FORWARD.search(s.text):
        return True
    for t in _own_clause(verb):
        if t.lower_ in _QUANTIFIERS and not _quantifies_object(t):
            continue  # "got some gear - all top-notch": "all" says nothing of the rule
        if t.lower_ == "ever" and verb.lemma_.lower() not in RULE_VERBS:
            continue  # "don't ever quit on what you love": encouragement
        if t.lower_ in STANDING:
            return True
        if t.tag_ in {"NNS", "NNPS"} and t.lemma_.lower() in _PARTS_OF_DAY:
            return True  # "on Mondays", "on Friday afternoons"
        if t.dep_ == "pobj" and t.head.lower_ in {"after", "before"} and t.ent_type_ == "TIME":
            return True  # "don't call me after 6pm"
    return False


def _own_clause(verb: Token) -> list[Token]:
    """The verb's words without the clauses subordinate to it ("let me know if you need any
    help": "any" is the condition's, not the request's)."""
    skip: set[int] = set()
    for c in verb.children:
        if c.dep_ in {"advcl", "ccomp", "relcl"} and c.i != verb.i:
            skip |= {t.i for t in c.subtree}
    return [t for t in verb.subtree if t.i not in skip]


def _shaped(verb: Token) -> bool:
    """The object is given a shape: "keep the tone formal", "make the slides 16:9"."""
    return any(c.dep_ in {"oprd", "acomp", "ccomp"} and c.pos_ not in {"VERB", "AUX"}
               for c in verb.children)  # fmt: skip


def _generic(obj: Token | None) -> bool:
    """No particular thing: no object ("reply in German"), a bare plural or a name ("use
    Oxford commas", "avoid Comic Sans"), looking through a verb ("stop using emojis"); not
    "my regards", "the file", "it", "going"."""
    seen = 0
    while obj is not None and obj.pos_ in {"VERB", "AUX"} and seen < 3:
        obj = next((c for c in obj.children if c.dep_ in {"dobj", "xcomp", "ccomp"}), None)
        if obj is None:
            return False  # "keep going"
        seen += 1
    if obj is None:
        return True
    if obj.pos_ not in {"NOUN", "PROPN"}:
        return False  # "keep it up", "keep motivating each other"
    return not any(c.dep_ in {"det", "poss"} and c.lower_ in _SPECIFIC for c in obj.children)


def limit(noun: Token, s: Sentence) -> list[Extracted]:
    """A limit said without a verb: "No more than two exclamation marks per email, please",
    "max three slides"."""
    words = {t.lower_ for t in noun.subtree}
    bounded = ("no" in words and "than" in words and words & {"more", "fewer", "less"}) or (
        words & {"max", "maximum", "minimum"}
    )
    if bounded and parts.numeric(noun):
        return [preference(s, topic_of(noun), False)]
    banned = any(c.dep_ == "det" and c.lower_ == "no" for c in noun.children)
    if banned and "please" in words:  # "No jargon in anything for customers, please."
        return [preference(s, topic_of(noun), False)]
    return []


def preference(s: Sentence, topic: str | None, correction: bool) -> Extracted:
    """The sentence as the user's preference about ``topic`` (an instruction without one)."""
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


def topic_of(tok: Token) -> str | None:
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
