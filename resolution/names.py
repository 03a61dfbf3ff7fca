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

- its shape is a name's (``looks_like_name``: capitalised words of any alphabet's letters; no
  digits, symbols, dotted paths, snake_case or lone stop words), not an identifier's or a
  term's (a CamelCase word, unless the prose uses it as a name, ``DocumentNames.brand``;
  acronyms only); or it is an account handle ("@Lukasa");
- it does not start with a word the document uses in lower case ("Update Werkzeug"), nor end
  with one unless a word before it is a name by itself ("Transport Adapter" no, "the Django
  Project" yes); a one-word name only when the prose writes it in lower case less often than
  capitalised, and never the short form of a longer name ("the Board");
- it is used inside a sentence at least once, a word counting where no capitalised word
  follows it (not only opening sentences or list items, as "Drop RC4 …" in a changelog; a
  full name the model takes for a person or an organisation may), and the model labels it a
  person, organisation, product or place, or a pattern declared it, or it recurs in running
  text, or a heading names it too.

Hard-wrapped lines are joined (a name split over two lines is one), a reStructuredText link's
words are prose, and a tilde-underlined heading opens no code block.

>>> clean_name("I'm Dana Whitfield"), clean_name("Peter’s"), clean_name("Mrs Hale")
('Dana Whitfield', 'Peter', 'Hale')
>>> looks_like_name("StopIteration"), looks_like_name("os.path"), looks_like_name("≤ 2")
(True, False, False)

A turn reads names as they are spoken (``spoken.py``); a day of the week is a time, not a name
("Last Fri").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from spacy.lang.en.stop_words import STOP_WORDS

from core.types import EntityType
from resolution.kinds import TITLES
from resolution.types import Mention

# A weekday or its short form, alone or with "last/next/this/on": a time ("Last Fri").
_CALENDAR = re.compile(
    r"(?:(?:last|next|this|on|every)\s+)?(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)"
    r"(?:day)?s?\.?",
    re.I,
)
HONORIFICS = frozenset({"dr", "mr", "mrs", "ms", "miss", "mx", "prof", "sir", "dame"})
# Words inside a name that stay lower case: "Wolf of Blog Street", "Ludwig van Beethoven".
CONNECTORS = frozenset({"of", "the", "and", "&", "de", "van", "von", "der", "den", "da", "di",
                        "du", "la", "le", "del", "for", "y", "bin", "al"})  # fmt: skip
# Statistical labels that are evidence of a named thing in a document.
EVIDENCE_LABELS = frozenset({"PERSON", "ORG", "PRODUCT", "GPE", "LOC", "NORP", "FAC"})
BRAND_USES = 5  # a CamelCase word a document uses this often in its prose is a name there
_AROUND = "\"'“”‘’!?,;:()[]*_ "  # quotes and punctuation a name is said between ("Jo!")
_SELF = re.compile(r"^(?:i\s*['’]\s*m|i\s+am|this\s+is|it\s*['’]\s*s)\s+", re.I)
_POSSESSIVE = re.compile(r"(?:['’]s|(?<=s)['’])$")
_LETTER = r"[^\W\d_]"  # any alphabet's letter ("Łukasz", "Zoë")
_WORD = re.compile(rf"{_LETTER}(?:(?:{_LETTER}|['’.-])*(?:{_LETTER}|\.))?|&")
_DOTTED = re.compile(r"\w\.\w")
_FENCED = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?(?:^[ \t]*\1[^\n]*$|\Z)", re.M | re.S)
_INLINE = re.compile(r"``.+?``|`[^`\n]+`(?!_)")
# A reStructuredText link ("`Mozilla trust store`_", "`Rust RFC <https://…>`_"): its words are
# prose; its target and its marks are not.
_RST_LINK = re.compile(r"`([^`<]+?)(\s*<[^>`]*>)?`__?")
_LITERAL = re.compile(r"::[ \t]*\n(?:[ \t]*\n)*(?:(?:[ \t]+[^\n]*)?\n)*", re.M)
_DIRECTIVE = re.compile(r"^\.\. [\w-]+::[^\n]*\n(?:(?:[ \t]+[^\n]*)?\n)*", re.M)
_URL = re.compile(r"\b(?:https?|ftp)://\S+|\]\([^)]*\)|<[^>\s]+>|\S+@\S+\.\w+")
_MARKUP = re.compile(r"[|#*_>=~^\[\]{}<>\\]|:\w+:")
_HEADING = re.compile(r"^#{1,6}[ \t]+(.+)$|^([^\n]+)\n[=\-~^\"'`#*+]{3,}[ \t]*$", re.M)
# "@Lukasa", "@edgarrmondragon": not an e-mail's "@" (a word before it) nor a decorator's
# (code is blanked before names are read).
_HANDLE = re.compile(r"(?<![\w@.])@[A-Za-z][A-Za-z0-9-]{1,38}\b(?!\.\w|@)")
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")
_SURNAME = re.compile(r"(?:Mc|Mac|O['’]|D['’])[A-Z][a-z]+")  # "McGinnis": no identifier
# A brand's shape: capitalised humps of lower-case letters ("GitHub", "OpenStack"), no acronym.
_BRAND = re.compile(r"[A-Z][a-z]+(?:[A-Z][a-z]+)+")
UNDERLINE = 5  # fences are three or four marks long; reStructuredText underlines the title
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d+[.)]|#\.)[ \t]")
# What comes before a word that opens a sentence, a paragraph or a list item (a hard-wrapped
# line's start is none of them: "…reported by\n    Matthew Daley of …").
_OPENER = re.compile(
    r"(?:[.!?:;]['\")\]*_`]*\s+|\n[ \t]*\n\s*|\n[ \t]*(?:[-*+]|\d+[.)]|#+)[ \t]+)[*_`>]*$"
)


def clean_name(name: str) -> str:
    """The name without what a sentence put around it ("I'm ", a lower-case "the", a
    possessive, a title)."""
    text = " ".join(name.split()).strip(_AROUND)
    text = _SELF.sub("", text).removeprefix("the ")
    text = _POSSESSIVE.sub("", text).rstrip(",;:")
    words = text.split()
    # an honorific starts a name: what a run holds before it is the sentence's ("your GP
    # Dr Amara Osei")
    at = next((k for k, w in enumerate(words[1:-1], 1) if w.rstrip(".").lower() in HONORIFICS), 0)
    words = words[at:]
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


def handles(text: str) -> list[Mention]:
    """Account handles ("thanks to @Lukasa"): a person's, in a document (``DocumentNames``)."""
    return [
        Mention(m.group(), m.start(), m.end(), EntityType.PERSON, "heuristic")
        for m in _HANDLE.finditer(text)
    ]


def plausible_name(text: str) -> bool:
    """The least a name has, in a turn too: a capital letter, no lower-case function word
    first ("the kids & work", "ya"), and not a day of the week ("Last Fri"); or a handle."""
    if _HANDLE.fullmatch(text):
        return True
    words = text.split()
    if not words or not any(c.isupper() for c in text) or _CALENDAR.fullmatch(text.strip()):
        return False
    return words[0][:1].isupper() or words[0] not in STOP_WORDS


def possessive(word: str) -> bool:
    """Does ``word`` end in a possessive ("Peter's", "James'")?"""
    return _POSSESSIVE.search(word) is not None


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
    """``text`` with code, headings, URLs and markup characters blanked (same length, every
    line break a line break or a space): what is left is prose to look for names in. A
    heading is evidence of its own (``DocumentNames``), never a sentence: its words are
    capitalised whatever they are. A paragraph's hard-wrapped lines are joined (the break a
    space), so a name split over two lines is one ("Anders\\nHejlsberg")."""
    chars = list(text)

    def blank(start: int, end: int) -> None:
        for i in range(start, end):
            if chars[i] != "\n":
                chars[i] = " "

    for start, end in _fences(text):
        blank(start, end)
    for m in _RST_LINK.finditer("".join(chars)):
        blank(m.start(), m.start(1))
        blank(m.end(1), m.end())
    for pattern in (_DIRECTIVE, _LITERAL, _INLINE, _URL, _HEADING):
        for m in pattern.finditer("".join(chars)):
            blank(m.start(), m.end())
    for m in _MARKUP.finditer("".join(chars)):
        # A table cell or a markup character ends a phrase: a line break, not a space.
        chars[m.start()] = "\n" if m.group() == "|" else " "
        blank(m.start() + 1, m.end())
    _unwrap(text, chars)
    return "".join(chars)


def _unwrap(text: str, chars: list[str]) -> None:
    """Join the hard-wrapped lines of a paragraph in ``chars`` (the masked ``text``): a line
    break between two lines with prose on both, the second no list item, becomes a space."""
    breaks = [i for i, c in enumerate(text) if c == "\n"]
    for n, i in enumerate(breaks):
        begin = breaks[n - 1] + 1 if n else 0
        end = breaks[n + 1] if n + 1 < len(breaks) else len(text)
        before = "".join(chars[begin:i])
        after = "".join(chars[i + 1 : end])
        if "\n" in before or "\n" in after or not before.strip() or not after.strip():
            continue  # a table's cells, or a blank line: no paragraph goes on here
        if _LIST_ITEM.match(text, i + 1):
            continue
        chars[i] = " "


def _fences(text: str) -> list[tuple[int, int]]:
    """Spans of fenced code blocks. A line of tildes or backticks right under a line no longer
    than itself underlines a heading (reStructuredText: "Rust\\n~~~~"), it opens no fence;
    nor does a bare one that nothing closes, or a bare one longer than a fence is written
    (``UNDERLINE``: a chunk that begins under a heading's title)."""
    spans: list[tuple[int, int]] = []
    at = 0
    while (m := _FENCED.search(text, at)) is not None:
        line_end = text.find("\n", m.start())
        opener = text[m.start() : line_end].strip()
        bare = set(opener) == {opener[0]}
        before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1].strip()
        under = text[: m.start()].endswith("\n") and not text[: m.start()].endswith("\n\n")
        underline = under and before and len(opener) >= len(before)
        unclosed = m.end() == len(text) and not text.rstrip().endswith(opener[:3])
        if bare and (underline or unclosed or len(opener) >= UNDERLINE):
            at = line_end + 1 if line_end >= 0 else len(text)
            continue
        spans.append((m.start(), m.end()))
        at = max(m.end(), m.start() + 1)
    return spans


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
        self._short: dict[str, bool] = {}  # ``short_form``, per word
        self._alone: dict[str, bool] = {}  # ``_standalone``, per word
        spans = [*_fences(text), *((m.start(), m.end()) for m in _INLINE.finditer(text))]
        self.code = {w for a, b in spans for w in re.findall(r"\w+", text[a:b])}

    def evidence(self, name: str) -> tuple[int, bool]:
        """Occurrences of ``name`` in running text away from a sentence's start, and whether
        a heading names it."""
        if name not in self._counts:
            # A word is its own name where no capitalised word follows it ("Jacob" counts
            # not in "Jacob Kaplan-Moss", "Digest" not in "Digest Auth").
            then = r"(?![\w-]|[ \t]+[A-Z])" if " " not in name else r"(?!\w)"
            pattern = re.compile(rf"(?<!\w){re.escape(name)}{then}")
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

    def short_form(self, word: str) -> bool:
        """``_short_form``, read once per word of the document."""
        if word not in self._short:
            self._short[word] = self._short_form(word)
        return self._short[word]

    def _short_form(self, word: str) -> bool:
        """Is ``word`` the last word of a longer name this prose uses inside a sentence ("the
        Board" after "the Technical Board", "Foundation" after "the OpenStack Foundation")?
        Then alone it is that name said short, not a name of its own."""
        last = rf"{re.escape(word)}(?![\w-]|[ \t]+[A-Z])"
        first = r"(?!(?:The|A|An|I)\b)[A-Z][\w'’-]*[ \t]+"
        pattern = re.compile(rf"(?<![\w-])(?:{first}){{1,3}}{last}")
        return any(not self._opens(m.start()) for m in pattern.finditer(self.prose))

    def brand(self, word: str) -> bool:
        """Is the CamelCase ``word`` a name here ("GitHub", "OpenStack")? A brand's shape, never
        in the document's code, and used inside its sentences often (``BRAND_USES``): a class
        name the prose mentions ("PoolManager") is rarer, or in the code too."""
        return (
            _BRAND.fullmatch(word) is not None
            and word not in self.code
            and self.evidence(word)[0] >= BRAND_USES
        )

    def _standalone(self, word: str) -> bool:
        """``_alone_uses``, read once per word of the document."""
        if word not in self._alone:
            self._alone[word] = self._alone_uses(word)
        return self._alone[word]

    def _alone_uses(self, word: str) -> bool:
        """Does the prose use ``word`` alone as a name: inside a sentence, no capitalised word
        on either side ("Django" in "Django's core team"; not "Transport" of "Transport
        Adapter"), and not an acronym?"""
        if never_person(word) or self.common(word, True) or self.short_form(word):
            return False
        pattern = re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w-]|[ \t]+[A-Z])")
        for m in pattern.finditer(self.prose):
            if self._opens(m.start()):
                continue
            before = re.search(r"(\S+)\s+$", self.prose[max(0, m.start() - 40) : m.start()])
            named = before is not None and before.group(1)[:1].isupper()
            if not named or self._opens(m.start() - len(before.group(0))):  # type: ignore[union-attr]
                return True  # no name before it, or a sentence's first word ("Then Django")
        return False

    def admits(self, m: Mention, named: Sequence[tuple[int, int, str]]) -> bool:
        """May ``m`` (found in a chunk whose statistical entities are ``named``) become a new
        entity? Its shape must be a name's, not an identifier's or a term's, its first word
        no word of the prose, and the model or the document must vouch for it."""
        if _HANDLE.fullmatch(m.text):
            return self.evidence(m.text)[0] > 0  # an account the prose thanks or names
        if not looks_like_name(m.text) or all(never_person(w) for w in m.text.split()):
            return False
        if any(camel(w) and not self.brand(w) for w in m.text.split()):
            return False  # "PoolManager", "Unbreak HTTPDigestAuth"; not "OpenStack Foundation"
        words = m.text.split()
        alone = len(words) == 1 and "-" not in m.text
        if self.common(words[0].split("-")[0], alone):
            # "Update Werkzeug", "Content-Encoding": a name does not start with a word this
            # prose uses in lower case.
            return False
        if self.common(words[-1], alone) and not any(self._standalone(w) for w in words[:-1]):
            # "CA Bundle", "Transport Adapter": nor end with one, unless a word before it
            # is a name of this prose by itself ("the Django Project" beside "Django").
            return False
        labels = {label for start, end, label in named if start < m.end and m.start < end}
        # Used inside a sentence at least once: a word that only ever opens a sentence or a
        # list item ("Drop RC4 …", "Bugfixes", "Generate …") is capitalised for that alone;
        # a full name the model takes for a person or an organisation may open one ("Jeremy
        # Stanley, Chris Dent and … contributed").
        inside, heading = self.evidence(m.text)
        people = len(words) > 1 and bool(labels & {"PERSON", "ORG"})
        if (inside == 0 and not people) or (alone and self.short_form(m.text)):
            return False
        vouched = labels & EVIDENCE_LABELS or m.source == "declaration"
        return bool(vouched) or inside >= 2 or heading


def camel(word: str) -> bool:
    """Is ``word`` CamelCase ("PoolManager", "HTTPError"; a surname's "McGinnis" is not)?"""
    return _CAMEL.search(word) is not None and _SURNAME.fullmatch(word) is None


def identifier(text: str) -> bool:
    """A code identifier or a technical term rather than a name: a CamelCase word in it
    ("PoolManager", "Unbreak HTTPDigestAuth") or acronyms only ("SSL", "CA BUNDLE").
    Conversation keeps them (a turn names "IBM" or "PayPal" as it means them); a document
    does not, unless it uses the word as a name (``DocumentNames.brand``)."""
    words = text.split()
    return any(camel(w) for w in words) or all(never_person(w) for w in words)
