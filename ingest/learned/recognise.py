"""Which sentences of a user's turn are core memory: the business's identity, the speaker's own
name and role, an active project and its state, a standing rule. Read from the parse the turn
already has and from its statements (``ingest/slots/analysis.py``): only a sentence said as so
(its mood) about *us* or *me* (its subject) counts, so a question ("are we still called
WOBS?"), a supposition ("if we were called X ..."), someone else's view ("Tom says we should
call it X"), a plan or a story of the past is never core. Rules come from the preferences and
rules the extractor already found (``ingest/extract/statement_prefs.py``).

What each kind looks like in the parse (the word lists below are small and closed):

- **business**: a subject that is us ("we", "our company", "the company") and either a name
  (a copula with a proper-noun complement, "we're called X", "we renamed to X", "we go by X")
  or what we do (a present-tense trade verb with an object, "we do link building"; "we're a
  link-building agency");
- **self**: "I" and a name ("I'm Dana Whitfield", "my name is Dana", "call me Dana") or a role
  (a copula with a role noun, "I'm head of ops at Brightline"; "I work as ..."; "I run the
  design team"; a change of role, "I moved to CFO", "I was promoted to CFO");
- **project**: us doing a piece of work now ("we're migrating billing to Paddle, about half
  done"; a progressive of a work verb), or a piece of work's state ("the Paddle migration is
  done", "the new site is live");
- **rule**: a standing instruction or a stated preference the extractor found, said as so.

Pure functions; no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.statements import (
    ASSERT,
    CONDITIONAL,
    EVENT,
    NEGATION,
    QUESTION,
    REQUEST,
    Statement,
)
from ingest.extract import statement_parts as parts
from ingest.extract.rules import Extracted
from ingest.extract.statement_words import CHANGE_VERBS, PROMOTING, STANDING, SUBJECTS
from ingest.slots.grammar import MARKERS
from ingest.slots.values import tokens_in

Token = Any  # spacy.tokens.Token; spaCy is untyped here

BUSINESS, SELF, PROJECT, RULE = "business", "self", "project", "rule"
KINDS = (BUSINESS, SELF, PROJECT, RULE)
# Slots with one value at a time: a later statement of one replaces the earlier.
SINGLE = frozenset({"business:name", "self:name", "self:role"})
MAX_CHARS = 280  # a longer sentence is a story, not a line of core memory

# Nouns that name a business ("our company", "we're a link-building agency").
ORG_NOUNS = frozenset(
    {"company", "business", "agency", "firm", "startup", "studio", "consultancy", "brand",
     "practice", "organisation", "organization", "nonprofit", "charity", "shop", "store",
     "platform", "marketplace", "cooperative", "collective", "label"}
)  # fmt: skip
# Verbs that say what a business does, in the present tense ("we do link building").
TRADE = frozenset(
    {"do", "offer", "provide", "sell", "build", "make", "design", "develop", "specialise",
     "specialize", "help", "serve", "supply", "produce", "manufacture", "publish", "run",
     "create", "write", "manage", "host", "install", "repair", "import", "export", "distribute"}
)  # fmt: skip
# Verbs that name: "we're called X", "the company is known as X", "we renamed to X".
NAMING = frozenset({"call", "name", "know", "brand"})
RENAMING = ("rename", "rebrand")  # prefixes: the model lemmatizes "rebranded" as "rebrande"
# Verbs of a role held ("I run the design team"), and of a role taken ("I moved to CFO").
HOLDING = frozenset({"run", "lead", "head", "manage", "own", "direct", "chair"})
TAKING = CHANGE_VERBS | PROMOTING | frozenset({"become", "join", "step"})
# Verbs of a piece of work in progress ("we're migrating billing", "we're building an app").
WORKING = CHANGE_VERBS | frozenset(
    {"build", "develop", "launch", "work", "redesign", "rebuild", "implement", "roll",
     "rewrite", "refactor", "pilot", "hire", "overhaul", "integrate", "automate", "rework",
     "restructure", "expand", "open", "finish", "finalise", "finalize", "wrap", "onboard"}
)  # fmt: skip
# A piece of work's state ("the migration is half done", "the site is live", "on hold").
STATES = frozenset(
    {"done", "complete", "completed", "finished", "underway", "live", "blocked", "paused",
     "delayed", "behind", "ahead", "stalled", "halfway", "launched", "shipped"}
)  # fmt: skip
STATE_PREPS = frozenset(
    {"track", "hold", "beta", "alpha", "progress", "review", "testing", "schedule"}
)
# Nouns that are a piece of work ("the migration", "the launch", "project Atlas").
WORKS = frozenset(
    {"project", "migration", "launch", "release", "redesign", "rebuild", "rollout",
     "integration", "upgrade", "rewrite", "website", "site", "app", "campaign", "pilot",
     "beta", "audit", "rebrand", "overhaul", "refactor", "implementation", "deployment"}
)  # fmt: skip
_GENERIC = frozenset({"project", "team", "company", "work", "thing", "way", "half", "lot", "bit"})


@dataclass(frozen=True)
class Learned:
    """One line of core memory a turn states.

    ``slot`` says what it gives a value of ("business:name", "self:role"; a project by its
    nouns, "project:billi paddl"; a rule by its topic or words); ``key`` what a restatement of
    it shares (its kind, slot and content words), so an unpinned item said again is known.
    """

    kind: str
    slot: str
    text: str
    start: int  # the sentence's span in the turn (its statement's)
    end: int
    key: str
    change: bool = False  # said as a change ("now", "switched to"): replaces its kind's lines

    @property
    def personal(self) -> bool:
        """About the speaker (their name, role, rules): scoped to the user."""
        return self.kind in (SELF, RULE)

    @property
    def single(self) -> bool:
        return self.slot in SINGLE


def recognise(
    doc: Any, said: Sequence[Statement], extracted: Sequence[Extracted] = ()
) -> list[Learned]:
    """The core items of a user's turn: ``doc`` its parse, ``said`` its statements,
    ``extracted`` what the rules found in it (its preferences and instructions)."""
    if doc is None:
        return []
    out: list[Learned] = []
    for s in said:
        if len(s.text) > MAX_CHARS:
            continue
        tokens = tokens_in(doc, s.start, s.end)
        verb = _root(tokens, verbs_only=False)
        if verb is None or _negated(verb):
            continue
        out += _business(doc, s, verb) or _self(doc, s, verb) or _project(doc, s, verb)
    learned = {item.start for item in out}  # "from now on, call me Sam": a name, once
    out += [r for r in _rules(doc, said, extracted) if r.start not in learned]
    seen: set[str] = set()
    unique = []
    for item in out:
        if item.key not in seen:
            seen.add(item.key)
            unique.append(item)
    return unique


# -- business ----------------------------------------------------------------------------------


def _business(doc: Any, s: Statement, verb: Token) -> list[Learned]:
    subj = _subject(verb)
    if subj is None or not _ours(subj):
        return []
    if _names(verb, subj, s):
        return [_item(doc, BUSINESS, "business:name", s)]
    if s.mood == ASSERT and _trades(verb, subj):
        return [_item(doc, BUSINESS, "business:what", s)]
    return []


def _ours(subj: Token) -> bool:
    """The speaker's business: "we", "our company", "the company", "our name"."""
    if subj.lower_ == "we":
        return True
    owner = {c.lower_ for c in subj.children if c.dep_ in ("det", "poss")}
    lemma = subj.lemma_.lower()
    if lemma == "name":
        return "our" in owner
    # "our law firm", "the webinar platform", "our design agency": a business we deal with
    described = any(c.dep_ in ("compound", "amod") for c in subj.children)
    return bool(owner & {"our", "the"}) and lemma in ORG_NOUNS and not described


def _names(verb: Token, subj: Token, s: Statement) -> bool:
    """A name said as ours now: "we are X", "the company is X", "we're (now) called X",
    "we go by X", "we renamed (the company) to X"."""
    lemma = verb.lemma_.lower()
    if lemma.startswith(RENAMING) or lemma == "change" and _object_is(verb, "name"):
        # "we renamed (the company) to X"; not "we renamed the mobile app to X"
        obj = next((c for c in verb.children if c.dep_ == "dobj"), None)
        ours = obj is None or obj.lemma_.lower() in ORG_NOUNS | {"name", "ourselves"}
        return ours and s.mood in (ASSERT, EVENT) and _named_after(verb, ("to", "as")) is not None
    if s.mood != ASSERT or not _present(verb):
        return False
    if lemma == "be":
        attr = next((c for c in verb.children if c.dep_ in ("attr", "oprd")), None)
        return attr is not None and _proper(attr)
    if lemma in NAMING and subj.dep_ == "nsubjpass":
        named = next((c for c in verb.children if c.dep_ in ("oprd", "attr")), None)
        named = named or _named_after(verb, ("as",))
        return named is not None and _proper(named)
    if lemma == "go":
        named = _named_after(verb, ("by",))
        return named is not None and _proper(named)
    return False


def _trades(verb: Token, subj: Token) -> bool:
    """What the business is or does, now: "we're a link-building agency", "we do link
    building", "we specialise in B2B SaaS"."""
    lemma = verb.lemma_.lower()
    if lemma == "be":
        attr = next((c for c in verb.children if c.dep_ == "attr"), None)
        return (
            _present(verb)
            and attr is not None
            and attr.lemma_.lower() in ORG_NOUNS
            and any(c.dep_ == "det" and c.lower_ in ("a", "an") for c in attr.children)
        )
    if lemma not in TRADE or verb.tag_ not in ("VBP", "VBZ") or _has_aux(verb):
        return False
    if lemma in ("specialise", "specialize"):
        return _named_after(verb, ("in",)) is not None
    obj = next((c for c in verb.children if c.dep_ == "dobj"), None)
    if obj is None or obj.pos_ not in ("NOUN", "PROPN") or parts.judged(obj):
        return False  # "we make a great team": a judgement of ourselves, no trade
    # a trade's object is a kind of thing ("link building", "refurbished laptops"), not a
    # particular one ("we host *the docs* on Netlify")
    return not any(c.dep_ in ("det", "poss") and c.lower_ in _PARTICULAR for c in obj.children)


# -- self --------------------------------------------------------------------------------------


def _self(doc: Any, s: Statement, verb: Token) -> list[Learned]:
    subj = _subject(verb)
    lemma = verb.lemma_.lower()
    if subj is None:
        if _my_name_is(verb) and s.mood == ASSERT:  # "My name's Oliver", read as a name
            return [_item(doc, SELF, "self:name", s)]
        named = _called_me(verb)  # "call me Dana"
        ok = named and s.mood in (ASSERT, REQUEST)
        return [_item(doc, SELF, "self:name", s)] if ok else []
    mine = subj.lower_ == "i"
    owned = any(c.lower_ == "my" for c in subj.children)
    my_name = owned and subj.lemma_.lower() == "name"
    stated = lemma == "be" and s.mood == ASSERT and _present(verb)
    if stated and (mine or my_name):
        return _i_am(doc, s, verb, mine)
    if stated and owned and subj.lemma_.lower() in _ROLE_WORDS:  # "my role is head of ..."
        attr = next((c for c in verb.children if c.dep_ in ("attr", "oprd")), None)
        kind_of = attr is not None and any(c.lower_ in ("a", "an") for c in attr.children)
        if attr is not None and attr.pos_ in ("NOUN", "PROPN") and not kind_of:
            return [_item(doc, SELF, "self:role", s)]  # not "my job is a nightmare"
    if not mine:
        return []
    spliced = next(  # "I'm Priya, I look after customer success": the first clause
        (c for c in verb.children if c.dep_ in ("ccomp", "parataxis") and c.i < verb.i
         and c.lemma_ == "be" and _present(c) and _is_i(_subject(c))),
        None,
    )  # fmt: skip
    if spliced is not None and s.mood in (ASSERT, REQUEST):
        return _i_am(doc, s, spliced, True)
    if s.mood == ASSERT and _present(verb) and not _has_aux(verb) and _holds(verb, lemma):
        return [_item(doc, SELF, "self:role", s)]
    if s.mood in (ASSERT, EVENT) and _takes_role(verb, lemma):
        return [_item(doc, SELF, "self:role", s)]
    return []


_ROLE_WORDS = frozenset({"role", "job", "title", "position"})


def _i_am(doc: Any, s: Statement, be: Token, mine: bool) -> list[Learned]:
    """ "I'm Dana Whitfield", "my name is Dana", "I'm the CFO"."""
    attr = next((c for c in be.children if c.dep_ in ("attr", "oprd")), None)
    if attr is None:
        return []
    if _proper(attr) and attr.ent_type_ not in _NOT_PEOPLE and not parts.acronym(attr):
        return _name_and_role(doc, s, attr)
    if mine and _role(attr):
        return [_item(doc, SELF, "self:role", s)]
    return []


def _is_i(tok: Token | None) -> bool:
    return tok is not None and tok.lower_ == "i"


def _my_name_is(root: Token) -> bool:
    """ "My name's Oliver Grant", which the small model reads as a possessive."""
    return root.pos_ == "PROPN" and any(
        c.dep_ == "poss"
        and c.lemma_.lower() == "name"
        and any(g.lower_ == "my" for g in c.children)
        for c in root.children
    )


_PARTICULAR = frozenset({"the", "this", "that", "these", "those", "our", "my", "their", "its"})
_NOT_PEOPLE = frozenset({"GPE", "LOC", "FAC", "DATE", "TIME", "NORP", "MONEY", "EVENT"})


def _name_and_role(doc: Any, s: Statement, attr: Token) -> list[Learned]:
    """ "I'm Dana Whitfield, head of ops at Brightline": the name, and the role said beside
    it as a line of its own ("I'm head of ops at Brightline"), so a change of role later
    replaces the role and leaves the name."""
    appos = next((c for c in attr.children if c.dep_ == "appos" and _role(c)), None)
    if appos is None:
        return [_item(doc, SELF, "self:name", s)]
    sub = sorted(appos.subtree, key=lambda t: t.i)
    name_end = max(t.idx + len(t.text) for t in attr.subtree if t.i < sub[0].i)
    a, b = sub[0].idx, sub[-1].idx + len(sub[-1].text)
    lead = doc.text[s.start : attr.left_edge.idx]  # "I'm "
    named = doc.text[s.start : name_end].rstrip(" ,;") + "."
    role = lead + doc.text[a:b].rstrip(" ,;.") + "."
    return [
        _item(doc, SELF, "self:name", s, named, (s.start, name_end)),
        _item(doc, SELF, "self:role", s, role, (a, b)),
    ]


def _role(attr: Token) -> bool:
    """A role said of oneself: a title in letters ("CFO"), a title of something ("head of
    ops"), or a noun said with its article ("a nurse", "the CFO"); not a feeling or a liking
    ("a mix of excited and scared", "a big fan"), nor what one is not ("no writer")."""
    if attr.pos_ not in ("NOUN", "PROPN") or parts.numeric(attr):
        return False
    if parts.acronym(attr):
        return True
    lemma = attr.lemma_.lower()
    if attr.pos_ == "PROPN" or lemma in _NOT_ROLES or parts.judged(attr):
        return False
    det = {c.lower_ for c in attr.children if c.dep_ in ("det", "poss")}
    of = any(c.dep_ == "prep" and c.lower_ == "of" for c in attr.children)
    if lemma in TITLES and of:
        return True  # "head of ops"
    return bool(det & {"a", "an", "the", "our"}) and not of


# Heads of a title said with "of" ("head of ops", "director of sales").
TITLES = frozenset({"head", "director", "vp", "manager", "chief", "lead", "president"})
# Nouns said after "I'm a" that are no role ("a fan of", "a big believer", "a mess").
_NOT_ROLES = frozenset(
    {"fan", "lot", "bit", "kind", "sort", "type", "person", "one", "part", "mix", "mess",
     "believer", "sucker", "wreck", "fool", "natural", "pro", "step", "way", "game"}
)  # fmt: skip


def _holds(verb: Token, lemma: str) -> bool:
    """ "I work as a designer", "I work at Brightline", "I run the design team"."""
    if lemma == "work":
        role = _named_after(verb, ("as",))
        org = _named_after(verb, ("at", "for"))
        return role is not None or org is not None and org.pos_ == "PROPN"
    if lemma not in HOLDING:
        return False
    obj = next((c for c in verb.children if c.dep_ == "dobj"), None)
    if obj is None or obj.pos_ not in ("NOUN", "PROPN"):
        return False
    org = _named_after(verb, ("at", "for"))
    return obj.tag_ != "NNS" or org is not None  # "I run marathons" holds no role


def _takes_role(verb: Token, lemma: str) -> bool:
    """ "I moved to CFO", "I was promoted to head of sales", "I became CTO", "I joined
    Brightline as COO"."""
    if lemma not in TAKING:
        return False
    if lemma == "become":
        attr = next((c for c in verb.children if c.dep_ in ("attr", "oprd")), None)
        return attr is not None and _role(attr)
    new = _named_after(verb, ("to", "as"))
    if new is None:  # "promoted to head of sales", read as "to head" (a verb)
        new = next((c for c in verb.children if c.dep_ == "xcomp" and _title(c)), None)
        return new is not None
    return not parts.place(new) and _role(new)


def _title(tok: Token) -> bool:
    return tok.lower_ in TITLES and any(c.dep_ == "prep" and c.lower_ == "of" for c in tok.children)


def _called_me(verb: Token) -> bool:
    if verb.lemma_.lower() != "call" or verb.tag_ != "VB":
        return False
    me = any(c.dep_ == "dobj" and c.lower_ == "me" for c in verb.children)
    name = next((c for c in verb.children if c.dep_ in ("oprd", "xcomp", "attr", "npadvmod")), None)
    return me and name is not None and name.pos_ == "PROPN"


# -- projects ----------------------------------------------------------------------------------


def _project(doc: Any, s: Statement, verb: Token) -> list[Learned]:
    if s.mood != ASSERT:
        return []
    subj = _subject(verb)
    if subj is None:
        return []
    lemma = verb.lemma_.lower()
    tokens = tokens_in(doc, s.start, s.end)
    progressive = verb.tag_ == "VBG" and any(
        c.dep_ == "aux" and c.lemma_ == "be" and c.tag_ in ("VBP", "VBZ") for c in verb.children
    )
    leading = subj.lower_ == "i" and lemma in HOLDING | {"work"}
    if progressive and (_ours(subj) or leading) and lemma in WORKING | HOLDING:
        worked = any(c.dep_ == "dobj" and c.pos_ in ("NOUN", "PROPN") for c in verb.children)
        worked = worked or _named_after(verb, ("on", "to")) is not None
        if worked:
            return [_item(doc, PROJECT, _project_slot(tokens, subj), s)]
        return []
    stated = lemma == "be" and _stated_state(verb) or verb.lower_ in STATES
    if stated and _present(verb) and _a_work(subj):
        return [_item(doc, PROJECT, _project_slot(tokens, subj), s)]
    return []


def _a_work(subj: Token) -> bool:
    """A piece of work of ours: "the migration", "our Paddle migration", "project Atlas"."""
    if subj.pos_ == "PRON":
        return False
    words = {t.lemma_.lower() for t in [subj, *parts.compounds(subj)]}
    owned = any(c.dep_ in ("det", "poss") and c.lower_ in ("the", "our") for c in subj.children)
    return bool(words & WORKS) and (owned or subj.pos_ == "PROPN")


def _stated_state(verb: Token) -> bool:
    """ "is done", "is about 70% complete", "is live", "is on track", "is on hold"."""
    for c in verb.children:
        if c.dep_ in ("acomp", "attr", "advmod", "oprd") and (
            c.lower_ in STATES or c.lemma_.lower() in STATES
        ):
            return True
        if c.dep_ == "prep" and c.lower_ in ("on", "in", "behind", "ahead"):
            pobj = parts.pobj_of(c)
            if pobj is not None and pobj.lemma_.lower() in STATE_PREPS:
                return True
    return False


def _project_slot(tokens: Sequence[Token], subj: Token) -> str:
    """A project by its nouns' stems ("billing", "paddle"): two statements naming one of the
    same nouns are about one project."""
    stems = sorted(
        {
            t.lemma_.lower()[:5]
            for t in tokens
            if t.pos_ in ("NOUN", "PROPN")
            and t.lemma_.lower() not in _GENERIC | STATES | STATE_PREPS
            and t.lower_ not in MARKERS
            and t.is_alpha
        }
    )
    return "project:" + " ".join(stems)


# -- rules -------------------------------------------------------------------------------------

# Moods a rule may be said in: as so, as a request ("always answer in British English"), as a
# negated imperative ("never schedule calls on Fridays"), as a standing request in a question
# ("could you always write dates as YYYY-MM-DD?") or under a condition ("if it's urgent,
# call me"); not as someone's view, a plan, a possibility, history or an event.
_RULE_MOODS = frozenset({ASSERT, REQUEST, NEGATION, QUESTION, CONDITIONAL})


def _rules(doc: Any, said: Sequence[Statement], extracted: Sequence[Extracted]) -> list[Learned]:
    out = []
    for ex in extracted:
        predicate = ex.predicate or ""
        if ex.kind != "preference" or not (
            predicate == "instruction" or predicate.startswith("preference:")
        ):
            continue  # likes and dislikes ("I love hiking") are not rules
        s = next((x for x in said if x.start <= ex.start < x.end), None)
        if s is None or s.mood not in _RULE_MOODS or len(ex.content) > MAX_CHARS:
            continue
        tokens = tokens_in(doc, s.start, s.end)
        verb = _root(tokens)
        if verb is None:  # "Never schedule calls on Fridays" read as a noun phrase
            cue = len(tokens) > 1 and tokens[0].lower_ in STANDING
            if not (cue and predicate == "instruction" and tokens[1].pos_ in ("VERB", "NOUN")):
                continue  # "always up for something sweet"
        elif not _instructs(verb, s):
            continue
        if predicate.startswith("preference:"):  # one preference per topic
            slot = f"{TOPIC_RULE}{predicate.split(':', 1)[1]}"
        elif verb is not None:  # what it rules: "answer ... English", "schedule ... call"
            slot = f"rule:{_ruled(verb)}"
        else:
            slot = "rule:" + " ".join(sorted(s.words - STANDING))
        out.append(_item(doc, RULE, slot, s, ex.content.strip(), (ex.start, ex.end)))
    return out


TOPIC_RULE = "rule:topic:"  # a preference's topic: a later one of the topic replaces it


def _ruled(verb: Token) -> str:
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


def _instructs(verb: Token, s: Statement) -> bool:
    """How the speaker wants things done: an imperative or "I prefer/want/'d like ..." about
    something done (an object, a manner: "answer *in British English*", "keep *replies*
    under 150 words"); not encouragement of the listener ("never give up", "keep going",
    "take care of yourself"), nor a sentence that only describes ("my favourite is ...").
    Under a condition, only an imperative ("if it's urgent, call me")."""
    subj = _subject(verb)
    rather = next((c for c in verb.children if c.dep_ == "ccomp"), None)
    wished = (
        _is_i(subj) and rather is not None and any(c.lower_ == "rather" for c in rather.children)
    )
    if wished:  # "I'd rather you kept summaries short": what is wanted
        assert rather is not None
        verb, subj = rather, None
    lemma = verb.lemma_.lower()
    imperative = (wished or verb.tag_ in ("VB", "VBP")) and subj is None
    wanting = _is_i(subj) and lemma in _WANTING
    # "could you always write dates as YYYY-MM-DD?": a standing request, asked
    imperative = imperative or (
        subj is not None
        and subj.lower_ == "you"
        and any(c.dep_ == "aux" and c.lower_ in _ASKING for c in verb.children)
    )
    if s.mood == CONDITIONAL and not imperative:
        return False
    if not (imperative or wanting) or lemma == "be":
        return False
    if imperative and lemma in _FEELING:
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
        if governed is None or _negated(governed):
            return False
        who = _subject(governed)
        if who is not None and who.lower_ in _OTHERS:
            return False  # "make sure they get enough light": advice about someone else
        verb = governed
    does = [c for c in verb.children if c.dep_ in _DOING]
    if any(g.dep_ == "poss" and g.lower_ in _OTHERS for c in does for g in c.children):
        return False  # "keep their area clean": advice about someone else's things
    return any(c.dep_ != "xcomp" or _DOING & {g.dep_ for g in c.children} for c in does)


_DOING = frozenset({"dobj", "prep", "oprd", "ccomp", "xcomp", "dative", "acomp"})
_ASKING = frozenset({"can", "could", "would", "will"})
_WANTING = frozenset({"prefer", "want", "like", "need"})
_FEELING = frozenset({"love", "appreciate", "enjoy", "miss", "adore", "hate", "admire"})
_OTHERS = frozenset({"he", "she", "they", "his", "her", "their"})  # someone else's


# -- the parse ---------------------------------------------------------------------------------


def _item(
    doc: Any,
    kind: str,
    slot: str,
    s: Statement,
    text: str | None = None,
    span: tuple[int, int] | None = None,
) -> Learned:
    a, b = span or (s.start, s.end)
    words = sorted(
        {
            t.lemma_.lower()
            for t in tokens_in(doc, a, b)
            if not (t.is_punct or t.is_space or t.is_stop) and t.lower_ not in MARKERS
        }
    )
    line = " ".join((text if text is not None else s.text).split())
    key = f"{kind}|{slot}|{' '.join(words)}"
    return Learned(kind, slot, line, s.start, s.end, key, s.change)


def _root(tokens: Sequence[Token], verbs_only: bool = True) -> Token | None:
    """The clause's main verb (its first root that is a verb); else, unless ``verbs_only``,
    its first root ("My name's Oliver Grant" has a name for its root)."""
    inside = {t.i for t in tokens}
    roots = [t for t in tokens if t.head.i == t.i or t.head.i not in inside]
    verbs = [r for r in roots if r.pos_ in ("VERB", "AUX")]
    if verbs:
        return verbs[0]
    return roots[0] if roots and not verbs_only else None


def _subject(verb: Token) -> Token | None:
    said = [c for c in verb.children if c.dep_ in SUBJECTS]
    before = [c for c in said if c.i < verb.i]
    return before[0] if before else None


def _present(verb: Token) -> bool:
    """Said of now: a present tense ("we are", "I'm", "we've become"), no modal, no past."""
    aux = [c for c in verb.children if c.dep_ in ("aux", "auxpass")]
    if any(a.tag_ in ("VBD", "MD") for a in aux):
        return False
    return verb.tag_ in ("VBP", "VBZ") or any(a.tag_ in ("VBP", "VBZ") for a in aux)


def _has_aux(verb: Token) -> bool:
    return any(c.dep_ in ("aux", "auxpass") for c in verb.children)


def _negated(verb: Token) -> bool:
    return any(c.dep_ == "neg" for c in verb.children)


def _proper(tok: Token) -> bool:
    """A name: a proper noun, or a noun phrase with one ("Wolf of Blog Street")."""
    return tok.pos_ == "PROPN" or any(
        c.dep_ == "compound" and c.pos_ == "PROPN" for c in tok.children
    )


def _named_after(verb: Token, preps: tuple[str, ...]) -> Token | None:
    """The object of one of ``preps`` hung on the verb ("renamed *to* X")."""
    for c in verb.children:
        if c.dep_ in ("prep", "dative") and c.lower_ in preps:
            pobj = parts.pobj_of(c)
            if pobj is not None:
                return pobj
    return None


def _object_is(verb: Token, lemma: str) -> bool:
    return any(c.dep_ == "dobj" and c.lemma_.lower() == lemma for c in verb.children)
