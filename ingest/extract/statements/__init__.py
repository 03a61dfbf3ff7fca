"""Statements over spaCy's dependency parse: facts about names and topics, changes of state,
quantities and preferences in every mood, read from the grammar rather than from phrasings.

The rules in ``ingest/extract/rules.py`` match whole sentences of known shapes; this extractor reads
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

from ingest.extract import rules
from ingest.extract.rules import Extracted
from ingest.extract.sentences import Sentence, is_pleasantry, split_sentences
from ingest.extract.statements import changes, copular, facts, parts, prefs
from ingest.extract.statements.words import (
    DECIDING,
    HEADINGS,
    HIRING,
    LEAVING,
    LOCATING,
    MEASURING,
    NAMING,
    PLACING,
    PROMOTING,
    REPORTING,
    SCHEDULING,
    SUBJECTS,
    TAKING_OVER,
)
from ingest.slots.values import tokens_in

Token = Any  # spacy.tokens.Token; spaCy is untyped here
OUR_TOPIC = "our-topic"  # a topic reading of an "our ..." sentence, used without an organisation


def extract(doc: Any, text: str | None = None) -> list[Extracted]:
    """Every statement of a turn, in order (questions state nothing). Per sentence, a fact
    the closed-list rules of ``ingest/extract/rules.py`` recognise keeps their reading (a known
    attribute of a name, "our HQ"); otherwise the parse decides; what neither finds as a
    fact or preference falls to the rules' decisions and episodes. Without a parse (a
    resolver that failed), the rules alone."""
    text = doc.text if text is None and doc is not None else text or ""
    if is_pleasantry(text):
        return []
    out: list[Extracted] = []
    topic: Token | None = None  # what "it" refers to, carried from sentence to sentence
    for sentence in split_sentences(text):
        if sentence.text.rstrip().endswith("?"):
            out.extend(_standing_request(doc, sentence) if doc is not None else [])
            continue
        ruled = [_changing(e) for e in rules.sentence(sentence) if not _about_it(e)]
        if doc is None or (any(_settled(e) for e in ruled) and not any(_listed(e) for e in ruled)):
            out.extend(ruled)
            if doc is not None and any(_ours(e) for e in ruled):
                # "Our deploy target is X": the organisation's, when the session has one;
                # else the topic's (``extraction.settle_ours`` keeps one reading).
                parsed = sentence_statements(doc, sentence)
                out.extend(replace(e, subject_kind=OUR_TOPIC) for e in parsed if e.kind == "fact")
            continue
        parsed, topic = _statements(doc, sentence, topic)
        out.extend(parsed or [e for e in ruled if _confirmed(e, doc, sentence)])
    return _positive_wins(out)


def _standing_request(doc: Any, s: Sentence) -> list[Extracted]:
    """A question that states a rule: "Could you always write dates as YYYY-MM-DD?", "can you
    never book meetings on Fridays?" (a request to "you" said as standing; "could you send me
    the file?" asks once, and other questions state nothing)."""
    tokens = tokens_in(doc, s.start, s.end)
    verb = next((t for t in tokens if t.dep_ == "ROOT" and t.pos_ == "VERB"), None)
    if verb is None or verb.tag_ != "VB":
        return []
    asks = any(c.dep_ == "aux" and c.lower_ in _ASKING for c in verb.children)
    you = any(c.dep_ == "nsubj" and c.lower_ == "you" for c in verb.children)
    if not (asks and you and prefs.standing(verb, s)) or any(t.lower_ == "ever" for t in tokens):
        return []  # "can you ever forgive me?": "ever" asks, it sets no rule
    obj = next((c for c in verb.children if c.dep_ in {"dobj", "xcomp", "ccomp"}), None)
    return [prefs.preference(s, prefs.topic_of(obj) if obj is not None else None, False)]


_ASKING = frozenset({"can", "could", "would", "will"})


def _confirmed(ex: Extracted, doc: Any, s: Sentence) -> bool:
    """A rules' reading the parse did not make itself, checked against the parse: an
    "always/never ..." instruction stands when the word after "always"/"never" is an action
    ("never book flights with ..."), not a mood or an idiom ("always glad to help", "never
    mind"); a like stands when what is liked is a thing, not a clause."""
    tokens = [t for t in tokens_in(doc, s.start, s.end) if not t.is_punct]
    if ex.predicate == "likes":  # "I love how calm the office is": a feeling about a scene
        verb = next((t for t in tokens if t.dep_ == "ROOT"), None)
        return verb is None or not any(c.dep_ == "ccomp" for c in verb.children)
    if ex.predicate != "instruction":
        return True
    cue = next((t for t in tokens if t.lower_ in {"always", "never"}), None)
    if cue is None or cue.i + 1 >= len(doc):
        return False
    after = doc[cue.i + 1]
    if after.tag_ in {"VBD", "VBN", "VBG", "VBZ"}:  # "never saw this coming": a past event
        return False
    return after.pos_ not in {"ADJ", "ADV", "AUX", "PRON", "DET"} and after.lower_ != "mind"


def _about_it(ex: Extracted) -> bool:
    """A rules' fact whose subject is "it" or "this" ("It was a blast!" read as a role): no
    one in particular."""
    return ex.kind == "fact" and (ex.subject or "").casefold() in {"it", "this", "that"}


def _listed(ex: Extracted) -> bool:
    """A rules' fact about several names at once ("Anna and Ben are based in Oslo"): the
    parse gives each name its own fact."""
    return ex.kind == "fact" and " and " in (ex.subject or "")


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
    return _statements(doc, s, None)[0]


def _statements(doc: Any, s: Sentence, topic: Token | None) -> tuple[list[Extracted], Token | None]:
    """The statements of one sentence and its topic, given the topic of the sentences before
    it ("The main language is no longer French; it's English")."""
    tokens = tokens_in(doc, s.start, s.end)
    heading = _heading(tokens)
    inside = {t.i for t in tokens} - heading
    tokens = [t for t in tokens if t.i in inside]
    roots = [t for t in tokens if t.head.i == t.i or t.head.i not in inside]
    clauses: list[Token] = []
    for root in roots:  # a clause and the clauses beside it, in the order said
        more = [c for c in root.children if c.dep_ in {"conj", "ccomp"} and c.i in inside]
        if root.lemma_.lower() in REPORTING:  # "Tom said, never use ...": his words, quoted
            more = [c for c in more if c.dep_ == "conj"]
        clauses += sorted([root, *more], key=lambda t: t.i)
    clauses = [c for c in clauses if not _quoted(c, tokens)]
    out: list[Extracted] = []
    for clause in clauses:
        found = _clause(clause, s, topic)
        if found and found[-1].subject_kind == "topic":
            # the clause's own subject or object; a clause sharing another's subject
            # ("... moves to May and the newsletter moves ...") keeps the topic so far
            topic = next((c for c in clause.children if c.dep_ in SUBJECTS | {"dobj"}), topic)
        out.extend(found)
    if any(doc[i].lemma_.lower() in CORRECTING for i in heading):
        # "Correction: the budget is 45000 euros": what follows replaces a value
        out = [replace(e, correction=True) if e.kind == "fact" else e for e in out]
    return _positive_wins(out), topic


def _heading(tokens: list[Token]) -> set[int]:
    """ "Quick update: ...", "Two changes: ...": a heading before a colon (a closed list of
    words) says nothing itself; what follows it is read on its own."""
    colon = next((t for t in tokens if t.text == ":"), None)
    if colon is None:
        return set()
    before = [t for t in tokens if t.i < colon.i]
    nouns = [t for t in before if t.pos_ in {"NOUN", "PROPN", "INTJ", "ADJ", "X"}]
    if not nouns or not any(t.lemma_.lower() in HEADINGS for t in nouns) or len(before) > 5:
        return set()
    return {t.i for t in before} | {colon.i}


def _quoted(tok: Token, tokens: list[Token]) -> bool:
    """Inside quotation marks: someone's words repeated, not the speaker's statement."""
    marks = [t for t in tokens if t.i < tok.i and t.tag_ in {"``", "''"} or t.text == '"']
    return len([t for t in marks if t.i < tok.i]) % 2 == 1


def _positive_wins(found: list[Extracted]) -> list[Extracted]:
    """ "X is no longer on A, it is on B": the new value replaces A (and is a change); the
    retraction of A alone would supersede it a second time. "The limit was 100, but now
    it's 200": the value said beside a change is the old one, not a fact of its own."""
    facts_ = [e for e in found if e.kind == "fact"]
    said = {(e.subject, e.predicate) for e in facts_ if not e.negated}
    retracted = {(e.subject, e.predicate) for e in facts_ if e.negated}
    changed = {(e.subject, e.predicate) for e in facts_ if e.correction and not e.negated}
    out = []
    for e in found:
        key = (e.subject, e.predicate)
        if e.kind != "fact":
            out.append(e)
        elif e.negated and key in said or not e.correction and key in changed:
            continue
        else:
            out.append(replace(e, correction=True) if key in retracted else e)
    return out


def _clause(verb: Token, s: Sentence, topic: Token | None = None) -> list[Extracted]:
    """The statement of one clause; ``topic`` is the sentence's topic so far, what "it"
    refers to ("the dashboard is no longer on Heroku, it is on Render")."""
    if _subordinate(verb):
        return []
    subj = _subject(verb)
    if subj is None and verb.dep_ == "conj" and verb.tag_ != "VB":
        # "Eva left Globex and joined Stark": the second verb shares the first one's subject
        subj = _subject(verb.head)
    if subj is not None and subj.lower_ == "it" and topic is not None:
        subj = topic
    named = parts.named_apposition(subj) if subj is not None else None
    if named is not None:  # "Our sales lead, Owen Price, is in Cardiff": about Owen Price
        role, subj = subj, named
    found = _read(verb, subj, s)
    if subj is None or not found:
        return found
    if named is not None and not any(e.predicate == "role" for e in found):
        found = [*found, facts.fact(s, subj, "name", "role", parts.role(role), False, False)]
    return found + _appositive(found, subj, s) + _shared(found, subj)


def _subject(verb: Token) -> Token | None:
    """The verb's subject; of two, the nearer ("Changes for next month: the webinar moves
    ..."); a noun the small model hangs on a verb as a compound ("the newsletter moves")."""
    said = [c for c in verb.children if c.dep_ in SUBJECTS]
    if not said and verb.pos_ == "VERB":
        said = [
            c
            for c in verb.lefts
            if c.dep_ == "compound" and c.pos_ in {"NOUN", "PROPN"} and c.i == verb.i - 1
        ]
    before = [c for c in said if c.i < verb.i]
    return before[-1] if before else (said[0] if said else None)


def _appositive(found: list[Extracted], subj: Token, s: Sentence) -> list[Extracted]:
    """ "Ivy Chen, our CFO, is based in Toronto": the role said beside the name is a fact
    too (unless the clause states a role itself)."""
    role = parts.appositive(subj)
    if role is None or parts.subject_kind(subj) != "name":
        return []
    if any(e.predicate == "role" for e in found):
        return []
    return [facts.fact(s, subj, "name", "role", parts.role(role), False, False)]


def _shared(found: list[Extracted], subj: Token) -> list[Extracted]:
    """ "The wiki and the bug tracker are on Atlassian": each coordinated subject gets the
    facts said of the first."""
    said = parts.subject_text(subj)
    out: list[Extracted] = []
    for other in parts.conjuncts(subj):
        kind = parts.subject_kind(other)
        if kind is None:
            continue
        first = min(t.idx for t in parts.subject_tokens(other))
        text = parts.subject_text(other)
        out += [
            replace(e, subject=text, subject_start=first, subject_kind=kind, subject_at=None)
            for e in found
            if e.kind == "fact" and e.subject == said
        ]
    return out


def _read(verb: Token, subj: Token | None, s: Sentence) -> list[Extracted]:
    """What one clause states, by its verb."""
    lemma = verb.lemma_.lower()
    if verb.dep_ == "ROOT" and verb.pos_ == "NOUN" and (found := prefs.limit(verb, s)):
        return found  # "no more than two exclamation marks per email, please"
    if lemma in DECIDING and (found := facts.decision(verb, subj, s)):
        return found
    if lemma == "be" and subj is not None and subj.lower_ == "i":
        return prefs.fan(verb, s)  # "I'm a big fan of short headlines"
    if lemma in {"be", "become"} and subj is not None:
        return copular.copular(verb, subj, s)
    if subj is not None and parts.misread_copula(verb):
        # "The default branch is develop": the small model reads a progressive; the word
        # after "is" is the value.
        kind = parts.subject_kind(subj)
        if kind == "topic":
            return [facts.fact(s, subj, kind, "value", verb.text, False, parts.now(verb))]
        return []
    if subj is not None and (found := _stated(verb, lemma, subj, s)):
        return found
    changing = parts.changing(verb) or (lemma in LOCATING and subj is not None)
    if changing and (found := changes.change(verb, subj, s)):
        return found
    if lemma in PLACING and subj is not None and parts.subject_kind(subj) == "topic":
        return changes.change(verb, subj, s)  # "the status dashboard sits on Grafana Cloud"
    if lemma in _ROUTING and subj is not None and (found := _routed(verb, subj, s)):
        return found
    if subj is not None and subj.lower_ in {"i", "we"}:
        return prefs.wanted(verb, s)
    if subj is None and _bare(verb) and _commands(verb):
        return prefs.imperative(verb, s)
    return []


def _stated(verb: Token, lemma: str, subj: Token, s: Sentence) -> list[Extracted]:
    """A fact read from a verb other than "be" (``statements.facts``)."""
    employing = {"work", "join", *LEAVING, *PROMOTING, *HIRING, *(v for v, _ in TAKING_OVER)}
    if lemma in employing and (found := facts.employment(verb, subj, s)):
        return found
    if subj.dep_ == "nsubjpass" and lemma in NAMING and (found := facts.called(verb, subj, s)):
        return found
    if subj.dep_ == "nsubjpass" and lemma not in LOCATING and not parts.changing(verb):
        return facts.passive(verb, subj, s)
    if lemma in MEASURING and (found := facts.measured(verb, subj, s)):
        return found
    if lemma in SCHEDULING:
        return facts.scheduled(verb, subj, s)
    return []


_ROUTING = frozenset({"go", "come", "run"})


def _routed(verb: Token, subj: Token, s: Sentence) -> list[Extracted]:
    """ "The invoices go to Martin", "payments now go through Adyen": where a topic is sent,
    said of how things stand (present, or marked as new), to a name."""
    if parts.subject_kind(subj) != "topic":
        return []
    if verb.tag_ not in {"VBZ", "VBP"} and not parts.now(verb):
        return []  # "the team went to Berlin": an event
    for prep in verb.children:
        if prep.dep_ == "prep" and prep.lower_ in {"to", "through", "via"}:
            pobj = parts.pobj_of(prep)
            if pobj is not None and pobj.pos_ == "PROPN" and not parts.place(pobj):
                now = parts.now(verb)
                value = parts.value(parts.proper(pobj) or pobj)
                return [facts.fact(s, subj, "topic", "value", value, parts.negated(verb), now)]
    return []


def _subordinate(verb: Token) -> bool:
    """ "how calm the office is", "if it is ...", "could have been": not a statement."""
    if verb.dep_ == "ccomp" and any(t.tag_ == "WRB" and t.i < verb.i for t in verb.subtree):
        return True
    for c in verb.children:
        if c.dep_ == "mark" and not _pronoun_that(c):
            return True
        if c.dep_ == "advmod" and c.tag_ == "WRB":
            return True
        if c.dep_ == "advcl" and any(g.dep_ == "mark" and g.lower_ in _CONDITIONS
                                     for g in c.children):  # fmt: skip
            return True  # "if the board approves, we'll move the office": not yet so
        if c.dep_ == "advmod" and c.lower_ in _HEDGES:
            return True  # "the price will probably go up": a forecast
        if c.dep_ == "aux" and c.tag_ == "MD" and c.lower_ not in {"will", "'ll"}:
            # "I'd prefer ...", "I would like ...", "I'd rather have ...": a wish said
            # politely, not a hypothesis
            polite = verb.lemma_.lower() in {"prefer", "like"} or any(
                g.lower_ == "rather" for g in verb.children
            )
            return not (c.lower_ in {"'d", "would"} and polite)
    return False


def _pronoun_that(mark: Token) -> bool:
    """ "Scratch that, the call is at 4": "that" before a comma is a pronoun, misread."""
    after = mark.doc[mark.i + 1] if mark.i + 1 < len(mark.doc) else None
    return mark.lower_ == "that" and after is not None and after.text == ","


_CONDITIONS = frozenset({"if", "unless"})
CORRECTING = frozenset({"correction", "update", "change"})  # headings that announce a change
_HEDGES = frozenset({"probably", "maybe", "perhaps", "possibly", "likely", "hopefully"})


def _bare(verb: Token) -> bool:
    """A verb in its bare form; a clause's root read as a present ("Going forward, copy Mark
    on every proposal") is one too when nothing is its subject."""
    return bool(verb.tag_ == "VB" or (verb.tag_ == "VBP" and verb.dep_ == "ROOT"))


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
