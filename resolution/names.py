"""What counts as a name: cleaning names, their shape, and a document's evidence for them.

Conversation and documents alike keep the name itself, not the words around it:
"I'm Dana Whitfield" → "Dana Whitfield", "Peter's" → "Peter", "Dr. Maria Lopez" → "Maria
Lopez", "CTO Peter Alvarez" → "Peter Alvarez" (``clean_name``). An acronym is never a person
("VAT", ``never_person``).

A document is read differently from a turn (issue 39): its code is not prose, and a capitalised
word in it is usually a heading, a sentence opener or an identifier, not a named thing.
``mask_markup`` blanks code blocks, inline code, headings, URLs and markup characters (same
length, so offsets hold); ``DocumentNames.admits`` lets a name the tenant does not know become
an entity only when

- its shape is a name's (``looks_like_name``: capitalised words of letters; no digits,
  symbols, dotted paths, snake_case or lone stop words), not an identifier's or a term's
  (CamelCase, acronyms only);
- it neither starts nor ends with a word the document uses in lower case ("Update Werkzeug",
  "Transport Adapter": words of the prose, capitalised by a sentence or a title; a one-word
  name, only when the prose writes it in lower case more often than capitalised);
- it is used inside a sentence at least once (not only opening sentences or list items, as
  "Drop RC4 …" in a changelog), and the model labels it a person, organisation, product or
  place, or a pattern declared it, or it recurs in running text, or a heading names it too.

>>> clean_name("I'm Dana Whitfield"), clean_name("Peter’s"), clean_name("Mrs Hale")
('Dana Whitfield', 'Peter', 'Hale')
>>> looks_like_name("StopIteration"), looks_like_name("os.path"), looks_like_name("≤ 2")
(True, False, False)
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from spacy.lang.en.stop_words import STOP_WORDS

from resolution.kinds import TITLES
from resolution.types import Mention

HONORIFICS = frozenset({"dr", "mr", "mrs", "ms", "miss", "mx", "prof", "sir", "dame"})
# Words inside a name that stay lower case: "Wolf of Blog Street", "Ludwig van Beethoven".
CONNECTORS = frozenset({"of", "the", "and", "&", "de", "van", "von", "der", "den", "da", "di",
                        "du", "la", "le", "del", "for", "y", "bin", "al"})  # fmt: skip
# Statistical labels that are evidence of a named thing in a document.
EVIDENCE_LABELS = frozenset({"PERSON", "ORG", "PRODUCT", "GPE", "LOC", "NORP", "FAC"})
_SELF = re.compile(r"^(?:i\s*['’]\s*m|i\s+am|this\s+is|it\s*['’]\s*s)\s+", re.I)
_POSSESSIVE = re.compile(r"(?:['’]s|(?<=s)['’])$")
_WORD = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ](?:[A-Za-zÀ-ÖØ-öø-ÿ'’.-]*[A-Za-zÀ-ÖØ-öø-ÿ.])?|&")
_DOTTED = re.compile(r"\w\.\w")
_FENCED = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?(?:^[ \t]*\1[^\n]*$|\Z)", re.M | re.S)
_INLINE = re.compile(r"``.+?``|`[^`\n]+`")
_LITERAL = re.compile(r"::[ \t]*\n(?:[ \t]*\n)*(?:(?:[ \t]+[^\n]*)?\n)*", re.M)
_DIRECTIVE = re.compile(r"^\.\. [\w-]+::[^\n]*\n(?:(?:[ \t]+[^\n]*)?\n)*", re.M)
_URL = re.compile(r"\b(?:https?|ftp)://\S+|\]\([^)]*\)|<[^>\s]+>|\S+@\S+\.\w+")
_MARKUP = re.compile(r"[|#*_>=~^\[\]{}<>\\]|:\w+:")
_HEADING = re.compile(r"^#{1,6}[ \t]+(.+)$|^([^\n]+)\n[=\-~^\"'`#*+]{3,}[ \t]*$", re.M)
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")
# What comes before a word that opens a sentence, a paragraph or a list item (a hard-wrapped
# line's start is none of them: "…reported by\n    Matthew Daley of …").
_OPENER = re.compile(
    r"(?:[.!?:;]['\")\]*_`]*\s+|\n[ \t]*\n\s*|\n[ \t]*(?:[-*+]|\d+[.)]|#+)[ \t]+)[*_`>]*$"
)


def clean_name(name: str) -> str:
    """The name without what a sentence put around it ("I'm ", a possessive, a title)."""
    text = " ".join(name.split())
    text = _SELF.sub("", text)
    text = _POSSESSIVE.sub("", text).rstrip(",;:")
    words = text.split()
    while len(words) > 1:
        first = words[0].rstrip(".").lower()
        two = " ".join(w.lower() for w in words[:2])
        if first in HONORIFICS or first in TITLES:
            words = words[1:]
        elif len(words) > 2 and two in TITLES:
            words = words[2:]
        else:
            break
    return " ".join(words)


def cleaned(m: Mention) -> Mention | None:
    """``m`` narrowed to its cleaned name (None when nothing of a name is left); a known name
    (the ruler's) is kept as the tenant wrote it."""
    if m.source == "ruler":
        return m
    name = clean_name(m.text)
    if not name:
        return None
    if name == m.text:
        return m
    at = m.text.find(name)
    if at < 0:  # spacing changed: keep the span, name it as cleaned
        return Mention(name, m.start, m.end, m.entity_type, m.source)
    return Mention(name, m.start + at, m.start + at + len(name), m.entity_type, m.source)


def plausible_name(text: str) -> bool:
    """The least a name has, in a turn too: a capital letter, and no lower-case function word
    first ("the kids & work", "ya")."""
    words = text.split()
    if not words or not any(c.isupper() for c in text):
        return False
    return words[0][:1].isupper() or words[0] not in STOP_WORDS


def never_person(name: str) -> bool:
    """An acronym ("VAT", "SEO", "API") names a thing or an organisation, never a person."""
    letters = [c for c in name if c.isalpha()]
    return len(letters) >= 2 and all(c.isupper() for c in letters) and " " not in name.strip()


def looks_like_name(text: str) -> bool:
    """Letters in capitalised words (lower-case connectors inside), at most six of them; no
    digits, symbols, dotted paths, snake_case or lone stop words ("Where", "The")."""
    words = text.split()
    if not 1 <= len(words) <= 6 or _DOTTED.search(text):
        return False
    if any(_WORD.fullmatch(w) is None for w in words):
        return False
    if not words[0][:1].isupper() or not words[-1][:1].isupper():
        return False
    if any(not w[:1].isupper() and w.lower() not in CONNECTORS for w in words):
        return False
    return not all(w.lower().strip(".'’") in STOP_WORDS for w in words)


def mask_markup(text: str) -> str:
    """``text`` with code, headings, URLs and markup characters blanked (same length, lines
    kept): what is left is prose to look for names in. A heading is evidence of its own
    (``DocumentNames``), never a sentence: its words are capitalised whatever they are."""
    chars = list(text)

    def blank(start: int, end: int) -> None:
        for i in range(start, end):
            if chars[i] != "\n":
                chars[i] = " "

    for pattern in (_FENCED, _DIRECTIVE, _LITERAL, _INLINE, _URL, _HEADING):
        for m in pattern.finditer("".join(chars)):
            blank(m.start(), m.end())
    for m in _MARKUP.finditer("".join(chars)):
        # A table cell or a markup character ends a phrase: a line break, not a space.
        chars[m.start()] = "\n" if m.group() == "|" else " "
        blank(m.start() + 1, m.end())
    return "".join(chars)


class DocumentNames:
    """The evidence one document gives for new names (see the module docstring).

    Built once per document from its text; ``admits`` says whether a mention found in one of
    its chunks may become a new entity.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.prose = mask_markup(text)
        self.headings = " \n ".join(
            (m.group(1) or m.group(2) or "") for m in _HEADING.finditer(text)
        )
        self._counts: dict[str, tuple[int, bool]] = {}
        self._lower: dict[str, int] = {}  # lower-case uses of a word

    def evidence(self, name: str) -> tuple[int, bool]:
        """Occurrences of ``name`` in running text away from a sentence's start, and whether
        a heading names it."""
        if name not in self._counts:
            pattern = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")
            inside = sum(1 for m in pattern.finditer(self.prose) if not self._opens(m.start()))
            self._counts[name] = (inside, pattern.search(self.headings) is not None)
        return self._counts[name]

    def _opens(self, at: int) -> bool:
        """Does the word at ``at`` open a sentence, a paragraph or a list item?"""
        before = self.text[max(0, at - 40) : at]
        return _OPENER.search(before if at >= 40 else "\n\n" + before) is not None

    def common(self, word: str, alone: bool = False) -> bool:
        """Does the prose write ``word`` (or its singular) in lower case ("adapter", "date")?
        Then a capitalised one opens a sentence or a title: it is not a name. A word that is
        a name by itself (``alone``) is common only when the prose writes it in lower case
        more often than capitalised inside a sentence ("python" and "werkzeug" as package
        names are rarer than Python and Werkzeug; "request" is not)."""
        low = word.lower()
        if low == word:
            return False
        if low not in self._lower:
            forms = [low, low[:-1]] if low.endswith("s") and len(low) > 3 else [low]
            pattern = re.compile(rf"(?<![\w-])(?:{'|'.join(map(re.escape, forms))})(?![\w-])")
            self._lower[low] = sum(1 for _ in pattern.finditer(self.prose))
        lower = self._lower[low]
        return lower > self.evidence(word)[0] if alone else lower > 0

    def admits(self, m: Mention, named: Sequence[tuple[int, int, str]]) -> bool:
        """May ``m`` (found in a chunk whose statistical entities are ``named``) become a new
        entity? Its shape must be a name's, not an identifier's or a term's, its first word
        no word of the prose, and the model or the document must vouch for it."""
        if not looks_like_name(m.text) or identifier(m.text):
            return False
        words = m.text.split()
        alone = len(words) == 1 and "-" not in m.text
        if self.common(words[0].split("-")[0], alone) or self.common(words[-1], alone):
            # "Update Werkzeug", "Content-Encoding", "CA Bundle", "Transport Adapter":
            # a name neither starts nor ends with a word this prose uses in lower case.
            return False
        labels = {label for start, end, label in named if start < m.end and m.start < end}
        # Used inside a sentence at least once: a word that only ever opens a sentence or a
        # list item ("Drop RC4 …", "Bugfixes", "Generate …") is capitalised for that alone.
        inside, heading = self.evidence(m.text)
        if inside == 0:
            return False
        vouched = labels & EVIDENCE_LABELS or m.source == "declaration"
        return bool(vouched) or inside >= 2 or heading


def identifier(text: str) -> bool:
    """A code identifier or a technical term rather than a name: CamelCase ("PoolManager",
    "HTTPError") or acronyms only ("SSL", "CA BUNDLE"). Conversation keeps them (a turn names
    "IBM" or "PayPal" as it means them); a document does not."""
    return bool(_CAMEL.search(text)) or all(never_person(w) for w in text.split())
