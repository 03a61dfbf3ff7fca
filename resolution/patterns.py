"""Surface patterns: alias declarations, type declarations and simple relations.

Regular expressions over the raw text, so they run without spaCy and are cheap to test
(property tests in ``tests/unit/resolution``). Names are capitalised phrases that may contain
lower-case connectors ("Wolf of Blog Street", "Banco de España").

>>> [(a.name, a.alias) for a in find_aliases("Wolf of Blog Street, also known as WOBS")]
[('Wolf of Blog Street', 'WOBS')]
>>> find_relations("Peter is one of our writers")[0]
RelationMention(subject='Peter', relation='role', object='writer')
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.types import EntityType
from resolution.cues import KIN, find_cues
from resolution.cues import OURS as OURS  # re-exported: the marker callers know from here
from resolution.types import AliasDeclaration, RelationMention

_WORD = r"[A-Z0-9][\w&'’.-]*[\w&]|[A-Z]"
_CONNECT = r"(?:of|the|and|&|de|del|der|van|von|la|le|da|du|for)"
NAME = rf"(?:{_WORD})(?:[ \t]+(?:{_CONNECT}[ \t]+)?(?:{_WORD}))*"

_ALIAS_PATTERNS = [
    re.compile(rf"({NAME}),?\s+(?:also known as|aka|a\.k\.a\.?|also called)\s+({NAME})"),
    re.compile(rf"({NAME})\s+\(([A-Z][A-Z0-9&.]{{1,9}})\)"),  # "Wolf of Blog Street (WOBS)"
    re.compile(rf"({NAME}),?\s+or\s+({NAME})\s+for short"),
    re.compile(rf"(?:we|they|everyone) calls?\s+({NAME})\s+[\"“]?({NAME})[\"”]?"),
]

_TYPE_WORDS: dict[str, EntityType] = {
    **dict.fromkeys(
        [
            "company",
            "agency",
            "firm",
            "business",
            "client",
            "customer",
            "employer",
            "startup",
            "vendor",
            "supplier",
            "partner",
            "organisation",
            "organization",
            "team",
            "publisher",
        ],
        EntityType.ORG,
    ),  # fmt: skip
    **dict.fromkeys(["project", "order", "campaign", "product", "account"], EntityType.PROJECT),
    **dict.fromkeys(["tool", "app", "system", "service", "platform", "server"], EntityType.SYSTEM),
    **dict.fromkeys(["city", "town", "country", "office", "region"], EntityType.PLACE),
    **dict.fromkeys(["process", "workflow", "procedure", "pipeline"], EntityType.PROCESS),
}
_TYPE_WORD = "|".join(sorted(_TYPE_WORDS, key=len, reverse=True))
_TYPE_PATTERNS = [
    re.compile(
        rf"\b(?:[Tt]he|[Oo]ur|[Mm]y|[Tt]heir)\s+({_TYPE_WORD})(?:'s name)?\s+"
        rf"(?:is|was|is called|was called|is named)\s+({NAME})"
    ),
    re.compile(rf"({NAME})\s+(?:is|was)\s+(?:a|an|our|my|the)\s+(?:\w+\s+)?({_TYPE_WORD})\b"),
    # An introduction: "a new client, Brightwave", "a client called Brightwave", "our new
    # vendor Papercut". A bare "the client Peter mentioned" is not one (no comma, "called"
    # or "new"): a capitalised word after a type word is not always that thing's name.
    re.compile(
        rf"\b(?:[Aa]n?|[Oo]ur|[Mm]y|[Tt]he|[Tt]heir)\s+(?:(?:new|first|biggest|largest)\s+)?"
        rf"({_TYPE_WORD})(?:,\s*|\s+(?:called|named)\s+)({NAME})"
    ),
    re.compile(rf"\b(?:[Aa]n?|[Oo]ur|[Mm]y|[Tt]he|[Tt]heir)\s+new\s+({_TYPE_WORD})\s+({NAME})"),
]

_ROLE = r"([a-z][a-z-]+(?: (?!(?:at|of|for|with|in|and|who|that)\b)[a-z][a-z-]+)?)"
_ROLE_PATTERNS = [
    # "Peter is one of our writers", "Anna is our editor", "Tom is the CTO at Acme"
    re.compile(
        rf"({NAME})\s+(?:is|was|has been)\s+(?:one of\s+)?(our|my|the|a|an)\s+"
        rf"{_ROLE}(?:\s+(?:at|of|for|with)\s+({NAME}))?"
    ),
]
_RELATION_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("works_for", re.compile(rf"({NAME})\s+(?:works|worked|is working)\s+(?:for|at)\s+({NAME})")),
    (
        "belongs_to",
        re.compile(
            rf"({NAME})\s+(?:is|are|was)\s+(?:part of|owned by|a (?:division|team|"
            rf"subsidiary|unit|department) of)\s+({NAME})"
        ),
    ),
    (
        "located_in",
        re.compile(
            rf"({NAME})\s+(?:is|are|was)?\s*(?:based|located|headquartered|lives|living)\s+in\s+"
            rf"({NAME})"
        ),
    ),
]
_NOT_ROLES = frozenset({"lot", "bit", "few", "good", "great", "new", "big", "little"})
_STOP_NAMES = frozenset({"I", "We", "You", "He", "She", "They", "It", "The", "A", "An", "This"})


@dataclass(frozen=True)
class TypeDeclaration:
    """ "The company is Wolf of Blog Street" → name="Wolf of Blog Street", type=org."""

    name: str
    type: EntityType
    # Where the type word is ("... is the project manager": "project" at 17), so the parse
    # can tell a kind ("is our project") from a word inside a role ("project manager").
    at: int = field(default=-1, compare=False)


def _clean(name: str) -> str:
    return name.strip().rstrip(".,;:").strip()


def _ok(name: str) -> bool:
    return bool(name) and name not in _STOP_NAMES


def find_aliases(text: str) -> list[AliasDeclaration]:
    """Alias declarations ("X, also known as Y", "X aka Y", "X (ABC)", "X, or Y for short")."""
    out: list[AliasDeclaration] = []
    for pattern in _ALIAS_PATTERNS:
        for m in pattern.finditer(text):
            name, alias = _clean(m.group(1)), _clean(m.group(2))
            if _ok(name) and _ok(alias) and name.casefold() != alias.casefold():
                out.append(AliasDeclaration(name=name, alias=alias))
    return list(dict.fromkeys(out))


def find_type_declarations(text: str) -> list[TypeDeclaration]:
    """Names whose kind the text states ("the company is X", "X is a small agency")."""
    out: list[TypeDeclaration] = []
    stated, described, *introduced = _TYPE_PATTERNS
    for pattern in (stated, *introduced):  # type word first, then the name
        for m in pattern.finditer(text):
            out.append(TypeDeclaration(_clean(m.group(2)), _TYPE_WORDS[m.group(1).lower()]))
    for m in described.finditer(text):
        if _ok(_clean(m.group(1))):
            out.append(
                TypeDeclaration(_clean(m.group(1)), _TYPE_WORDS[m.group(2).lower()], at=m.start(2))
            )
    return [d for d in dict.fromkeys(out) if _ok(d.name)]


def _singular(word: str) -> str:
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def find_relations(text: str) -> list[RelationMention]:
    """Role, works-for, belongs-to and located-in statements between names, and the identity
    cues of ``cues.py`` (relation to the speaker, client-of, roles of several words)."""
    out: list[RelationMention] = find_cues(text)
    roled = {r.subject for r in out if r.relation == "role"}
    for m in _ROLE_PATTERNS[0].finditer(text):
        subject, owner, role, org = _clean(m.group(1)), m.group(2), m.group(3), m.group(4)
        role = _singular(role.split()[-1]) if " " in role else _singular(role)
        if not _ok(subject) or role in _NOT_ROLES or role in _TYPE_WORDS or subject in roled:
            continue
        if role in KIN:
            continue  # "Sarah is my cousin": a relation to the speaker (cues.py)
        out.append(RelationMention(subject=subject, relation="role", object=role))
        if org:
            out.append(RelationMention(subject=subject, relation="works_for", object=_clean(org)))
        elif owner.lower() == "our":
            out.append(RelationMention(subject=subject, relation="works_for", object=OURS))
    for relation, pattern in _RELATION_PATTERNS:
        for m in pattern.finditer(text):
            subject, obj = _clean(m.group(1)), _clean(m.group(2))
            if _ok(subject) and _ok(obj):
                out.append(RelationMention(subject=subject, relation=relation, object=obj))
    return list(dict.fromkeys(out))
