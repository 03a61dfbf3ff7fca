"""Procedures from conversation: how the user says a thing is done, as a ``procedural`` memory
with a ``trigger`` (when or what for) and ``steps``.

Shapes read (sequencing words and the openers are closed lists, so plain patterns suffice):

    "To <goal>, <step>, <step> and <step>."               trigger = goal
    "Whenever/When/Every time <situation>, <steps>."      trigger = situation
    "The process/procedure/workflow for <goal> is: ..."   trigger = goal
    "Here's how to <goal>: first ..., then ..., finally ..."
    "1. ... 2. ..." or "first ..., then ..." after a sentence naming the goal

A procedure is a single-valued statement about its goal (subject ``procedures``, predicate
``procedure:<goal>``): stating the process for the same goal again supersedes it. A later
change of one of its parameters ("the threshold is now 90%") supersedes it with a new
version (``parameter_update``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from core.types import Memory, MemoryType
from ingest.extract.rules import Extracted
from ingest.extract.sentences import is_pleasantry

SUBJECT = "procedures"  # the subject of every procedure of a tenant (its goal is the predicate)
PREDICATE = "procedure"

_GOAL = re.compile(
    r"^(?:(?:ok(?:ay)?|so|also|and|btw|fyi)[,:]?\s+)*"
    r"(?:(?P<to>to|in order to)\s+(?P<goal>(?:[^,:;]|,(?=\d)){4,160}?)\s*(?:,(?!\d)|:)"
    r"|(?P<when>whenever|every time|each time|when(?:ever)?|if)\s+"
    r"(?P<situation>(?:[^,:;]|,(?=\d)){4,160}?)\s*(?:,(?!\d)|:)"
    r"|(?:the|our)\s+(?:process|procedure|workflow|steps?|routine)\s+(?:for|to|of)\s+"
    r"(?P<named>[^,:;]{3,120}?)\s+(?:is|are|goes|looks like)\s*:?"
    r"|here(?:'s| is)\s+how\s+(?:to|we|I)\s+(?P<how>[^,:;]{3,120}?)\s*:"
    r"|(?P<order>before|after|once)\s+(?P<moment>(?:[^,:;]|,(?=\d)){4,160}?)\s*(?:,(?!\d)|:)"
    r"|the\s+way\s+(?:we|I)\s+(?:do|handle|run|deal with)\s+(?P<way>[^,:;]{3,120}?)\s+is\s*:?"
    r")\s*(?P<rest>.+)$",
    re.IGNORECASE | re.DOTALL,
)
_SPLIT = re.compile(
    r"\s*(?:;|,?\s+and\s+then\s+|,?\s+then\s+|,\s+and\s+|,\s+|\s+and\s+(?=[a-z]+\s)"
    r"|\s+after\s+that,?\s+|\s+finally,?\s+|\s*\b\d+[.)]\s+)\s*",
    re.IGNORECASE,
)
_LEAD = re.compile(
    r"^(?:first(?:ly)?|second(?:ly)?|third(?:ly)?|next|then|finally|lastly|after that|and)"
    r"[,:]?\s+",
    re.IGNORECASE,
)
_NUMBERED = re.compile(r"(?:^|\s)(?:1[.)]|first(?:ly)?,?)\s+.+(?:\s2[.)]|\bthen\b)", re.I | re.S)
# An imperative step starts with a verb; a sentence of description does not ("it is fine").
_NOT_STEP = re.compile(
    r"^(?:(?:it|its|it's|this|that|these|those|there|we|i|i'm|you|they|he|she|the|a|an|my|our"
    r"|your|his|her|their|all|some|everything|nothing|something|someone|everyone|no|not)\b"
    r"|\w+(?:ed|ing)\b|\w*[^s\W]s\b)",
    re.IGNORECASE,
)
QUANTITY = re.compile(r"(?<![\w.])(\d+(?:[.,]\d+)?)\s*(%|percent\b|[a-zA-Z€$£]+)?")


@dataclass(frozen=True)
class Procedure:
    trigger: str
    steps: tuple[str, ...]


def extract(text: str, doc: Any = None) -> list[Extracted]:
    """The procedure a turn teaches, if it teaches one (at most one per turn); ``doc``: the
    turn's parse, for the shapes only the parse tells (``from_parse``)."""
    if is_pleasantry(text) or text.rstrip().endswith("?"):
        return []
    found = parse(text)
    if found is None and doc is not None:
        found = from_parse(doc)
    if found is None:
        return []
    content = " ".join(text.split())
    return [
        Extracted(
            "procedure",
            MemoryType.PROCEDURAL,
            content,
            0,
            len(text),
            subject=SUBJECT,
            predicate=f"{PREDICATE}:{goal_key(found.trigger)}",
            object=" | ".join(found.steps),
            correction=bool(re.search(r"\b(?:now|from now on|instead)\b", text, re.I)),
            importance=0.8,
            confidence=0.75,
            trigger=found.trigger,
            steps=found.steps,
        )
    ]


def with_procedure(statements: list[Extracted], procedure: list[Extracted]) -> list[Extracted]:
    """A turn's statements beside the procedure it teaches: its imperative steps are the
    procedure's, not preferences of their own."""
    if not procedure:
        return statements
    return [*procedure, *[s for s in statements if s.kind != "preference"]]


# "Month-end close checklist: ...", "Steps for publishing a blog post: ...", "Our process for
# approving expenses: ...", "New client routine: ...": a heading that names a process.
_HEADED = re.compile(
    r"^(?P<head>[^:.!?]{3,90}?)\s*(?:is|are)?\s*:\s*(?P<rest>.+)$", re.IGNORECASE | re.DOTALL
)
# the nouns that name a process ("checklist", "our expense policy", "my rule for the fig")
_PROCESS = (
    r"(?:process|procedure|workflow|steps?|checklist|routine|playbook|sop|rules?"
    r"|polic(?:y|ies)|guidelines?|protocol|instructions)"
)
_PROCESS_WORDS = re.compile(
    rf"\b(?:{_PROCESS}|method|recipe|runbook|(?<!by )the way|how (?:we|to|I))\b", re.IGNORECASE
)


def parse(text: str) -> Procedure | None:
    """Trigger and steps of a procedure stated in ``text``, else None."""
    flat = " ".join(text.split())
    lead_in = _after_lead_in(flat)
    headed = _HEADED.match(flat) or _HEADED.match(lead_in)
    if headed is not None and _PROCESS_WORDS.search(headed.group("head")):
        steps = _steps(headed.group("rest"), strict=False)
        if len(steps) >= 2:
            trigger = _trigger_of(headed.group("head"))
            if lead_in != flat and len(trigger.split()) < 2:  # "…on returns. Our process:"
                trigger = flat[: len(flat) - len(lead_in)].strip().rstrip(".!?")
            return Procedure(trigger, steps)
    m = _GOAL.match(flat)
    if m is not None:
        trigger = next(
            m.group(g)
            for g in ("goal", "situation", "named", "how", "moment", "way")
            if m.group(g) is not None
        )
        if m.group("when"):
            trigger = f"{m.group('when').lower()} {trigger}"
        if m.group("order"):
            trigger = f"{m.group('order').lower()} {trigger}"
        steps = _steps(m.group("rest"))
        # One step is a procedure after "to", "when" or "the process for"; after "if" it is
        # a request ("If possible, call me"), so "if" needs two.
        when = (m.group("when") or "").lower()
        # ("before you suggest any recipe, always check it's nut-free": a standing rule)
        single = (
            m.group("to")
            or m.group("named")
            or m.group("way")
            or m.group("order")
            or (when and when != "if")
        )
        if steps and (len(steps) >= 2 or single):
            return Procedure(trigger.strip(), steps)
        return None
    if _NUMBERED.search(flat):
        head, _, rest = re.split(r"(?<=[.:])\s+", flat, maxsplit=1)[0], "", flat
        body = flat[len(head) :].strip() or rest
        steps = _steps(body)
        if len(steps) >= 2 and head.rstrip(".:").strip():
            return Procedure(head.rstrip(".:").strip(), steps)
    return None


_WHEN = frozenset({"when", "whenever", "before", "after", "once"})


def from_parse(doc: Any) -> Procedure | None:
    """A standing instruction without the comma the patterns need: an imperative sentence
    (its main verb has no subject) led by a clause saying when ("when you summarize meeting
    notes for me keep it to 5 bullets max and put the action items in bold at the end").
    The trigger is the leading clause; the steps, the rest of the sentence."""
    for sentence in doc.sents:
        root = sentence.root
        if root.pos_ not in ("VERB", "AUX") or any(
            c.dep_ in ("nsubj", "nsubjpass", "expl") for c in root.children
        ):
            continue
        lead = next(
            (
                c
                for c in root.children
                if c.dep_ == "advcl"
                and c.i < root.i
                and any(g.lower_ in _WHEN and g.dep_ in ("mark", "advmod") for g in c.children)
            ),
            None,
        )
        if lead is None:
            continue
        start = min(t.i for t in lead.subtree)
        end = max(t.i for t in lead.subtree)
        if start != sentence.start:
            continue  # the clause saying when leads the sentence
        trigger = doc[start : end + 1].text.strip(" ,")
        steps = _steps(doc[end + 1 : sentence.end].text.strip(" ,.!"), strict=False)
        if steps and len(trigger.split()) >= 3:
            return Procedure(trigger, steps)
    return None


def _after_lead_in(flat: str) -> str:
    """A heading after a sentence that leads into it ("Training the new Saturday staff on
    returns. Our process: check the receipt, ..."): the text from the last sentence before
    the first colon."""
    colon = flat.find(":")
    if colon < 0:
        return flat
    stop = max(flat.rfind(". ", 0, colon), flat.rfind("! ", 0, colon), flat.rfind("? ", 0, colon))
    return flat[stop + 2 :] if stop >= 0 else flat


def _steps(rest: str, strict: bool = True) -> tuple[str, ...]:
    """The steps of a procedure's body. ``strict``: it must open with an instruction (a
    sentence that only describes is no step, and goes on the step before it); under a
    heading that names a process, a rule ("anything under £250 the team lead can sign off")
    is a step too."""
    parts = [_LEAD.sub("", p.strip(" .!")) for p in _SPLIT.split(rest.strip())]
    steps = [p for p in parts if len(p) >= 3]
    if not strict or not steps:
        return tuple(steps)
    if _NOT_STEP.match(_ADVERB.sub("", steps[0])):
        return ()
    # a part that only describes goes on the instruction before it ("always check it's
    # nut-free and that it takes 45 minutes or less, we're shattered on weeknights")
    out: list[str] = []
    for part in steps:
        if out and _NOT_STEP.match(_ADVERB.sub("", part)):
            out[-1] = f"{out[-1]}, {part}"
        else:
            out.append(part)
    return tuple(out)


# "always pick ...", "please send ...": the verb after the adverb says whether it is a step
_ADVERB = re.compile(r"^(?:always|never|please|also|just|then|only)\s+", re.IGNORECASE)


def _trigger_of(head: str) -> str:
    """What a process heading is for: "Steps for publishing a blog post" → "publishing a blog
    post"; "Month-end close checklist" → "month-end close"."""
    words = re.sub(
        rf"^(?:(?:our|the|my|a)\s+)?(?:{_PROCESS}\s+(?:for|to|of|on)\s+)?",
        "",
        head.strip(),
        flags=re.IGNORECASE,
    )
    words = re.sub(
        rf"\s+{_PROCESS}$",
        "",
        words,
        flags=re.IGNORECASE,
    )
    return words.strip() or head.strip()


def goal_key(trigger: str) -> str:
    """The goal as the procedure's attribute: lower case, words only."""
    return " ".join(re.findall(r"[\w%]+", trigger.lower()))[:120]


def parameter_update(procedure: Memory, old: str | None, new: str) -> Memory | None:
    """``procedure`` with one parameter changed to ``new`` ("90%"), or None when the new value
    does not name exactly one of its parameters. The parameter is the one equal to ``old``
    (the value the change replaced) when given; else the only quantity with ``new``'s unit."""
    new_q = QUANTITY.fullmatch(new.strip())
    if new_q is None:
        return None
    unit = _unit(new_q.group(2))
    found = [q for q in QUANTITY.finditer(procedure.content) if _unit(q.group(2)) == unit]
    if old is not None:
        same = [q for q in found if q.group(0).replace(" ", "") == old.replace(" ", "")]
        found = same or found
    if len(found) != 1 or found[0].group(0).replace(" ", "") == new.replace(" ", ""):
        return None
    said = found[0].group(0)
    replaced = new.strip() + (" " if said.endswith(" ") else "")
    content = procedure.content.replace(said, replaced, 1)
    steps = tuple(s.replace(said.strip(), new.strip(), 1) for s in procedure.steps)
    return procedure.model_copy(update={"content": content, "steps": steps})


def _unit(unit: str | None) -> str:
    word = (unit or "").lower()
    return "%" if word in {"%", "percent"} else word
