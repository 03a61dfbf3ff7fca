"""Identity cues: what a sentence says about who a named person is.

"My cousin Sarah", "Sarah from the law firm Brandt & Voss", "Sarah Okafor is the head of
procurement at our client Dunmore Foods", "Sarah, our designer": the relation to the speaker,
the organisation, the role. They become relations and tags of the entity
(``related_to_speaker``, ``works_for``, ``client_of``, ``role``), and the write path compares
them with what is known about every same-named candidate (``identity.py``) to tell a new
person from a known one. Closed lists and surface patterns over the raw text, like
``patterns.py``, so they run without spaCy and are cheap to test.

>>> [(r.subject, r.relation, r.object) for r in find_cues("My cousin Sarah teaches piano")]
[('Sarah', 'related_to_speaker', 'cousin')]
"""

from __future__ import annotations

import re

from resolution.types import RelationMention

# The speaker's own organisation ("our writers", "my team"): the resolver maps it to the
# session's scene organisation.
OURS = "@ours"

KIN = frozenset(
    {"cousin", "sister", "brother", "mother", "mum", "mom", "father", "dad", "aunt", "uncle",
     "niece", "nephew", "wife", "husband", "partner", "son", "daughter", "grandmother",
     "grandfather", "grandma", "grandpa", "granddaughter", "grandson", "friend", "neighbour",
     "neighbor", "flatmate", "roommate", "boyfriend", "girlfriend", "fiancee", "fiance",
     "stepmother", "stepfather", "stepsister", "stepbrother", "godmother", "godfather",
     "sister-in-law", "brother-in-law", "mother-in-law", "father-in-law", "landlord",
     "landlady", "childhood friend", "best friend", "old friend"}
)  # fmt: skip
# Nouns that say "an organisation" after "from the …" / "at our …" ("the law firm X").
ORG_NOUNS = frozenset(
    {"firm", "agency", "company", "studio", "bank", "client", "customer", "supplier",
     "vendor", "partner", "practice", "school", "university", "startup", "consultancy",
     "publisher", "shop", "group", "team", "charity", "hospital", "clinic", "office",
     "provider", "host", "distributor", "retailer", "lab", "label", "brewery", "bakery",
     "restaurant", "cafe", "gallery", "museum", "newspaper", "magazine", "council"}
)  # fmt: skip
CLIENT_NOUNS = frozenset({"client", "customer"})

_WORD = r"[A-Z0-9][\w&'’.-]*[\w&]|[A-Z]"
_CONNECT = r"(?:of|the|and|&|de|del|der|van|von|la|le|da|du|for)"
NAME = rf"(?:{_WORD})(?:[ \t]+(?:{_CONNECT}[ \t]+)?(?:{_WORD}))*"
_KIN = "|".join(sorted((re.escape(k) for k in KIN), key=len, reverse=True))
_ORGN = "|".join(sorted(ORG_NOUNS, key=len, reverse=True))
_STOP = (
    r"(?:at|for|with|in|and|who|that|from|to|on|by|since|but|or|of|also|which|is|was|now|"
    r"today|again|too|anymore|already|still|here|there|then|yet)\b"
)
# A role: up to four lower-case words, "of" allowed inside ("head of procurement").
_ROLE = rf"((?!{_STOP})[a-z][a-z-]+(?:\s+(?:of\s+)?(?!{_STOP})[a-z][a-z-]+){{0,3}})"
_TITLE = r"(CEO|CTO|CFO|COO|CMO|CIO|VP|SEO lead|PM)"
# " at our client Dunmore Foods", " at the law firm X", " at X", " of X"
_AT_ORG = (
    rf"(?:\s+(?:at|for|with|of)\s+(?:(our|the|a|an|their)\s+)?(?:([a-z]+)\s+)?"
    rf"(?:({_ORGN})\s+)?({NAME}))?"
)

_KIN_BEFORE = re.compile(rf"\b[Mm]y\s+({_KIN})\s+({NAME})")  # "my cousin Sarah"
_KIN_AFTER = re.compile(rf"({NAME}),?\s+(?:is\s+)?my\s+({_KIN})\b")  # "Sarah, my cousin"
_FROM_ORG = re.compile(  # "Sarah from the law firm Brandt & Voss", "Sarah from Brightpath"
    rf"({NAME})\s+(?:from|at)\s+(?:(the|our|a|an|their)\s+)?(?:([a-z]+)\s+)?(?:({_ORGN})\s+)?({NAME})"
)
_IS_ROLE = re.compile(  # "Sarah Okafor is the head of procurement at our client Dunmore Foods"
    rf"({NAME})\s+(?:is|was|has been|works as)\s+(?:one of\s+)?(our|my|the|a|an|their)\s+"
    rf"(?:{_TITLE}|{_ROLE}){_AT_ORG}"
)
_APPOSED = re.compile(  # "Sarah, our designer", "Tom, the CTO of Acme", "Anna, head of sales at X"
    rf"({NAME}),\s+(?:(our|my|the|a|an|their)\s+)?(?:{_TITLE}|{_ROLE}){_AT_ORG}"
)
_ROLE_BEFORE = re.compile(
    rf"\b(?:[Oo]ur|[Tt]heir)\s+(?:{_TITLE}|{_ROLE})\s+({NAME})"
)  # "our designer Sarah"
_CLIENT = re.compile(
    rf"\b(?:[Oo]ur|[Tt]heir)\s+(?:new\s+|biggest\s+|main\s+)?(client|customer)\s+({NAME})"
)
_NOT_ROLES = frozenset(
    {"lot", "bit", "few", "good", "great", "new", "big", "little", "way", "one", "thing",
     "time", "day", "week", "year", "man", "woman", "guy", "person", "people", "idea",
     "problem", "question", "answer", "reason", "same", "best", "only", "first", "last"}
)  # fmt: skip
_STOP_NAMES = frozenset(
    {"I", "We", "You", "He", "She", "They", "It", "The", "A", "An", "This", "That", "My", "Our",
     "CEO", "CTO", "CFO", "COO", "CMO", "CIO", "VP", "PM"}
)  # fmt: skip


# Sentence-initial words a capitalised-name pattern swallows ("Ask Sarah from Brightpath").
LEADING = frozenset(
    {"ask", "tell", "call", "email", "ping", "remind", "send", "thank", "thanks", "meet",
     "invite", "text", "message", "cc", "when", "if", "did", "does", "do", "has", "have",
     "had", "can", "could", "will", "would", "should", "please", "yesterday", "today",
     "tomorrow", "then", "so", "and", "but", "also", "maybe", "hey", "hi", "hello", "dear",
     "what", "where", "who", "why", "how", "is", "was", "check", "let", "get", "see",
     "yes", "no", "ok", "okay", "oh", "well", "just", "only", "even", "after", "before"}
)  # fmt: skip


def _clean(name: str) -> str:
    words = name.strip().rstrip(".,;:").strip().split(" ")
    while len(words) > 1 and words[0].lower() in LEADING:
        words = words[1:]
    return " ".join(words)


_PLURAL_ONLY = frozenset({"sales", "operations", "logistics", "analytics", "news", "affairs"})


def _singular(word: str) -> str:
    if word in _PLURAL_ONLY:
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def role_phrase(text: str) -> str | None:
    """A role as stored: lower case, last word singular ("head of procurement", "writer");
    None for words that are no role ("a lot", "a great one")."""
    words = text.lower().split()
    if not words or words[0] in _NOT_ROLES or words[-1] in _NOT_ROLES:
        return None
    if words[-1] in ORG_NOUNS or words[-1] in KIN:
        return None
    return " ".join([*words[:-1], _singular(words[-1])])


def _ok(name: str) -> bool:
    return bool(name) and name.split()[0] not in _STOP_NAMES


def _org_rel(
    subject: str, owner: str | None, noun: str | None, org: str | None
) -> list[RelationMention]:
    """works_for the named organisation; "our client X" also makes X ``client_of`` us."""
    if not org or not _ok(_clean(org)):
        return []
    name = _clean(org)
    out = [RelationMention(subject, "works_for", name)]
    if noun in CLIENT_NOUNS and (owner or "").lower() == "our":
        out.append(RelationMention(name, "client_of", OURS))
    return out


def find_cues(text: str) -> list[RelationMention]:
    """Relations a sentence states about a person: ``related_to_speaker`` (kin and friends),
    ``role`` (a job title, never an organisation), ``works_for`` (the organisation, or
    ``OURS`` for "our designer"), and ``client_of`` for "our client X"."""
    out: list[RelationMention] = []
    for m in _KIN_BEFORE.finditer(text):
        if _ok(_clean(m.group(2))):
            out.append(RelationMention(_clean(m.group(2)), "related_to_speaker", m.group(1)))
    for m in _KIN_AFTER.finditer(text):
        if _ok(_clean(m.group(1))):
            out.append(RelationMention(_clean(m.group(1)), "related_to_speaker", m.group(2)))
    for m in _FROM_ORG.finditer(text):
        subject = _clean(m.group(1))
        adjective, noun = m.group(3), m.group(4)
        if not _ok(subject) or (adjective and not noun):
            continue  # "Sarah from the big Brightpath": a descriptor we do not know
        out.extend(_org_rel(subject, m.group(2), noun, m.group(5)))
    for m in _IS_ROLE.finditer(text):
        out.extend(_role_match(m))
    for m in _APPOSED.finditer(text):
        # "Sarah, our designer", "Anna, head of sales at Globex"; but "Caroline, thanks!" and
        # "Mel, family love is the best" address someone: a bare apposition needs its org.
        if m.group(2) or m.group(3) or m.group(8):
            out.extend(_role_match(m))
    for m in _ROLE_BEFORE.finditer(text):
        role = m.group(1) or role_phrase(m.group(2) or "")
        subject = _clean(m.group(3))
        if role and _ok(subject):
            out.append(RelationMention(subject, "role", role))
            out.append(RelationMention(subject, "works_for", OURS))
    for m in _CLIENT.finditer(text):
        if _ok(_clean(m.group(2))):
            out.append(RelationMention(_clean(m.group(2)), "client_of", OURS))
    return list(dict.fromkeys(out))


def _role_match(m: re.Match[str]) -> list[RelationMention]:
    subject, owner = _clean(m.group(1)), m.group(2)
    title, phrase = m.group(3), m.group(4)
    role = title if title else role_phrase(phrase or "")
    if not role or not _ok(subject) or role.split()[-1] in KIN:
        return []
    out = [RelationMention(subject, "role", role)]
    org = m.group(8)
    if org:
        out.extend(_org_rel(subject, m.group(5), m.group(7), org))
    elif (owner or "").lower() == "our":
        out.append(RelationMention(subject, "works_for", OURS))
    return out
