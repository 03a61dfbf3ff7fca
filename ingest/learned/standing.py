"""Standing rules and preferences as core memory (``ingest/learned/recognise.py``): the ones
the extractor found, said as so and as an instruction for how things are done."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.statements import (
    ASSERT,
    CONDITIONAL,
    NEGATION,
    QUESTION,
    REQUEST,
    Statement,
)
from ingest.extract.rules import Extracted
from ingest.extract.statements import parts
from ingest.extract.statements.words import STANDING
from ingest.learned.common import (
    MAX_CHARS,
    RULE,
    Learned,
    Token,
    item_of,
    negated,
    root_of,
    subject_of,
)
from ingest.learned.people import is_i
from ingest.slots.values import tokens_in

# Moods a rule may be said in: as so, as a request ("always answer in British English"), as a
# negated imperative ("never schedule calls on Fridays"), as a standing request in a question
# ("could you always write dates as YYYY-MM-DD?") or under a condition ("if it's urgent,
# call me"); not as someone's view, a plan, a possibility, history or an event.
RULE_MOODS = frozenset({ASSERT, REQUEST, NEGATION, QUESTION, CONDITIONAL})


def rules_in(doc: Any, said: Sequence[Statement], extracted: Sequence[Extracted]) -> list[Learned]:
    out = []
    for ex in extracted:
        predicate = ex.predicate or ""
        if ex.kind != "preference" or not (
            predicate == "instruction" or predicate.startswith("preference:")
        ):
            continue  # likes and dislikes ("I love hiking") are not rules
        s = next((x for x in said if x.start <= ex.start < x.end), None)
        if s is None or s.mood not in RULE_MOODS or len(ex.content) > MAX_CHARS:
            continue
        tokens = tokens_in(doc, s.start, s.end)
        verb = root_of(tokens)
        if verb is None:  # "Never schedule calls on Fridays" read as a noun phrase
            cue = len(tokens) > 1 and tokens[0].lower_ in STANDING
            if not (cue and predicate == "instruction" and tokens[1].pos_ in ("VERB", "NOUN")):
                continue  # "always up for something sweet"
        elif not instructs(verb, s) or _one_off(verb, tokens):
            continue
        if predicate.startswith("preference:"):  # one preference per topic
            slot = f"{TOPIC_RULE}{predicate.split(':', 1)[1]}"
        elif verb is not None:  # what it rules: "answer ... English", "schedule ... call"
            slot = f"rule:{ruled(verb)}"
        else:
            slot = "rule:" + " ".join(sorted(s.words - STANDING))
        out.append(item_of(doc, RULE, slot, s, ex.content.strip(), (ex.start, ex.end)))
    return out


TOPIC_RULE = "rule:topic:"  # a preference's topic: a later one of the topic replaces it


def ruled(verb: Token) -> str:
    """What an instruction rules: its verb and the head of its object or manner ("answer
    in British English" → "answer english"); two rules of it are one rule said twice only
    when the later says it changes ("... from now on", "now")."""
    for c in verb.children:
        if c.dep_ in ("dobj", "oprd", "dative") and c.pos_ in ("NOUN", "PROPN"):
            return f"{verb.lemma_.lower()} {c.lemma_.lower()}"
    for c in verb.children:
        pobj = parts.pobj_of(c) if c.dep_ == "prep" else None
        if pobj is not None and pobj.pos_ in ("NOUN", "PROPN"):
            return f"{verb.lemma_.lower()} {pobj.lemma_.lower()}"
    return str(verb.lemma_).lower()


def instructs(verb: Token, s: Statement) -> bool:
    """How the speaker wants things done: an imperative or "I prefer/want/'d like ..." about
    something done (an object, a manner: "answer *in British English*", "keep *replies*
    under 150 words"); not encouragement of the listener ("never give up", "keep going",
    "take care of yourself"), nor a sentence that only describes ("my favourite is ...").
    Under a condition, only an imperative ("if it's urgent, call me")."""
    subj = subject_of(verb)
    rather = next((c for c in verb.children if c.dep_ == "ccomp"), None)
    wished = (
        is_i(subj) and rather is not None and any(c.lower_ == "rather" for c in rather.children)
    )
    if wished:  # "I'd rather you kept summaries short": what is wanted
        assert rather is not None
        verb, subj = rather, None
    lemma = verb.lemma_.lower()
    imperative = (wished or verb.tag_ in ("VB", "VBP")) and subj is None
    wanting = is_i(subj) and lemma in WANTING
    # "could you always write dates as YYYY-MM-DD?": a standing request, asked
    imperative = imperative or (
        subj is not None
        and subj.lower_ == "you"
        and any(c.dep_ == "aux" and c.lower_ in ASKING for c in verb.children)
    )
    if s.mood == CONDITIONAL and not imperative:
        return False
    if not (imperative or wanting) or lemma == "be":
        return False
    if imperative and lemma in FEELING:
        return False  # "(I) love all the details": a feeling, its subject left out
    if any(c.dep_ == "conj" and c.tag_ == "VBD" for c in verb.children):
        return False  # "put in late nights but finally got it done": a story
    if {t.lower_ for t in verb.subtree} & {"yourself", "yourselves"}:
        return False
    sure = next(
        (c for c in verb.children if c.dep_ in ("acomp", "ccomp") and c.lower_ == "sure"), None
    )
    if sure is not None:  # "make sure you ...": what is to be made sure of
        around = [*sure.children, *(c for c in verb.children if c is not sure)]
        governed = next((c for c in around if c.dep_ == "ccomp"), None)
        if governed is None or negated(governed):
            return False
        who = subject_of(governed)
        if who is not None and who.lower_ in OTHERS:
            return False  # "make sure they get enough light": advice about someone else
        verb = governed
    does = [c for c in verb.children if c.dep_ in DOING]
    if any(g.dep_ == "poss" and g.lower_ in OTHERS for c in does for g in c.children):
        return False  # "keep their area clean": advice about someone else's things
    return any(c.dep_ != "xcomp" or DOING & {g.dep_ for g in c.children} for c in does)


def _one_off(verb: Token, tokens: Sequence[Token]) -> bool:
    """Whether an instruction asks for one thing now rather than how things are done: what
    it acts on is one new thing ("write me *a* short welcome note", "make me *a* checklist"),
    a thing at hand ("keep *it* simple", "make *that* 28k total") or words quoted ("add
    *'must love dogs'*"), and nothing says it holds on other occasions ("always", "every",
    "all future invoices")."""
    if any(t.lower_ in STANDING or t.lemma_.lower() == "future" for t in tokens):
        return False
    after = [t for t in tokens if t.i > verb.i and t.lower_ not in FOR_ME]
    first = after[0].lower_ if after else ""
    if first in AT_HAND or first in ("a", "an") or first in QUOTES:
        return True
    return any(
        c.dep_ == "dobj" and any(d.dep_ == "det" and d.lower_ in ("a", "an") for d in c.children)
        for c in verb.children
    )


# What an instruction acts on when it is a thing at hand, not a kind of thing
AT_HAND = frozenset({"it", "that", "this", "them", "these", "those"})
FOR_ME = frozenset({"me", "us"})  # "write *me* a ...": who it is for, not what
QUOTES = frozenset({"'", '"', "‘", "“"})

DOING = frozenset({"dobj", "prep", "oprd", "ccomp", "xcomp", "dative", "acomp"})

ASKING = frozenset({"can", "could", "would", "will"})

WANTING = frozenset({"prefer", "want", "like", "need"})

FEELING = frozenset({"love", "appreciate", "enjoy", "miss", "adore", "hate", "admire"})

OTHERS = frozenset({"he", "she", "they", "his", "her", "their"})  # someone else's
