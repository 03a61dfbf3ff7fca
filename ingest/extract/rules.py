"""Inline rule-based extraction: preferences, facts (subject/predicate/object), decisions and
episodes from one turn. Pure functions over text; no I/O, so it runs inside ``recordTurn``.

Facts carry the surface subject (a name or pronoun, with its span) so the caller can map it to
a resolved entity; a fact whose subject resolves to nothing is dropped there, not here.
Pleasantries and questions produce nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from core.types import MemoryType
from ingest.extract.sentences import Sentence, is_pleasantry, split_sentences

NAME = r"[A-Z][\w&.'-]*(?:\s+(?:(?:of|de|van|von|der|the|and|&)\s+)?[A-Z][\w&.'-]*)*"
PRONOUN = r"[Hh]e|[Ss]he|[Tt]hey|[Ii]t"
OUR = "our"  # a fact's subject that is the speaker's organisation (``extraction.subject_of``)
# What "our ... is ..." states as a fact of the organisation (other sentences of that shape,
# "our team is great", are not facts with one value).
ORG_ATTRIBUTES = (
    r"(?i:deploy(?:ment)? target|office|base|city|location|headquarters|hq|main client"
    r"|biggest client|hosting provider|cloud provider|payment provider|ceo|cto|cfo)"
)
SUBJ = rf"(?P<subj>{NAME}|{PRONOUN})"
CUE = r"(?P<cue>(?i:(?:actually|correction|update|sorry|wait|no|oh|scratch that)[,:!]?\s+)*)"
OBJ_NAME = rf"(?P<obj>{NAME}|[\w.-]+)"
TAIL = (
    r"(?P<now>\s+now|\s+these days|\s+anymore)?"
    r"(?:\s+(?:last|this|next)\s+\w+|\s+in\s+\w+(?:\s+\d{4})?|\s+yesterday|\s+today)?[.!]?$"
)

_NOT_SUBJECTS = frozenset(
    [
        "this",
        "that",
        "there",
        "here",
        "what",
        "which",
        "who",
        "it's",
        "its",
        "the",
        "a",
        "an",
        "we",
        "i",
        "you",
        "our",
        "my",
        "your",
        "their",
        "everything",
        "something",
        "nothing",
        "someone",
        "everyone",
        "today",
        "tomorrow",
        "yesterday",
    ]
)
_PREDICATE_SYNONYMS = {
    "job": "role",
    "title": "role",
    "position": "role",
    "role": "role",
    "employer": "employer",
    "company": "employer",
    "location": "location",
    "city": "location",
    "office": "location",
    "headquarters": "location",
    "hq": "location",
    "base": "location",
    "deploy target": "deploy_target",
    "deployment target": "deploy_target",
}


@dataclass(frozen=True)
class Extracted:
    """One statement worth remembering, found in a turn."""

    kind: str  # fact | preference | decision | episode
    memory_type: MemoryType
    content: str
    start: int = 0  # the sentence's span in the turn
    end: int = 0
    subject: str | None = None  # surface text: a name, a pronoun, or "user" (preferences)
    subject_start: int = -1  # offset of the subject in the turn
    # "name": the subject is a name or pronoun the resolver links; "topic": a noun phrase
    # ("staging server") that stands for a concept entity of its own (``statements.py``).
    subject_kind: str = "name"
    # The subject's offset in ``content`` when the content is a statement of its own rather
    # than the sentence (one sentence stating several facts; see ``_statement``).
    subject_at: int | None = None
    predicate: str | None = None
    object: str | None = None
    negated: bool = False
    correction: bool = False  # said as a correction ("actually", "no longer", "now")
    importance: float = 0.5
    confidence: float = 0.7
    trigger: str | None = None  # procedures: when or what for (``procedures.py``)
    steps: tuple[str, ...] = ()


def predicate_of(words: str) -> str:
    """The attribute a noun phrase names: "headquarters" → "location", "main client" →
    "main_client"."""
    raw = " ".join(words.split()).lower()
    return _PREDICATE_SYNONYMS.get(raw, raw.replace(" ", "_"))


def _statement(subject: str, fact: Extracted) -> str:
    """One fact as a sentence of its own: "Peter is a writer.", "Peter works at WOBS."."""
    value = fact.object or ""
    if fact.predicate == "employer":
        return f"{subject} {'no longer works' if fact.negated else 'works'} at {value}."
    article = "" if _TITLE_OF.match(value) else ("an " if value[:1] in "aeiou" else "a ")
    return f"{subject} is {'no longer ' if fact.negated else ''}{article}{value}."


def _role_object(text: str) -> str:
    if _TITLE_OF.match(text.strip()):
        return " ".join(text.split())  # "VP of Engineering": the whole title, as said
    word = text.strip().lower()
    word = re.sub(r"^(?:new|lead|senior|junior|head|main|chief)\s+", "", word)
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


# A title with its department ("head of sales", "VP of Engineering"): the words after "of"
# stop at a preposition or a time word, so "head of sales at Acme last week" keeps its org.
TITLE = (
    r"(?i:head|director|vp|vice president|manager|chief)\s+of\s+"
    r"(?!(?:at|for|with|in|last|this|next|now)\b)[A-Za-z][\w&-]*"
    r"(?:\s+(?!(?:at|for|with|in|last|this|next|now|anymore|these)\b)[A-Za-z][\w&-]*){0,2}"
)
_TITLE_OF = re.compile(TITLE)
ROLE = rf"(?:{TITLE}|(?:new\s+|lead\s+|senior\s+|junior\s+|head\s+|main\s+)?[a-z][a-z-]{{2,30}})"
# What a correction sets the new value against: "head of marketing, not sales".
CONTRAST = r"(?P<contrast>,?\s+not\s+(?:an?\s+|the\s+)?[\w-]+(?:\s+[\w-]+){0,3})?"

_FACTS: list[tuple[str, re.Pattern[str]]] = [
    (
        "role",
        re.compile(
            rf"^{CUE}{SUBJ}\s+(?:is|was|'s)\s+(?P<neg>not\s+|no longer\s+)?(?:now\s+)?"
            r"(?:one of (?:our|the|their|his|her)\s+|(?:our|the|their|a|an|his|her)\s+)"
            r"(?P<obj>(?:new\s+|lead\s+|senior\s+|junior\s+|head\s+|main\s+)?[a-z][a-z-]{2,30})"
            rf"(?:\s+(?:at|for|with)\s+(?P<org>{NAME}))?{CONTRAST}{TAIL}"
        ),
    ),
    (
        "role",
        re.compile(
            rf"^{CUE}{SUBJ}\s+(?:is|was|'s)\s+(?P<neg>not\s+|no longer\s+)?(?:now\s+)?"
            rf"(?:(?:our|the|their|his|her)\s+)?(?P<obj>{TITLE})"
            rf"(?:\s+(?:at|for|with)\s+(?P<org>{NAME}))?{CONTRAST}{TAIL}"
        ),
    ),
    (
        "role",
        re.compile(rf"^{CUE}{SUBJ}\s+(?:now\s+)?works as an?\s+(?P<obj>[a-z][a-z-]{{2,30}}){TAIL}"),
    ),
    (
        "employer",
        re.compile(
            rf"^{CUE}{SUBJ}\s+(?P<neg>no longer\s+|doesn't\s+|does not\s+)?(?:now\s+)?"
            rf"(?:works|work|worked|is working)\s+(?:for|at)\s+{OBJ_NAME}{TAIL}"
        ),
    ),
    (
        "employer",
        re.compile(
            rf"^{CUE}{SUBJ}\s+(?:has\s+)?(?:just\s+)?joined\s+{OBJ_NAME}"
            rf"(?:\s+as\s+(?:(?:a|an|the|our|their)\s+)?(?P<role>{ROLE}))?{TAIL}"
        ),
    ),
    (
        "location",
        re.compile(
            rf"^{CUE}{SUBJ}\s+(?:is|are)\s+(?P<neg>no longer\s+|not\s+)?(?:now\s+)?"
            rf"(?:based|located|headquartered)\s+in\s+{OBJ_NAME}{TAIL}"
        ),
    ),
    (
        "location",
        re.compile(
            rf"^{CUE}{SUBJ}\s+(?:now\s+)?(?:lives|live|moved|relocated|has moved)\s+"
            rf"(?:in|to)\s+{OBJ_NAME}{TAIL}"
        ),
    ),
    (
        "deploy_target",
        re.compile(
            rf"^{CUE}(?:[Tt]he\s+)?[Dd]eploy(?:ment)?\s+target\s+(?:for|of)\s+{SUBJ}\s+is\s+(?:now\s+)?"
            rf"{OBJ_NAME}{TAIL}"
        ),
    ),
    (
        "deploy_target",
        re.compile(
            rf"^{CUE}(?:[Ww]e|[Tt]hey|I)\s+(?:now\s+)?deploy\s+{SUBJ}\s+(?:to|on)\s+{OBJ_NAME}{TAIL}"
        ),
    ),
    (
        "deploy_target",
        re.compile(
            rf"^{CUE}{SUBJ}\s+(?:is\s+(?:now\s+)?deployed|deploys|now deploys)\s+(?:to|on)\s+"
            rf"{OBJ_NAME}{TAIL}"
        ),
    ),
    (
        "belongs_to",
        re.compile(
            rf"^{CUE}{SUBJ}\s+(?:is part of|belongs to|is a division of)\s+{OBJ_NAME}{TAIL}"
        ),
    ),
    ("reports_to", re.compile(rf"^{CUE}{SUBJ}\s+(?:now\s+)?reports to\s+{OBJ_NAME}{TAIL}")),
    (
        "*",  # the speaker's organisation: "Our deploy target is AWS now", "our HQ is in Berlin"
        re.compile(
            rf"^{CUE}(?P<subj>[Oo]ur)\s+(?P<pred>{ORG_ATTRIBUTES})\s+is\s+(?:now\s+)?"
            r"(?:in\s+|an?\s+|the\s+)?(?P<obj>[\w.& -]{1,60}?)(?P<now>\s+now)?[.!]?$"
        ),
    ),
    (
        "*",  # possessive: "WOBS's main client is Anderson", "Peter's role is editor"
        re.compile(
            rf"^{CUE}{SUBJ}'s\s+(?P<pred>[a-z][a-z ]{{1,30}}?)\s+is\s+(?:now\s+)?"
            r"(?:an?\s+|the\s+)?(?P<obj>[\w.& -]{1,60}?)(?P<now>\s+now)?[.!]?$"
        ),
    ),
]

_PREFS: list[tuple[str, re.Pattern[str]]] = [
    (
        "topic",
        re.compile(
            rf"^{CUE}(?:I|we)\s+(?:really\s+|now\s+|would\s+|'d\s+)?prefer\s+(?P<obj>.+?)\s+"
            r"(?:for|when it comes to|as)\s+(?P<topic>[\w -]{2,40}?)[.!]?$",
            re.IGNORECASE,
        ),
    ),
    (
        "topic",
        re.compile(
            rf"^{CUE}(?:my|our)\s+(?:favorite|favourite|preferred)\s+(?P<topic>[\w -]{{2,40}}?)"
            r"\s+is\s+(?:now\s+)?(?P<obj>.+?)[.!]?$",
            re.IGNORECASE,
        ),
    ),
    (
        "likes",
        re.compile(
            rf"^{CUE}(?:I|we)\s+(?:really\s+|also\s+)?(?P<neg>don't\s+|do not\s+|no longer\s+)?"
            r"(?P<verb>like|love|prefer|enjoy|hate|dislike|can't stand)\s+(?P<obj>.+?)[.!]?$",
            re.IGNORECASE,
        ),
    ),
    (
        "instruction",
        re.compile(r"^(?:please\s+)?(?P<verb>always|never)\s+(?P<obj>.+?)[.!]?$", re.IGNORECASE),
    ),
]

_DECISION = re.compile(
    r"\b(?:we|I|the team)(?:\s+|(?='))(?:have\s+|'ve\s+|just\s+)?(?:decided|agreed|chose|settled on"
    r"|are going with|'re going with|will go with|'ll go with)\b|^(?:decision|final call)\s*:"
    r"|^let's go with\b",
    re.IGNORECASE,
)
_EPISODE_TIME = re.compile(
    r"\b(?:yesterday|this morning|last (?:night|week|month|year|monday|tuesday|wednesday"
    r"|thursday|friday|saturday|sunday)|earlier today"
    r"|(?:\d+|a|two|three|four|five|six|a few|several) (?:days?|weeks?|months?|years?) ago"
    r"|on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b",
    re.IGNORECASE,
)
_PAST_VERB = re.compile(
    r"\b(?:\w+ed|met|sent|went|had|did|spoke|made|got|took|gave|found|wrote|sold|bought|won"
    r"|lost|began|shipped|launched|signed|delivered|finished|called)\b",
    re.IGNORECASE,
)
_CORRECTION = re.compile(
    r"\b(?:actually|correction|no longer|not anymore|anymore|instead|scratch that|wrong"
    r"|changed|now)\b",
    re.IGNORECASE,
)


def extract(text: str) -> list[Extracted]:
    """Everything the rules find in one turn's text, in order."""
    if is_pleasantry(text):
        return []
    out: list[Extracted] = []
    for said in split_sentences(text):
        if said.text.rstrip().endswith("?"):
            continue  # questions ask; they do not state
        out.extend(sentence(said))
    return out


def sentence(s: Sentence) -> list[Extracted]:
    """What the rules find in one sentence."""
    clause = s.text.strip()
    facts = _facts(s, clause)
    if facts:
        return facts
    pref = _preference(s, clause)
    if pref is not None:
        return [pref]
    if _DECISION.search(clause):
        return [Extracted("decision", MemoryType.SEMANTIC, clause, s.start, s.end, importance=0.75)]
    if _EPISODE_TIME.search(clause) and _PAST_VERB.search(clause):
        return [Extracted("episode", MemoryType.EPISODIC, clause, s.start, s.end, importance=0.5)]
    return []


def _facts(s: Sentence, clause: str) -> list[Extracted]:
    for predicate, pattern in _FACTS:
        m = pattern.match(clause)
        if m is None:
            continue
        subj = m.group("subj")
        said = subj.casefold()
        if said in _NOT_SUBJECTS and said != OUR and not re.fullmatch(PRONOUN, subj):
            continue
        if predicate == "*" and re.fullmatch(PRONOUN, subj):
            continue  # "It's great to see ...": "it is", not a possessive
        groups = m.groupdict()
        pred = predicate
        if predicate == "*":
            pred = predicate_of(groups["pred"])
        obj = groups["obj"].strip().rstrip(".!")
        if pred == "role":
            obj = _role_object(obj)
        negated = bool(groups.get("neg"))
        correction = (
            bool(groups.get("cue"))
            or bool(groups.get("now"))
            or bool(groups.get("contrast"))
            or bool(_CORRECTION.search(clause))
        )
        base = dict(
            memory_type=MemoryType.FACT,
            content=clause,
            start=s.start,
            end=s.end,
            subject=subj,
            subject_start=s.start + m.start("subj"),
            negated=negated,
            correction=correction,
            importance=0.7,
            confidence=0.8,
        )
        out = [Extracted("fact", predicate=pred, object=obj, **base)]  # type: ignore[arg-type]
        if groups.get("org"):
            org = groups["org"].strip().rstrip(".")
            out.append(Extracted("fact", predicate="employer", object=org, **base))  # type: ignore[arg-type]
        if groups.get("role"):  # "joined Acme as head of sales"
            role = _role_object(groups["role"])
            out.append(Extracted("fact", predicate="role", object=role, **base))  # type: ignore[arg-type]
        if len(out) > 1:
            # Each fact of the sentence says only itself: when one is corrected later, the
            # other must not carry the old value on in its text.
            out = [replace(e, content=_statement(subj, e), subject_at=0) for e in out]
        return out
    return []


def _preference(s: Sentence, clause: str) -> Extracted | None:
    for kind, pattern in _PREFS:
        m = pattern.match(clause)
        if m is None:
            continue
        groups = m.groupdict()
        obj = groups["obj"].strip()
        if kind == "likes" and obj.lower().startswith("to "):
            return None  # "I like to think..." is not a stated preference about a thing
        verb = (groups.get("verb") or "").lower()
        negated = bool(groups.get("neg")) or verb in {"hate", "dislike", "can't stand", "never"}
        if kind == "topic":
            predicate = "preference:" + " ".join(groups["topic"].lower().split())
        elif kind == "instruction":
            predicate = "instruction"
        else:
            predicate = "likes"
        return Extracted(
            "preference",
            MemoryType.PREFERENCE,
            clause,
            s.start,
            s.end,
            subject="user",
            predicate=predicate,
            object=obj,
            negated=negated,
            correction=bool(groups.get("cue")) or bool(_CORRECTION.search(clause)),
            importance=0.7,
            confidence=0.8,
        )
    return None
