"""The parts of a clause, for the statement reader (``statements/__init__.py``): who the subject
is, what its value is, where a location or a change points, whether a verb is negated or says
"now". Pure functions over spaCy tokens."""

from __future__ import annotations

from typing import Any

from ingest.extract.statements.words import (
    ATTRIBUTE_NOUNS,
    CHANGE_VERBS,
    JUDGEMENTS,
    LOCATION_PREPS,
    PERSONAL,
    RETRACTING,
    VAGUE,
)

Token = Any  # spacy.tokens.Token; spaCy is untyped here


def subject_kind(subj: Token) -> str | None:
    """ "name" for a named entity (or a personal pronoun the tracker resolves), "topic" for a
    noun phrase worth its own concept, None for anything else."""
    low = subj.lower_
    if is_name(subj):
        return "name"
    if low in PERSONAL:
        return "name" if low != "it" else None
    if subj.pos_ not in {"NOUN", "PROPN"}:
        return None
    named = any(c.dep_ == "compound" for c in subj.children)  # "the Paris team", "sales team"
    if (low in VAGUE or subj.lemma_.lower() in VAGUE) and not named:
        return None
    owner = next((c for c in subj.children if c.dep_ == "poss"), None)
    if owner is not None and owner.lower_ not in {"our", "the"} and not owned_topic(owner):
        return None  # "my dog", "Peter's car": about someone, not a topic of the tenant
    vague = {"a", "an", "some", "any", "every"}
    if any(c.dep_ == "det" and c.lower_ in vague for c in subj.children):
        return None  # "a friend is ...": no particular thing
    return "topic"


def owned_topic(owner: Token) -> bool:
    """An owner that keeps its noun a topic of the tenant: "the website's bounce rate", "our
    agency's main client" (not "my dog's name", not a name's: see ``named_owner``)."""
    if owner.pos_ != "NOUN" or owner.lemma_.lower() in VAGUE - {"company", "team", "business"}:
        return False
    return any(c.dep_ in {"det", "poss"} and c.lower_ in {"the", "our"} for c in owner.children)


def named_owner(subj: Token) -> Token | None:
    """The name whose attribute the subject is: "Globex's CTO", "Acme's headquarters"."""
    owner = next((c for c in subj.children if c.dep_ == "poss"), None)
    if owner is None or owner.pos_ == "PRON" or not is_name(owner):
        return None
    return owner


def pobj_of(prep: Token | None) -> Token | None:
    """The object of a preposition ("Hetzner" of "on" in "is on Hetzner"), or None."""
    if prep is None:
        return None
    return next((c for c in prep.children if c.dep_ == "pobj"), None)


def conjuncts(tok: Token) -> list[Token]:
    """The words coordinated with ``tok`` ("the wiki and the bug tracker"), in order."""
    out: list[Token] = []
    for c in tok.children:
        if c.dep_ == "conj" and c.pos_ in {"NOUN", "PROPN"}:
            out += [c, *conjuncts(c)]
    return out


def appositive(subj: Token) -> Token | None:
    """A role said beside a name: "Ivy Chen, our CFO, ...", "Ahmed, the new intern, ..."."""
    for c in subj.children:
        if c.dep_ != "appos" or c.ent_type_ == "PERSON" or c.pos_ not in {"NOUN", "PROPN"}:
            continue
        if any(g.dep_ in {"det", "poss"} and g.lower_ in {"the", "our"} for g in c.children):
            return c
    return None


def named_apposition(subj: Token) -> Token | None:
    """The person a topic subject names beside it: "our sales lead, Owen Price, ..." (the
    sentence is about Owen Price; "sales lead" is his role)."""
    if is_name(subj) or subject_kind(subj) != "topic":
        return None
    for c in subj.children:
        if c.dep_ == "appos" and c.ent_type_ == "PERSON" and is_name(c):
            return c
    return None


# Adjectives that date a value rather than name the topic: "the new deadline" is the
# deadline, said as a change; "the old address" is a value no longer current.
TIMELY = frozenset({"new", "old", "current", "previous", "former", "latest"})
PAST = frozenset({"old", "previous", "former"})


def dated_as(subj: Token) -> str | None:
    """ "new" or "old" said of the subject ("the new deadline", "our old office")."""
    for c in subj.children:
        if c.dep_ == "amod" and c.lower_ in TIMELY:
            return "old" if c.lower_ in PAST else "new"
    return None


def attribute_noun(subj: Token) -> bool:
    """A subject that names an attribute whose values are adjectives ("the brand color is
    teal", "the tone is formal")."""
    return subj.lemma_.lower() in ATTRIBUTE_NOUNS


def speakers(attr: Token) -> bool:
    """A value that relates the subject to the speaker or the listener ("one of my
    favorites", "therapy for me", "a friend of yours"): a feeling, not a value of the topic."""
    return any(t.lower_ in _SPEAKERS for t in attr.subtree if t.i != attr.i)


_SPEAKERS = frozenset({"me", "my", "mine", "you", "your", "yours", "myself", "yourself"})


def judged(attr: Token) -> bool:
    return any(c.dep_ == "amod" and c.lemma_.lower() in JUDGEMENTS for c in attr.children)


def judged_value(attr: Token) -> bool:
    """An adjective that judges rather than states: "amazing", "so vivid"."""
    degree = any(c.dep_ == "advmod" and c.lower_ in {"so", "really", "very", "such", "too"}
                 for c in attr.children)  # fmt: skip
    if degree:  # "so motivating" (read as a verb too)
        return True
    return attr.pos_ == "ADJ" and attr.lemma_.lower() in JUDGEMENTS


def subject_tokens(subj: Token) -> list[Token]:
    """The words naming the subject: a name with its compounds; a topic with its modifiers and
    the phrases that narrow it ("the DNS for the main site", "our account manager at
    Vodafone")."""
    if is_name(subj):
        return [*compounds(subj), subj]
    mods = [
        m
        for c in subj.lefts
        if c.dep_ in {"compound", "amod"} and c.pos_ != "PRON" and c.lower_ not in TIMELY
        for m in [*compounds(c), c]  # "page load time": "page" modifies "load"
    ]
    owner = next((c for c in subj.lefts if c.dep_ == "poss" and owned_topic(c)), None)
    if owner is not None and not any(c.lower_ == "our" for c in owner.children):
        # "the client's deadline": the owner narrows the topic; "our agency's": ours anyway
        mods = [*compounds(owner), owner, *[c for c in owner.children if c.dep_ == "case"], *mods]
    out = [*mods, subj]
    for prep in subj.rights:
        pobj = pobj_of(prep)
        if prep.dep_ == "prep" and prep.lower_ in {"of", "for", "at", "on"} and pobj is not None:
            out += [prep, *[c for c in pobj.lefts if c.dep_ in {"compound", "amod"}], pobj]
    return out


def is_name(subj: Token) -> bool:
    """A name, not a topic: a proper noun without "the" ("the DNS" is a topic), or a person
    or organisation the model recognised."""
    # "the" on the word or on its modifiers ("the cache TTL": "the" hangs on "cache")
    the = any(t.dep_ == "det" and t.lower_ == "the" for t in subj.lefts) or any(
        g.dep_ == "det" and g.lower_ == "the" for c in compounds(subj) for g in c.children
    )
    if subj.ent_type_ == "PERSON" or (subj.ent_type_ in {"ORG", "GPE"} and not the):
        return True
    return subj.pos_ == "PROPN" and not the


def misread_copula(verb: Token) -> bool:
    """ "X is develop." parsed as a progressive: "is" as the verb's auxiliary, no object or
    preposition, nothing after the verb but an adverb or punctuation."""
    if verb.pos_ != "VERB" or not any(c.dep_ == "aux" and c.lemma_ == "be" for c in verb.children):
        return False
    if any(c.dep_ not in {"nsubj", "aux", "advmod", "punct"} for c in verb.children):
        return False
    after = [t for t in verb.doc[verb.i + 1 : verb.sent.end] if t.dep_ != "punct"]
    return all(t.dep_ == "advmod" and t.head.i == verb.i for t in after)


def compounds(tok: Token) -> list[Token]:
    return [c for c in tok.lefts if c.dep_ in {"compound", "flat"}]


def subject_text(subj: Token) -> str:
    """The subject as said; a topic in lower case ("Blog traffic" → "blog traffic")."""
    text = " ".join(t.text for t in subject_tokens(subj)).replace(" 's", "'s")
    return text if is_name(subj) or subj.lower_ in PERSONAL else text.lower()


def value(tok: Token) -> str:
    """The value's words: the token's subtree without trailing time words or punctuation."""
    words = [t for t in tok.subtree if t.dep_ != "poss"]
    words = [t for t in words if t.lower_ not in {"now", "anymore"}]
    upto = [i for i, t in enumerate(words) if t.dep_ == "quantmod" and t.lower_ == "to"]
    if upto:
        words = words[upto[-1] + 1 :]  # "from 200 to 350 dollars" → "350 dollars"
    cut = next((i for i, t in enumerate(words) if _replaced_from(t)), len(words))
    words = words[:cut]  # "Martin instead of Dana", "8 euros, not 5": the old value goes
    while words and (words[0].dep_ == "det" or _direction(words[0])):
        words = words[1:]  # "the", and "up to" of "went up to 15 dollars"
    while words and words[-1].dep_ in {"cc", "punct"}:
        words = words[:-1]  # "Wednesdays and" of "moves to Wednesdays and the newsletter ..."
    if tok.dep_ == "pobj" and tok.head.lower_ in {"back"}:
        words = [t for t in words if t.i != tok.head.i]
    text = "".join(t.text_with_ws for t in words).strip()
    return text.rstrip(".,!;:") or tok.text


def _replaced_from(tok: Token) -> bool:
    after = tok.doc[tok.i + 1].lower_ if tok.i + 1 < len(tok.doc) else ""
    if tok.lower_ == "instead" or (tok.lower_ == "rather" and after == "than"):
        return True
    return bool(tok.lower_ == "not" and tok.i > 0 and tok.doc[tok.i - 1].text == ",")


def _direction(tok: Token) -> bool:
    return tok.dep_ == "quantmod" and tok.lower_ in {"up", "down", "to"}


def role(attr: Token) -> str:
    """The role's words: "head of procurement", "senior writer" → "writer"."""
    of = next((c for c in attr.children if c.dep_ == "prep" and c.lower_ == "of"), None)
    if of is not None and attr.lemma_.lower() in {"head", "director", "vp", "manager", "chief"}:
        pobj = pobj_of(of)
        if pobj is not None:
            return f"{str(attr.text)} of {' '.join(t.text for t in [*compounds(pobj), pobj])}"
    words = [c.lower_ for c in attr.lefts if c.dep_ == "compound" and c.pos_ == "NOUN"]
    return " ".join([*words, str(attr.lemma_).lower()])


def role_noun(attr: Token) -> bool:
    """A noun that can be a role: not a relation to the speaker ("my rock", "your biggest
    fan"), an opinion ("an amazing learner") or a vague word ("the reason", "part"); said
    as a role is ("a writer", "our designer", "head of sales", "CTO"), not bare ("he's real
    chill": an adjective misread)."""
    if any(c.dep_ == "poss" and c.lower_ in {"my", "your"} for c in attr.children):
        return False
    said = acronym(attr) or any(
        c.dep_ in {"det", "poss", "compound", "prep"} for c in attr.children
    )
    return said and not judged(attr) and attr.lemma_.lower() not in VAGUE


def acronym(tok: Token) -> bool:
    """A role said as letters: "CTO", "COO", "VP"."""
    return tok.text.isupper() and 2 <= len(tok.text) <= 4


def employer(head: Token) -> str | None:
    """The organisation after "at"/"for"/"with" ("head of procurement at Dunmore Foods"), or
    after "of" when the role is said as letters ("the CTO of Brightline")."""
    preps = {"at", "for", "with", "of"} if acronym(head) else {"at", "for", "with"}
    for prep in head.children:
        if prep.dep_ == "prep" and prep.lower_ in preps:
            pobj = pobj_of(prep)
            org = proper(pobj) if pobj is not None else None
            if org is not None:
                return " ".join(t.text for t in [*compounds(org), org])
    return None


def proper(tok: Token) -> Token | None:
    """The proper noun a phrase names: itself, or its apposition ("our client Dunmore Foods")."""
    if tok.pos_ == "PROPN":
        return tok
    for c in tok.children:
        if c.dep_ == "appos" and c.pos_ == "PROPN":
            return c
    return None


def place(tok: Token) -> bool:
    return tok.ent_type_ in {"GPE", "LOC", "FAC"}


def location(verb: Token) -> Token | None:
    """The object of a location preposition of the verb ("is on Hetzner"); of several, the
    one that names a place or a service ("in the finance folder on Drive" → Drive)."""
    found = []
    # "is back on Webflow", "is still on Heroku": the preposition may hang on the adverb
    near = [*verb.children, *(g for c in verb.children if c.dep_ == "advmod" for g in c.children)]
    for prep in near:
        if prep.dep_ == "prep" and prep.lower_ in LOCATION_PREPS:
            pobj = pobj_of(prep)
            if pobj is None or pobj.pos_ not in {"PROPN", "NOUN"}:
                continue
            if any(c.dep_ == "det" and c.lower_ in {"a", "an"} for c in pobj.children):
                continue  # "on a diet", "in a meeting", "at a conference": a state, no place
            if any(c.dep_ == "poss" and c.lower_ in _SOMEONES for c in pobj.children):
                continue  # "the ball is in your court", "it's on my desk"
            found.append(pobj)
    named = [t for t in found if t.pos_ == "PROPN" and t.ent_type_ not in {"DATE", "TIME"}]
    return (named or found or [None])[0]


def to_value(verb: Token) -> Token | None:
    """The new value of a change: the object of "to" on the verb or on "back"/its object."""
    for prep in verb.subtree:
        if prep.dep_ == "prep" and prep.lower_ in {"to", "onto", "into"}:
            pobj = pobj_of(prep)
            if pobj is not None:
                return pobj
    return None


def bare_value(verb: Token) -> Token | None:
    """ "changed the default branch to main": the small model reads "to main" as an
    infinitive; a bare "verb" after "to", with nothing of its own, is the value."""
    for c in verb.subtree:
        if c.dep_ not in {"advcl", "ccomp", "xcomp"} or c.i < verb.i:
            continue
        if not any(g.dep_ == "aux" and g.lower_ == "to" for g in c.children):
            continue
        own = [g for g in c.children if g.dep_ not in {"aux", "nsubj", "punct"}]
        if not own or c.text[:1].isupper():  # "to Help Scout": a name read as a verb
            return c
    return None


def bare_text(tok: Token) -> str:
    words = [t for t in tok.subtree if t.dep_ not in {"aux", "nsubj", "punct"}]
    return "".join(t.text_with_ws for t in words).strip()


def numeric(tok: Token) -> bool:
    return tok.like_num or any(c.dep_ == "nummod" or c.like_num for c in tok.subtree)


def negated(verb: Token) -> bool:
    """ "is not", "no longer", "isn't"."""
    for c in verb.children:
        if c.dep_ == "neg":
            return True
        if c.lower_ == "longer" and any(g.lower_ == "no" for g in c.children):
            return True
    return False


def changing(verb: Token) -> bool:
    """A verb that sets a new value: "moved", "raised", "went up"."""
    lemma = verb.lemma_.lower()
    if lemma in CHANGE_VERBS or lemma in {"rise", "fall", "grow", "climb", "jump", "double"}:
        return True
    if lemma != "go":
        return False
    preps = {c.lower_ for c in verb.children if c.dep_ == "prep"}
    to = any(t.lower_ == "to" for t in verb.subtree)  # "to Render" may be misread as a verb
    return ("from" in preps and to) or any(t.lower_ in {"up", "down"} for t in verb.subtree)


def now(verb: Token) -> bool:
    """Said as a change: "is now", "from now on", "anymore", "again", "instead of", "going
    forward", "as of today", "has been on Attio since January"."""
    own = own_clause(verb)
    words = {t.lower_ for t in own}
    if words & {"now", "anymore", "longer", "again", "instead", "nowadays", "replacing"}:
        return True
    if words & {"actually"} or _retracting(verb):
        return True  # "actually, the venue is the Hilton", "scratch that, the call is at 4"
    for t in own:
        if t.lower_ == "not" and t.i > 0 and t.doc[t.i - 1].text == ",":
            return True  # "the venue is the Hilton, not the Marriott"
        if t.lower_ == "from" and t.head.i == verb.i and _dated_pobj(t):
            return True  # "the office will be in Leeds from March"
        if t.lower_ == "back" and t.dep_ == "advmod" and t.head.i == verb.i:
            return True  # "the landing page is back on Webflow"
        if t.lower_ == "days" and any(c.lower_ == "these" for c in t.children):
            return True  # "these days"
        if t.lower_ in {"effective", "starting"} and t.i < verb.i:
            return True  # "effective immediately, ...", "starting next month, ..."
        if t.lower_ == "new" and t.dep_ == "amod" and t.head.dep_ == "attr":
            return True  # "Paula is our new head of HR"
        if t.lower_ == "forward" and t.head.lemma_.lower() in {"go", "move"}:
            return True  # "going forward, ...", "moving forward, ..."
        if t.lower_ == "as" and t.i + 1 < len(t.doc) and t.doc[t.i + 1].lower_ == "of":
            return True  # "as of this week"
    return _since(verb)


def own_clause(verb: Token) -> list[Token]:
    """The verb's words without the clauses coordinated with it ("the limit was 100, but now
    it's 200": "now" is the second clause's)."""
    skip: set[int] = set()
    for c in verb.children:
        if c.dep_ in {"conj", "ccomp", "parataxis"}:
            skip |= {t.i for t in c.subtree}
    return [t for t in verb.subtree if t.i not in skip]


def _retracting(verb: Token) -> bool:
    head = verb.head
    return verb.dep_ == "ccomp" and head.lemma_.lower() in RETRACTING and head.i < verb.i


def _dated_pobj(prep: Token) -> bool:
    pobj = pobj_of(prep)
    return pobj is not None and pobj.ent_type_ in {"DATE", "TIME"}


_SOMEONES = frozenset({"my", "your", "his", "her", "their"})


def _since(verb: Token) -> bool:
    """ "has been on Attio since January": a perfect with "since" says when a state began."""
    auxes = {c.lower_ for c in verb.children if c.dep_ in {"aux", "auxpass"}}
    perfect = bool(auxes & {"has", "have", "'s", "'ve"}) or (
        verb.lemma_ == "be" and verb.tag_ == "VBN"
    )
    return perfect and any(c.dep_ == "prep" and c.lower_ == "since" for c in verb.children)
