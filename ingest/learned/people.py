"""The speaker's own name and role as core memory (``ingest/learned/recognise.py``): "I'm
Dana Whitfield, head of ops", "my name is Dana", "I run the design team", "I moved to CFO"."""

from __future__ import annotations

from typing import Any

from core.statements import (
    ASSERT,
    EVENT,
    REQUEST,
    Statement,
)
from ingest.extract.statements import parts
from ingest.extract.statements.words import CHANGE_VERBS, PROMOTING
from ingest.learned.common import (
    SELF,
    Learned,
    Token,
    has_aux,
    item_of,
    named_after,
    present,
    proper,
    subject_of,
)

# Verbs of a role held ("I run the design team"), and of a role taken ("I moved to CFO").
HOLDING = frozenset({"run", "lead", "head", "manage", "own", "direct", "chair"})

TAKING = CHANGE_VERBS | PROMOTING | frozenset({"become", "join", "step"})


def selves(doc: Any, s: Statement, verb: Token) -> list[Learned]:
    subj = subject_of(verb)
    lemma = verb.lemma_.lower()
    if subj is None:
        if my_name_is(verb) and s.mood == ASSERT:  # "My name's Oliver", read as a name
            return [item_of(doc, SELF, "self:name", s)]
        named = called_me(verb)  # "call me Dana"
        ok = named and s.mood in (ASSERT, REQUEST)
        return [item_of(doc, SELF, "self:name", s)] if ok else []
    mine = subj.lower_ == "i"
    owned = any(c.lower_ == "my" for c in subj.children)
    my_name = owned and subj.lemma_.lower() == "name"
    stated = lemma == "be" and s.mood == ASSERT and present(verb)
    if stated and (mine or my_name):
        return i_am(doc, s, verb, mine)
    if stated and owned and subj.lemma_.lower() in ROLE_WORDS:  # "my role is head of ..."
        attr = next((c for c in verb.children if c.dep_ in ("attr", "oprd")), None)
        kind_of = attr is not None and any(c.lower_ in ("a", "an") for c in attr.children)
        if attr is not None and attr.pos_ in ("NOUN", "PROPN") and not kind_of:
            return [item_of(doc, SELF, "self:role", s)]  # not "my job is a nightmare"
    if not mine:
        return []
    spliced = next(  # "I'm Priya, I look after customer success": the first clause
        (c for c in verb.children if c.dep_ in ("ccomp", "parataxis") and c.i < verb.i
         and c.lemma_ == "be" and present(c) and is_i(subject_of(c))),
        None,
    )  # fmt: skip
    if spliced is not None and s.mood in (ASSERT, REQUEST):
        return i_am(doc, s, spliced, True)
    if s.mood == ASSERT and present(verb) and not has_aux(verb) and holds(verb, lemma):
        return [item_of(doc, SELF, "self:role", s)]
    if s.mood in (ASSERT, EVENT) and takes_role(verb, lemma):
        return [item_of(doc, SELF, "self:role", s)]
    return []


ROLE_WORDS = frozenset({"role", "job", "title", "position"})


def i_am(doc: Any, s: Statement, be: Token, mine: bool) -> list[Learned]:
    """ "I'm Dana Whitfield", "my name is Dana", "I'm the CFO"."""
    attr = next((c for c in be.children if c.dep_ in ("attr", "oprd")), None)
    if attr is None:
        return []
    if proper(attr) and attr.ent_type_ not in NOT_PEOPLE and not parts.acronym(attr):
        return name_and_role(doc, s, attr)
    if mine and role_noun(attr):
        return [item_of(doc, SELF, "self:role", s)]
    return []


def is_i(tok: Token | None) -> bool:
    return tok is not None and tok.lower_ == "i"


def my_name_is(root: Token) -> bool:
    """ "My name's Oliver Grant", which the small model reads as a possessive."""
    return root.pos_ == "PROPN" and any(
        c.dep_ == "poss"
        and c.lemma_.lower() == "name"
        and any(g.lower_ == "my" for g in c.children)
        for c in root.children
    )


PARTICULAR = frozenset({"the", "this", "that", "these", "those", "our", "my", "their", "its"})

NOT_PEOPLE = frozenset({"GPE", "LOC", "FAC", "DATE", "TIME", "NORP", "MONEY", "EVENT"})


def name_and_role(doc: Any, s: Statement, attr: Token) -> list[Learned]:
    """ "I'm Dana Whitfield, head of ops at Brightline": the name, and the role said beside
    it as a line of its own ("I'm head of ops at Brightline"), so a change of role later
    replaces the role and leaves the name."""
    appos = next((c for c in attr.children if c.dep_ == "appos" and role_noun(c)), None)
    if appos is None:
        return [item_of(doc, SELF, "self:name", s)]
    sub = sorted(appos.subtree, key=lambda t: t.i)
    name_end = max(t.idx + len(t.text) for t in attr.subtree if t.i < sub[0].i)
    a, b = sub[0].idx, sub[-1].idx + len(sub[-1].text)
    lead = doc.text[s.start : attr.left_edge.idx]  # "I'm "
    named = doc.text[s.start : name_end].rstrip(" ,;") + "."
    role = lead + doc.text[a:b].rstrip(" ,;.") + "."
    return [
        item_of(doc, SELF, "self:name", s, named, (s.start, name_end)),
        item_of(doc, SELF, "self:role", s, role, (a, b)),
    ]


def role_noun(attr: Token) -> bool:
    """A role said of oneself: a title in letters ("CFO"), a title of something ("head of
    ops"), or a noun said with its article ("a nurse", "the CFO"); not a feeling or a liking
    ("a mix of excited and scared", "a big fan"), nor what one is not ("no writer")."""
    if attr.pos_ not in ("NOUN", "PROPN") or parts.numeric(attr):
        return False
    if parts.acronym(attr):
        return True
    lemma = attr.lemma_.lower()
    if attr.pos_ == "PROPN" or lemma in NOT_ROLES or parts.judged(attr):
        return False
    det = {c.lower_ for c in attr.children if c.dep_ in ("det", "poss")}
    of = any(c.dep_ == "prep" and c.lower_ == "of" for c in attr.children)
    if lemma in TITLES and of:
        return True  # "head of ops"
    return bool(det & {"a", "an", "the", "our"}) and not of


# Heads of a title said with "of" ("head of ops", "director of sales").
TITLES = frozenset({"head", "director", "vp", "manager", "chief", "lead", "president"})

# Nouns said after "I'm a" that are no role ("a fan of", "a big believer", "a mess").
NOT_ROLES = frozenset(
    {"fan", "lot", "bit", "kind", "sort", "type", "person", "one", "part", "mix", "mess",
     "believer", "sucker", "wreck", "fool", "natural", "pro", "step", "way", "game"}
)  # fmt: skip


def holds(verb: Token, lemma: str) -> bool:
    """ "I work as a designer", "I work at Brightline", "I run the design team"."""
    if lemma == "work":
        role = named_after(verb, ("as",))
        org = named_after(verb, ("at", "for"))
        return role is not None or org is not None and org.pos_ == "PROPN"
    if lemma not in HOLDING:
        return False
    obj = next((c for c in verb.children if c.dep_ == "dobj"), None)
    if obj is None or obj.pos_ not in ("NOUN", "PROPN"):
        return False
    org = named_after(verb, ("at", "for"))
    return obj.tag_ != "NNS" or org is not None  # "I run marathons" holds no role


def takes_role(verb: Token, lemma: str) -> bool:
    """ "I moved to CFO", "I was promoted to head of sales", "I became CTO", "I joined
    Brightline as COO"."""
    if lemma not in TAKING:
        return False
    if lemma == "become":
        attr = next((c for c in verb.children if c.dep_ in ("attr", "oprd")), None)
        return attr is not None and role_noun(attr)
    new = named_after(verb, ("to", "as"))
    if new is None:  # "promoted to head of sales", read as "to head" (a verb)
        new = next((c for c in verb.children if c.dep_ == "xcomp" and is_title(c)), None)
        return new is not None
    return not parts.place(new) and role_noun(new)


def is_title(tok: Token) -> bool:
    return tok.lower_ in TITLES and any(c.dep_ == "prep" and c.lower_ == "of" for c in tok.children)


def called_me(verb: Token) -> bool:
    if verb.lemma_.lower() != "call" or verb.tag_ != "VB":
        return False
    me = any(c.dep_ == "dobj" and c.lower_ == "me" for c in verb.children)
    name = next((c for c in verb.children if c.dep_ in ("oprd", "xcomp", "attr", "npadvmod")), None)
    return me and name is not None and name.pos_ == "PROPN"
