"""A statement's mood (``ingest/slots/analysis.py``): asserted, requested, or only asked,
supposed, planned, reported, recalled, negated or narrated; and whether it says it corrects."""

from __future__ import annotations

from typing import Any

from core.statements import (
    ASSERT,
    CONDITIONAL,
    EVENT,
    HISTORY,
    MODAL,
    NEGATION,
    PLAN,
    QUESTION,
    REPORTED,
    REQUEST,
    Value,
)
from ingest.slots.grammar import (
    CHANGING,
    CHECKING,
    CONDITIONS,
    COPULAS,
    FORMER,
    FUTURE,
    HEDGED_MODALS,
    PAST_MARKERS,
    PLANNING,
    REPORTING,
    Token,
    goes_up,
)


def says_correction(tokens: list[Token]) -> bool:
    """ "make it 4", "make that 3 tickets", "change it to ...", "it should be ...", "I mean
    ...": a correction of what was just said, whatever it was."""
    kept = [t for t in tokens if not t.is_punct]
    words = [t.lower_ for t in kept]
    opened = next((i for i, t in enumerate(kept) if not _opener(t)), 0)  # "ok, how about ..."
    # a "no" among the words that open it, not one of dismay ("oh no, ..."): "ah no, it's
    # Larch Avenue"
    denies = any(
        w in ("no", "nope") and (i == 0 or words[i - 1] != "oh")
        for i, w in enumerate(words[: max(opened, 1)])
    )
    if words[opened : opened + 2] in (["how", "about"], ["what", "about"]) or denies:
        return True  # "no, with Steven", "how about the 9th?": another value, in its place
    for i, w in enumerate(words[:-1]):
        if w in ("make", "change", "meant") and words[i + 1] in ("it", "that", "this"):
            return True
        if w == "meant" and words[i + 1 : i + 3] in (["to", "say"], ["to", "write"]):
            return True  # "I meant to say the 14th"
        if w == "should" and words[i + 1] in ("be", "read", "say") and not _reported(kept[i]):
            return True  # (not what someone else argues: "Derek says standup should be at 11")
    return False


# verbs an "if" clause is the object of, as "whether": "see if she has an opening at 2",
# "check if they have a table for 4" ask to find out, suppose nothing ("let me know if"
# and "tell me if" wait for something to happen: conditions)
_WHETHER = frozenset({"see", "check", "find", "verify", "confirm", "look"})


def _condition(t: Token) -> bool:
    """Whether ``t`` marks a condition: "if", "unless", ... leading a clause, but not the
    clause a verb of finding out takes as its object ("I'd like to see if there are seats
    on the 9th", however the parse attaches it)."""
    if t.dep_ != "mark" or t.lower_ not in CONDITIONS:
        return False
    clause = t.head
    asks = clause.dep_ in ("ccomp", "advcl") and clause.head.lemma_.lower() in _WHETHER
    return not asks


def _hedged(t: Token) -> bool:
    """Whether the verb ``t`` is said under has "might", "may" or "could" ("thinking I might
    open a Starling account at some point next year")."""
    verb = next((a for a in t.ancestors if a.pos_ in ("VERB", "AUX")), None)
    return verb is not None and any(  # a hedge said before the value: what it scopes
        c.dep_ == "aux" and c.lower_ in ("might", "may", "could") and c.i < t.i
        for c in verb.children
    )


# verbs whose passive says a view held ("my cofounder is convinced we should charge $49")
_HELD = frozenset({"convince", "persuade"})


def _reported(t: Token) -> bool:
    """Whether ``t`` is said inside what a verb of saying or thinking reports of someone else
    ("Derek keeps arguing standup should be at 11:00", "my cofounder is convinced we should
    be charging $49")."""
    clause = t.head
    for _ in range(4):  # up the clauses above it
        head = clause.head
        if head is clause:
            break
        verbs = [head, *(c for c in head.children if c.dep_ == "xcomp")]
        near = [head, *(a for a in head.children if a.dep_ in ("aux", "auxpass"))]
        subj = next(
            (c for n in near for c in n.children if c.dep_ in ("nsubj", "nsubjpass")), None
        )  # ("my cofounder is convinced": the parse may hang the subject on "is")
        if (
            clause.dep_ in ("ccomp", "conj", "xcomp")
            and any(v.lemma_.lower() in REPORTING | _HELD for v in verbs)
            and subj is not None
            and subj.lower_ not in ("i", "we")
        ):
            return True
        clause = head
    return False


def _condition_holds(doc: Any, tokens: list[Token], values: list[Value]) -> bool:
    """Whether a condition ("if", "unless", "in case", ...) holds the sentence's values. One
    that leads the sentence supposes them ("In case the deadline moves to Friday, book the room
    for Thursday"; "if we ever move to Paddle, ..."). One said after a value tells why or when
    the rest applies, not whether the value is so: "Biscuit's vet is Dr. Haller, in case you
    need their hours", "our head of sales is Renata, if I mention pipeline reviews it's with
    her", "i go to PureFit on Mill Road, usually tues, sometimes a sat morning if im feeling
    virtuous". "In case" after any value; another condition after a value set off from it by a
    break (a comma, a dash): "I'll come at 3 if it rains" stays supposed."""
    first = tokens[0].i
    for t in tokens:
        if t.lower_ == "case" and t.i > first and doc[t.i - 1].lower_ == "in":
            marker, needs_break = doc[t.i - 1], False
        elif _condition(t):
            marker, needs_break = t, True
        else:
            continue
        if marker.i == first:
            return True
        at = marker.idx  # where the condition starts, in the text
        breaks = [b.idx for b in tokens if b.i < marker.i and b.text in _BREAKS]
        told = [v for v in values if v.start < at]
        # nothing told before it, or (but for "in case") nothing set off from it
        return not told or needs_break and not any(v.start < b for v in told for b in breaks)
    return True


def mood_of(
    doc: Any,
    tokens: list[Token],
    root: Token | None,
    text: str,
    values: list[Value],
    negated: list[Value],
) -> str:
    """What the sentence does with its values (see the module docstring)."""
    lowered = [t.lower_ for t in tokens]
    words = set(lowered)
    if root is None:
        return ASSERT
    clause = _values_clause(root, values)
    aside = clause is not root  # the reporter is an aside: "X moved it to Monday, she says"
    root = clause
    subj = next((c for c in root.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    first_person = subj is not None and subj.lower_ in ("i", "we")
    lemma = root.lemma_.lower()
    asking = text.rstrip().endswith("?") or _inverted(tokens, subj)
    if _noting(root, subj):
        return ASSERT  # "can u remember my dentist appt, thursday at 14:30": told, to be kept
    if not asking and tokens[0].tag_ == "MD" and asks_to_do(root, subj):
        return REQUEST  # "Can you help me find a therapist in Santa Clara."
    if "what if" in text.lower():
        return CONDITIONAL  # "what if we went to 30k?": supposed, not asked
    if asking:
        # after an opener ("actually, how about Saturday?", "ok what about the 9th?")
        opened = next((i for i, t in enumerate(tokens) if not _opener(t)), 0)
        if lowered[opened : opened + 2] in (["how", "about"], ["what", "about"]) and values:
            return REQUEST  # "how about the 9th?": a value proposed in place of another
        return REQUEST if asks_to_do(root, subj) else QUESTION
    conditioned = (
        words & CONDITIONS and any(_condition(t) for t in tokens)
    ) or "in case" in text.lower()
    supposing = any(  # "we'd switch to Paddle, if Stripe raised fees": only supposed
        c.dep_ == "aux" and c.tag_ == "MD" and c.lower_ in SUPPOSING for c in root.children
    )
    if (
        "what if" in text.lower()
        or conditioned
        and (supposing or _condition_holds(doc, tokens, values))
    ):
        return CONDITIONAL
    reported = [c for c in root.children if c.dep_ in ("ccomp", "xcomp")]
    if lemma in _HELD and any(c.dep_ == "auxpass" for c in root.children):
        lemma = "believe"  # "my cofounder is convinced we should charge $49": a view
    if lemma not in REPORTING:  # "my brother keeps insisting Vanguard is better": the verb
        for c in root.children:  # that reports is the one the root goes on doing
            said = [g for g in c.children if g.dep_ == "ccomp"]
            if c.dep_ == "xcomp" and c.lemma_.lower() in REPORTING and not said:
                # what it reports, however the parse hung it: "Derek keeps arguing standup
                # should be at 11:00" (a clause of the root's, with a modal of its own)
                said = [g for g in root.children if g.dep_ == "conj" and g.i > c.i
                        and any(a.tag_ == "MD" for a in g.children)]  # fmt: skip
            if c.dep_ == "xcomp" and c.lemma_.lower() in REPORTING and said:
                lemma, reported = c.lemma_.lower(), said
                break
    within = {t.i for c in reported for t in c.subtree}
    # the values said inside what is reported (a comma splice, "schedule posts for 7am now, our
    # analytics say earlier does better", reports nothing of its values)
    # a reporting verb said not to happen reports nothing ("3 bullets tops please, i dont read
    # past that anyway")
    denied = any(c.dep_ == "neg" for c in root.children) and lemma == root.lemma_.lower()
    if (
        lemma in REPORTING
        and reported
        and not denied
        and (not values or any(v.first in within for v in values))
    ):
        if lemma in ("want", "hope", "expect") and first_person and lemma == "want":
            return REQUEST  # "I want to book a table for 2"
        if not first_person or lemma in ("hear", "read", "gather"):
            return REPORTED  # someone's view; "I heard the office is in Leeds": hearsay
        if lemma in ("hope", "worry", "doubt", "suggest"):
            return PLAN
    if not aside and ("according" in words or "says" in words and not first_person):
        return REPORTED
    modals = [c.lower_ for c in root.children if c.dep_ == "aux" and c.tag_ == "MD"]
    if not modals and values and all(_hedged(doc[v.first]) for v in values):
        return MODAL  # "thinking I might open a Starling account next year": the values' verb
    if any(m in HEDGED_MODALS for m in modals):
        if (
            lemma in ("like", "love", "prefer", "need", "want")
            and any(m in ("would", "'d") for m in modals)
            and (lemma in ("like", "love", "prefer") or first_person)
        ):
            return REQUEST  # "I'd like a table for 4", "I would need 2 rooms"
        return MODAL
    if words & {"maybe", "perhaps", "possibly", "probably", "hopefully"}:
        return MODAL
    if lemma == "mean" and any(
        c.dep_ == "xcomp" and c.lemma_.lower() in ("say", "write", "type", "put")
        for c in root.children
    ):
        return ASSERT  # "no, I meant to say the 14th": what is so, said again
    if lemma in PLANNING and any(c.dep_ == "xcomp" for c in root.children):
        return REQUEST if lemma in ("want", "need") and first_person else PLAN
    if "going" in words and "to" in words and root.tag_ == "VB" or "gonna" in words:
        return PLAN
    future = any(m in ("will", "'ll", "wo") for m in modals)
    if future and (lemma in CHANGING or words & FUTURE):
        return PLAN
    if words & {"used"} and any(t.lower_ == "used" and t.nbor(1).lower_ == "to"
                                for t in tokens[:-1]):  # fmt: skip
        return HISTORY
    past = root.tag_ in ("VBD", "VBN") and not any(
        c.dep_ in ("aux", "auxpass") and c.tag_ in ("VBZ", "VBP") for c in root.children
    )
    if past and lemma not in CHANGING and not goes_up(root):
        back_in = any(t.lower_ == "back" and t.nbor(1).lower_ in ("in", "then", "when")
                      for t in tokens[:-1])  # fmt: skip
        if back_in or words & PAST_MARKERS or any(v.kind == "date" and v.norm[:2] in ("19", "20")
                                        for v in values):  # fmt: skip
            return HISTORY
        # said of a place or a time that is over: "at my *old* company the lead designer was
        # Marco", "in my *previous* flat the rent was £950"
        if any(t.dep_ == "amod" and t.lower_ in FORMER and t.head.dep_ == "pobj" for t in tokens):
            return HISTORY
        # "(I) noted the database is now X": what was done is to take a present fact down
        now_said = any(
            c.dep_ == "ccomp" and c.tag_ in ("VBZ", "VBP") and c.lemma_.lower() in COPULAS
            for c in root.children
        )
        if lemma not in COPULAS and lemma not in ("mean",) and not now_said:
            return EVENT  # "we went to the beach": it happened, it replaces nothing
    negative = any(c.dep_ == "neg" for c in root.children) or "longer" in words
    if negative and not values:
        return NEGATION
    if root.tag_ == "VB" and subj is None and root.dep_ == "ROOT":
        return REQUEST  # an imperative: "make it 7:30", "book the 3 pm slot"
    if first_person and lemma in ("need", "want", "like", "prefer", "look"):
        return REQUEST
    return ASSERT


_AUXILIARIES = frozenset(
    ("is", "are", "does", "do", "did", "was", "were", "has", "have", "can", "could", "would",
     "will", "should", "shall", "may")
)  # fmt: skip


def _inverted(tokens: list[Token], subj: Token | None) -> bool:
    """A question however it is punctuated: an auxiliary before its subject ("Is it still on
    Hetzner.", "Can you tell me what the weather is like in Nairobi."), or a question word
    right before one ("What is your opinion on Larkspur on March 3rd."; not "What I need is
    a table for 4")."""
    opened = next((i for i, t in enumerate(tokens) if not _opener(t)), 0)
    words = [t.lower_ for t in tokens[opened:]]
    if not words:
        return False
    if words[0] in _AUXILIARIES:
        return subj is not None and subj.i > tokens[opened].i
    wh = tokens[opened].tag_ in ("WP", "WRB", "WDT") and words[0] != "that"
    return wh and len(words) > 1 and words[1] in _AUXILIARIES | {"'s"}


_NOTING = frozenset({"remember", "note", "save", "record", "jot", "log", "store", "memorize"})


def _noting(root: Token, subj: Token | None) -> bool:
    """ "Can you remember ...", "could u note ...": the assistant asked to keep what follows,
    which the speaker tells ("do you remember where I parked?" asks)."""
    you = subj is not None and subj.lower_ in ("you", "u")
    modal = any(
        c.dep_ == "aux" and c.lower_ in ("can", "could", "would", "will", "pls")
        for c in root.children
    )
    return you and modal and root.lemma_.lower() in _NOTING


def _opener(t: Token) -> bool:
    """A word that opens a turn before what it says: "actually", "ok", "no", a comma."""
    return t.is_punct or t.pos_ == "INTJ" or t.lower_ in ("actually", "ok", "okay", "so", "hmm")


def asks_to_do(root: Token, subj: Token | None) -> bool:
    """ "Could you book a table for 3 at 18:45?": a request, not a question about a value."""
    you = subj is not None and subj.lower_ in ("you", "u")
    modal = any(c.dep_ == "aux" and c.lower_ in ("can", "could", "would", "will") for c in
                root.children)  # fmt: skip
    lemma = root.lemma_.lower()
    # "can you find me a table in Los Gatos?", "could you look for a flight?" ask for a thing;
    # "can you find out if ..." and "can you check the booking?" ask what is so
    getting = (
        lemma
        == "find"  # a thing found for someone: "find me a psychologist" (a noun, however parsed)
        and any(c.dep_ in ("dobj", "dative") or c.pos_ in ("NOUN", "PROPN") for c in root.children)
        or lemma == "look"
        and any(c.dep_ == "prep" and c.lower_ == "for" for c in root.children)
    )
    return you and modal and (lemma not in CHECKING or getting)


# the modals of what would be so under a condition
SUPPOSING = frozenset({"would", "'d", "might", "could", "may"})
# reporting verbs that give a view or hearsay wherever they stand ("X is so, I heard")
_VIEWS = frozenset({"hear", "read", "gather", "think", "believe", "reckon", "feel", "guess"})
# reporting verbs that report the clause before them unless they report something of their own
# ("X moved it to Monday, she says it sets up her week")
_SPEECH = frozenset({"say", "tell", "claim", "mention", "suggest", "argue", "reckon", "add"})
_BREAKS = (",", ";", "—", "-", ":")
_JOINS = frozenset({"and", "so", "but"})  # words that join a clause of its own


def _values_clause(root: Token, values: list[Value]) -> Token:
    """The clause whose mood is the sentence's: a clause of its own (its own subject), set
    off from the root by a comma, that holds most values, is what the speaker states of them
    ("grandma Rosa is watching the kids from this month, she insisted"; "earlier I told you
    the wrong time, school lets out at 2:55"); else the root. Not what a view or hearsay
    reports ("the office is in Leeds, I heard"), nor what someone is said to have said ("the
    launch is on May 3, Tom says")."""
    lemma = root.lemma_.lower()
    if not values or lemma in _VIEWS:
        return root
    if lemma in _SPEECH and not any(
        c.i > root.i and c.dep_ in ("ccomp", "xcomp", "dobj") for c in root.children
    ):
        return root  # "the launch is on May 3, Tom says": Tom's word, not the speaker's
    for c in root.children:
        if c.dep_ not in ("ccomp", "conj", "parataxis"):
            continue
        if not any(g.dep_ in ("nsubj", "nsubjpass", "expl") for g in c.children):
            continue
        span = [t.i for t in c.subtree if not t.is_punct]
        inside = [v for v in values if span and min(span) <= v.first <= max(span)]
        if len(inside) * 2 <= len(values):  # most of them ("... her week" is no value of it)
            continue
        doc = root.doc
        before = c.i < root.i and max(span) + 1 < root.i and doc[max(span) + 1].text in _BREAKS
        after = c.i > root.i and min(span) > 0 and doc[min(span) - 1].text in _BREAKS
        # "the invite came and it's Sept 27th": a clause of its own after "and", "so", "but"
        after = after or (
            c.dep_ == "conj" and min(span) > 0 and doc[min(span) - 1].lower_ in _JOINS
        )
        if before or after:
            return c
    return root
