"""Which sentences of a user's turn are core memory: the business's identity, the speaker's own
name and role, an active project and its state, a standing rule. Read from the parse the turn
already has and from its statements (``ingest/slots/analysis.py``): only a sentence said as so
(its mood) about *us* or *me* (its subject) counts, so a question ("are we still called
WOBS?"), a supposition ("if we were called X ..."), someone else's view ("Tom says we should
call it X"), a plan or a story of the past is never core. Rules come from the preferences and
rules the extractor already found (``ingest/extract/statements/prefs.py``).

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
from typing import Any

from core.statements import (
    ASSERT,
    EVENT,
    Statement,
)
from ingest.extract.rules import Extracted
from ingest.extract.statements import parts
from ingest.extract.statements.words import CHANGE_VERBS
from ingest.learned.common import (
    BUSINESS,
    GENERIC_WORK,
    MAX_CHARS,
    PROJECT,
    Learned,
    Token,
    has_aux,
    item_of,
    named_after,
    negated,
    object_is,
    present,
    proper,
    root_of,
    subject_of,
)
from ingest.learned.people import HOLDING, PARTICULAR, selves
from ingest.learned.standing import rules_in
from ingest.slots.grammar import MARKERS
from ingest.slots.values import tokens_in

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
        verb = root_of(tokens, verbs_only=False)
        if verb is None or negated(verb):
            continue
        out += _business(doc, s, verb) or selves(doc, s, verb) or _project(doc, s, verb)
    learned = {item.start for item in out}  # "from now on, call me Sam": a name, once
    out += [r for r in rules_in(doc, said, extracted) if r.start not in learned]
    seen: set[str] = set()
    unique = []
    for item in out:
        if item.key not in seen:
            seen.add(item.key)
            unique.append(item)
    return unique


# -- business ----------------------------------------------------------------------------------


def _business(doc: Any, s: Statement, verb: Token) -> list[Learned]:
    subj = subject_of(verb)
    if subj is None or not _ours(subj):
        return []
    if _names(verb, subj, s):
        return [item_of(doc, BUSINESS, "business:name", s)]
    if s.mood == ASSERT and _trades(verb, subj):
        return [item_of(doc, BUSINESS, "business:what", s)]
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
    if lemma.startswith(RENAMING) or lemma == "change" and object_is(verb, "name"):
        # "we renamed (the company) to X"; not "we renamed the mobile app to X"
        obj = next((c for c in verb.children if c.dep_ == "dobj"), None)
        ours = obj is None or obj.lemma_.lower() in ORG_NOUNS | {"name", "ourselves"}
        return ours and s.mood in (ASSERT, EVENT) and named_after(verb, ("to", "as")) is not None
    if s.mood != ASSERT or not present(verb):
        return False
    if lemma == "be":
        attr = next((c for c in verb.children if c.dep_ in ("attr", "oprd")), None)
        return attr is not None and proper(attr)
    if lemma in NAMING and subj.dep_ == "nsubjpass":
        named = next((c for c in verb.children if c.dep_ in ("oprd", "attr")), None)
        named = named or named_after(verb, ("as",))
        return named is not None and proper(named)
    if lemma == "go":
        named = named_after(verb, ("by",))
        return named is not None and proper(named)
    return False


def _trades(verb: Token, subj: Token) -> bool:
    """What the business is or does, now: "we're a link-building agency", "we do link
    building", "we specialise in B2B SaaS"."""
    lemma = verb.lemma_.lower()
    if lemma == "be":
        attr = next((c for c in verb.children if c.dep_ == "attr"), None)
        return (
            present(verb)
            and attr is not None
            and attr.lemma_.lower() in ORG_NOUNS
            and any(c.dep_ == "det" and c.lower_ in ("a", "an") for c in attr.children)
        )
    if lemma not in TRADE or verb.tag_ not in ("VBP", "VBZ") or has_aux(verb):
        return False
    if lemma in ("specialise", "specialize"):
        return named_after(verb, ("in",)) is not None
    obj = next((c for c in verb.children if c.dep_ == "dobj"), None)
    if obj is None or obj.pos_ not in ("NOUN", "PROPN") or parts.judged(obj):
        return False  # "we make a great team": a judgement of ourselves, no trade
    # a trade's object is a kind of thing ("link building", "refurbished laptops"), not a
    # particular one ("we host *the docs* on Netlify")
    return not any(c.dep_ in ("det", "poss") and c.lower_ in PARTICULAR for c in obj.children)


# -- self --------------------------------------------------------------------------------------


# -- projects ----------------------------------------------------------------------------------


def _project(doc: Any, s: Statement, verb: Token) -> list[Learned]:
    if s.mood != ASSERT:
        return []
    subj = subject_of(verb)
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
        worked = worked or named_after(verb, ("on", "to")) is not None
        if worked:
            return [item_of(doc, PROJECT, _project_slot(tokens, subj), s)]
        return []
    stated = lemma == "be" and _stated_state(verb) or verb.lower_ in STATES
    if stated and present(verb) and _a_work(subj):
        return [item_of(doc, PROJECT, _project_slot(tokens, subj), s)]
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
            and t.lemma_.lower() not in GENERIC_WORK | STATES | STATE_PREPS
            and t.lower_ not in MARKERS
            and t.is_alpha
        }
    )
    return "project:" + " ".join(stems)


# -- rules -------------------------------------------------------------------------------------


# -- the parse ---------------------------------------------------------------------------------
