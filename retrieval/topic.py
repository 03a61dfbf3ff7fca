"""What a query asks about, apart from whom: the text that is embedded for dense search.

The entity path and the ``entity_match`` signal already carry who a query is about. If the
names stay in the embedded text, similarity counts them a second time and leans toward every
memory that merely names the entity — in a chat, every turn of that speaker, since turns read
"Speaker: text" — and away from the memory that answers, said by someone else. So the dense
vector is built from the query with its entities' names cut out, as disambiguation does with
its context. When nothing describing is left ("Who is Peter?"), the name is the topic and the
query is embedded whole. The keyword path keeps the full text (BM25 weighs names by IDF).

    topic_of("What did Jon find for his store?", [jon])  # "What did find for his store?"
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from core.types import Entity, EntityType

# Function words: a query left with only these (and names removed) has no topic of its own.
_FUNCTION_WORDS = frozenset(
    {"the", "and", "for", "are", "was", "were", "is", "be", "been", "being", "who", "whom",
     "whose", "what", "which", "when", "where", "why", "how", "did", "does", "do", "doing",
     "has", "have", "had", "having", "his", "her", "hers", "him", "she", "he", "they", "them",
     "their", "theirs", "its", "our", "ours", "your", "yours", "you", "me", "my", "mine", "we",
     "us", "this", "that", "these", "those", "with", "from", "about", "into", "onto", "over",
     "than", "then", "there", "here", "can", "could", "would", "should", "will", "shall",
     "may", "might", "must", "not", "any", "all", "some", "tell", "know", "say", "said",
     "anything", "something", "everything", "also", "just", "very", "much", "many", "more",
     "most", "other", "else", "ever", "again", "still", "now", "out", "off", "up", "down",
     "let", "lets", "get", "got", "one", "ones", "thing", "things", "please"}
)  # fmt: skip
_WORD = re.compile(r"[a-z]+")


def without_names(text: str, names: Iterable[str]) -> str:
    """``text`` with every whole-word occurrence of ``names`` (and a following "'s") removed."""
    out, cuts = text, 0
    for name in sorted({n for n in names if n.strip()}, key=len, reverse=True):
        pattern = rf"(?<!\w){re.escape(name)}(?:['’]s)?(?!\w)"
        out, n = re.subn(pattern, " ", out, flags=re.I)
        cuts += n
    # Spacing is tidied only where a name was cut: an unnamed text comes back as it was.
    return re.sub(r"\s+", " ", out).strip() if cuts else text


def has_topic(text: str) -> bool:
    """Does ``text`` keep a describing word (three letters or more, not a function word)?"""
    return any(len(w) > 2 and w not in _FUNCTION_WORDS for w in _WORD.findall(text.lower()))


def names_of(entities: Iterable[Entity]) -> list[str]:
    """Every name a query may use for these entities: name, aliases and, for a person, the
    first name alone (a bare "Peter" resolves to "Peter Novak")."""
    out: list[str] = []
    for e in entities:
        out.extend((e.name, *e.aliases))
        if e.type is EntityType.PERSON and " " in e.name.strip():
            out.append(e.name.split()[0])
    return out


def topic_of(text: str, entities: Iterable[Entity]) -> str:
    """The query without its entities' names, or the query whole when no topic is left."""
    stripped = without_names(text, names_of(entities))
    return stripped if stripped != text and has_topic(stripped) else text
