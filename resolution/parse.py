"""The parse step: mentions, alias declarations, relations and times in one text.

spaCy's statistical NER is combined with the tenant's EntityRuler (known names win), a
proper-noun heuristic (runs of PROPN tokens, so "Wolf of Blog Street" is one name even when
the small model tags only "Wolf"), the surface patterns of ``patterns.py`` and the pronoun
list the tracker resolves. The model is loaded once (lazily or by ``load()``) and runs in a
worker thread, never on the event loop.

    parser = Parser(settings.resolution)
    parsed = await parser.parse("Peter is one of our writers", at=time.time())
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from core.errors import BackendError, InvalidInput
from core.settings import LimitSettings, ResolutionSettings
from core.times import find_times
from core.types import EntityType
from resolution.gazetteer import Gazetteer
from resolution.kinds import ORG_ROLES, hosted_names, is_title, kind_of
from resolution.names import clean_name, cleaned, handles, never_person
from resolution.patterns import find_aliases, find_relations, find_type_declarations
from resolution.spoken import RUN_CONNECTORS, Lexicon, places, propn_runs, quoted_titles
from resolution.types import AliasDeclaration, Mention, ParsedText, RelationMention

PRONOUNS: dict[str, frozenset[EntityType] | None] = {
    **dict.fromkeys(["he", "him", "his", "she", "her", "hers"], frozenset({EntityType.PERSON})),
    **dict.fromkeys(["it", "its"], frozenset(set(EntityType) - {EntityType.PERSON})),
    **dict.fromkeys(["they", "them", "their", "theirs"], None),  # any type: people or groups
}
_NER_TYPES = {
    "PERSON": EntityType.PERSON,
    "ORG": EntityType.ORG,
    "GPE": EntityType.PLACE,
    "LOC": EntityType.PLACE,
    "FAC": EntityType.PLACE,
    "PRODUCT": EntityType.SYSTEM,
    "EVENT": EntityType.CONCEPT,
    "WORK_OF_ART": EntityType.CONCEPT,
    "LAW": EntityType.CONCEPT,
}
_OUR_LABELS = frozenset(t.value for t in EntityType)
_RELATION_OBJECTS = {
    "works_for": EntityType.ORG,
    "belongs_to": EntityType.ORG,
    "located_in": EntityType.PLACE,
}
_RANK = {"declaration": 0, "ruler": 1, "heuristic": 2, "ner": 3}
_HEAVY = ("parser", "ner")  # what a light parse leaves out
_IMPERSONAL = frozenset({"rain", "seem", "appear", "snow"})


class Parser:
    """Turns text into ``ParsedText``; thread-safe, one spaCy model per process.

    ``max_chars`` bounds a text's length (``InvalidInput`` beyond it): the service passes its
    content limit, so that any content it accepts can be parsed (a constant of 20,000 here
    refused turns the content limit of 32,000 allowed).
    """

    def __init__(
        self, settings: ResolutionSettings, max_chars: int = LimitSettings().max_content_chars
    ) -> None:
        self._settings = settings
        self.max_chars = max_chars
        self._nlp: Any = None
        self._ops: Any = None
        self.lexicon: Lexicon | None = None
        self._lock = asyncio.Lock()

    async def load(self) -> Any:
        """Load the spaCy model now (idempotent); returns it."""
        async with self._lock:
            if self._nlp is None:
                self._nlp = await asyncio.to_thread(self._load)
            return self._nlp

    def _load(self) -> Any:
        import spacy
        from thinc.api import NumpyOps, get_current_ops, set_current_ops
        from threadpoolctl import threadpool_limits

        # The model's layers multiply with numpy instead of thinc's default (blis): a parse is
        # 16-23 % faster and the same (1,915 texts compared, docs/BENCHMARKS.md, stop 34).
        # A layer keeps the backend it was built with, so the model is loaded under it. On
        # one BLAS thread, for the whole process: with a thread per core, OpenBLAS's threads
        # spun on the cores the graph engine and the event loop need, and recordTurn's CPU
        # doubled (stop 25). The service's other matrix work is small, or a background job's.
        threadpool_limits(limits=1, user_api="blas")
        ops, before = NumpyOps(use_blis=False), get_current_ops()
        set_current_ops(ops)
        try:
            nlp = spacy.load(self._settings.spacy_model)
        except OSError as e:
            raise BackendError(f"spaCy model {self._settings.spacy_model!r} not found") from e
        finally:
            set_current_ops(before)
        self._ops = ops
        self.lexicon = Lexicon(nlp)
        return nlp

    async def parse(
        self, text: str, at: float, gazetteer: Gazetteer | None = None, light: bool = False
    ) -> ParsedText:
        """Parse ``text``; times resolve against ``at`` (epoch seconds).

        ``light`` skips the statistical NER and the dependency parser (about 60 % of the
        model's time): for a search query, whose names can only link to entities the tenant
        knows, which its gazetteer finds (unknown proper nouns are still found by the
        part-of-speech heuristic, without the NER's guess of their type).
        """
        if not isinstance(text, str):
            raise InvalidInput("text must be a string", field="text")
        if len(text) > self.max_chars:
            raise InvalidInput(
                f"text is {len(text)} characters; the limit is {self.max_chars}", field="text"
            )
        nlp = await self.load()
        return await asyncio.to_thread(self.parse_sync, nlp, text, at, gazetteer, light)

    def parse_sync(
        self,
        nlp: Any,
        text: str,
        at: float,
        gazetteer: Gazetteer | None = None,
        light: bool = False,
    ) -> ParsedText:
        if self._ops is not None:
            from thinc.api import set_current_ops

            # thinc keeps its current backend in a context variable, and a worker thread runs
            # each call in a fresh copy of the caller's context: unset, the parser looked
            # the backend up again on every call (a registry scan and two failed imports).
            set_current_ops(self._ops)
        doc = nlp(text, disable=[p for p in _HEAVY if p in nlp.pipe_names]) if light else nlp(text)
        ner = [(e.text, e.start_char, e.end_char, e.label_) for e in doc.ents]
        if gazetteer is not None and gazetteer.by_norm:
            with gazetteer.lock:
                doc = gazetteer.ruler(doc)

        def named(name: str) -> str:
            return _without_opener(clean_name(name), doc, text)

        aliases = _clean_aliases(find_aliases(text), named)
        declared: dict[str, EntityType | None] = {
            named(d.name): d.type
            for d in find_type_declarations(text)
            if _kind_word(d.at, doc) and named(d.name)
        }
        relations = _clean_relations(
            (r for r in find_relations(text) if _cue_fits(r, doc, text)), named
        )
        for rel in relations:  # names the relation patterns found are names for sure
            if rel.relation in _RELATION_OBJECTS and not rel.object.startswith("@"):
                declared.setdefault(rel.object, _RELATION_OBJECTS[rel.relation])
            if rel.relation == "client_of":  # "our client Dunmore Foods": an organisation
                declared[rel.subject] = EntityType.ORG
            elif declared.get(rel.subject) is None and (
                rel.subject in declared or not _inside_declared(rel.subject, declared)
            ):
                declared[rel.subject] = _subject_type(rel)
        declared_mentions: list[Mention] = []
        for a in aliases:
            declared.setdefault(a.name, declared.get(a.alias) or _guess_type(a.name))
        for name, etype in declared.items():
            declared_mentions.extend(_find_all(text, name, etype, "declaration"))
        for a in aliases:
            declared_mentions.extend(_find_all(text, a.alias, declared[a.name], "declaration"))
        runs = propn_runs(doc)
        found: list[Mention] = []
        for ent in doc.ents:
            if ent.label_ in _OUR_LABELS:
                etype = EntityType(ent.label_)
                found.append(Mention(ent.text, ent.start_char, ent.end_char, etype, "ruler"))
        for start, end, etype in runs:
            found.append(Mention(text[start:end], start, end, etype, "heuristic"))
        if gazetteer is not None:
            found.extend(_known_first_names(doc, gazetteer))
        for ent_text, start, end, label in ner:  # the model's guesses, before the ruler
            if label in _NER_TYPES:
                found.append(Mention(ent_text, start, end, _NER_TYPES[label], "ner"))
        found.extend(quoted_titles(text))
        found.extend(handles(text))
        # Declarations first; then the longest span wins ("Peter Novak" over a known
        # "Peter"), known names before heuristics before statistical guesses on equal length.
        # A span that swallows known names is dropped unless it only extends a known first
        # name ("Ask Billing Service", "Apollo and Zoë Müller" give way to the known names).
        known = [m for m in found if m.source == "ruler"]
        found = [m for m in found if m.source == "ruler" or not _swallows(m, known, text)]
        found = [_mention_without_opener(m, doc) for m in found]
        found = _retyped([c for c in map(cleaned, found) if c is not None], text)
        found.sort(key=lambda m: (-(m.end - m.start), _RANK[m.source], m.start))
        if self.lexicon is None:  # a model loaded elsewhere: its lexicon, once
            self.lexicon = Lexicon(nlp)
        lexicon = self.lexicon
        by_place = () if light else places(doc, found, declared_mentions, lexicon)
        mentions = declared_mentions + found
        for tok in doc:
            if tok.lower_ in PRONOUNS and not (tok.lower_ == "it" and _pleonastic(tok)):
                mentions.append(
                    Mention(tok.text, tok.idx, tok.idx + len(tok.text), None, "pronoun")
                )
        return ParsedText(
            text=text,
            mentions=tuple(_non_overlapping(mentions)),
            aliases=tuple(aliases),
            relations=tuple(relations),
            times=tuple(find_times(text, at)),
            doc=None if light else doc,
            named=tuple((start, end, label) for _, start, end, label in ner),
            by_place=by_place,
            modifiers=tuple(
                (m.start, m.end)
                for m in found
                if m.source in ("ner", "heuristic") and lexicon.common(m.text)
            ),
        )


# A name begins with a proper noun or a noun, never with "Wow", "Thankfully", "Cute" or "what".
_NOT_NAME_START = frozenset({"INTJ", "ADV", "ADJ", "VERB", "AUX", "PRON", "DET", "SCONJ"})
# What a role is made of: "designer", "head of procurement", "senior editor", "CTO".
_ROLE_POS = frozenset({"NOUN", "PROPN", "ADJ", "ADP"})
_PERSONAL = frozenset({"role", "related_to_speaker"})
_CLAUSE_GOES_ON = frozenset({"VERB", "AUX", "PART", "NOUN", "PROPN"})


def _cue_fits(rel: RelationMention, doc: Any, text: str) -> bool:
    """Does the parse agree with a surface pattern's cue about a person? The patterns read
    "Wow, what an experience" as a person "Wow" with the role "what an experience", and
    "Caroline, the parade sounds awesome" as the role "parade sounds awesome": a cue's
    subject must start like a name, and a role must be a noun phrase (no verb, no pronoun)."""
    if rel.relation == "works_for" and not rel.object.startswith("@"):
        # An organisation is a proper name: "Sarah, sent the report for order 1002" is no
        # Sarah working for "1002".
        at = text.find(rel.object)
        org = doc.char_span(at, at + len(rel.object), alignment_mode="expand") if at >= 0 else None
        return org is None or org[0].pos_ in ("PROPN", "NOUN")
    if rel.relation not in _PERSONAL:
        return True
    start = text.find(rel.subject)
    span = doc.char_span(start, start + len(rel.subject), alignment_mode="expand")
    if start < 0 or span is None:
        return True
    if span[0].pos_ in _NOT_NAME_START or not any(t.pos_ in ("PROPN", "NOUN") for t in span):
        return False
    if rel.relation != "role":
        return True
    words = rel.object.lower().split()
    after = [t for t in doc[span.end :] if not t.is_punct]
    first = next(
        (
            i
            for i, t in enumerate(after)
            if t.lower_ == words[0] or (len(words) == 1 and t.lower_.startswith(words[0]))
        ),
        None,
    )
    if first is None:
        return True  # a title the pattern knows ("CTO"), spelled differently
    role = after[first : first + len(words)]
    if not all(t.pos_ in _ROLE_POS for t in role) or role[-1].pos_ not in ("NOUN", "PROPN"):
        return False
    # The role ends its phrase ("Sarah, our designer, sent it", "... the head of sales at X").
    # A verb right after it makes it a clause's subject: "Caroline, my family's been great".
    end = role[-1].i + 1
    return end >= len(doc) or doc[end].pos_ not in _CLAUSE_GOES_ON


def _retyped(found: list[Mention], text: str) -> list[Mention]:
    """The model's and the heuristic's guesses corrected by the closed lists of ``kinds.py``:
    job titles are dropped (a role is an attribute), formats, tools and hosts are systems,
    names ending in an organisation word are organisations."""
    hosted = hosted_names(text)
    out: list[Mention] = []
    for m in found:
        if m.source == "ruler":
            out.append(m)
            continue
        if is_title(m.text):
            continue
        kind = kind_of(m.text) or (EntityType.SYSTEM if m.text in hosted else None)
        out.append(replace(m, entity_type=kind) if kind is not None else m)
    return out


def _known_first_names(doc: Any, gazetteer: Gazetteer) -> list[Mention]:
    """A capitalised noun that is the first name of a known person ("Ravi over at Northwind
    Partners", "Pablo (recruiter, Oakridge Labs)"): a mention, where the small model saw
    none. Verbs and auxiliaries spelled like names ("Will you", "Mark it") are not."""
    out: list[Mention] = []
    for tok in doc:
        if tok.pos_ not in ("PROPN", "NOUN") or not tok.text[:1].isupper() or tok.is_stop:
            continue
        with gazetteer.lock:
            ids = gazetteer.by_token.get(tok.lower_, ())
            person = any(gazetteer.types.get(i) is EntityType.PERSON for i in ids)
        if person:
            end = tok.idx + len(tok.text)
            out.append(Mention(tok.text, tok.idx, end, EntityType.PERSON, "heuristic"))
    return out


def _kind_word(at: int, doc: Any) -> bool:
    """Is the type word at ``at`` the head of its noun phrase ("Acme is our client"), not a
    modifier inside another noun ("Clara is the project manager", "the office manager")?"""
    if at < 0 or not doc.has_annotation("DEP"):
        return True
    span = doc.char_span(at, at + 1, alignment_mode="expand")
    return span is None or span[0].dep_ != "compound"


def _subject_type(rel: RelationMention) -> EntityType | None:
    """A role, an employer or a relation to the speaker is a person's ("Clara Quidt is the
    project manager at Redcliff Labs", "Morgan from Larkspur Digital"), whatever the small
    model guessed for an unfamiliar name (it had typed such names as projects, places,
    products and organisations); the closed lists still win ("Stonebridge Ventures")."""
    if rel.relation == "role" and rel.object.split()[-1] in ORG_ROLES:
        return EntityType.ORG  # "Adyen is our payment provider"
    if never_person(rel.subject):
        return None  # "VAT" is no one, whatever it is said to be
    if rel.relation in (*_PERSONAL, "works_for") and kind_of(rel.subject) is None:
        return EntityType.PERSON
    return None


# Parts of speech that open a sentence and are never a name's first word: "Actually Peter is
# our editor now", "Sorry Peter …", "Luckily Sarah Hale …", "And Maria …" (a determiner or a
# modal can be: "The Hague", "Will Smith", "May Chen").
_OPENER_POS = frozenset({"ADV", "INTJ", "CCONJ", "SCONJ", "PART", "PRON"})


def _opens(doc: Any, start: int, word: str) -> bool:
    """Is ``word``, at ``start`` in the text, one token the parse tags as an opener?"""
    span = doc.char_span(start, start + len(word)) if start >= 0 else None
    return span is not None and len(span) == 1 and span[0].pos_ in _OPENER_POS


def _without_opener(name: str, doc: Any, text: str) -> str:
    """``name`` without a first word the parse tags as an opener where the name is said."""
    first, _, rest = name.partition(" ")
    return rest if rest and _opens(doc, text.find(name), first) else name


def _mention_without_opener(m: Mention, doc: Any) -> Mention:
    """``m`` starting after a first word the parse tags as an opener (a known name as is)."""
    first, _, rest = m.text.partition(" ")
    if m.source == "ruler" or not rest or not _opens(doc, m.start, first):
        return m
    start = m.start + m.text.index(rest)
    return Mention(rest, start, start + len(rest), m.entity_type, m.source)


def _clean_aliases(
    found: list[AliasDeclaration], named: Callable[[str], str]
) -> list[AliasDeclaration]:
    out = [AliasDeclaration(named(a.name), named(a.alias)) for a in found]
    return list(dict.fromkeys(a for a in out if a.name and a.alias and a.name != a.alias))


def _clean_relations(
    found: Iterable[RelationMention], named: Callable[[str], str]
) -> list[RelationMention]:
    """Relations between cleaned names ("I'm Dana Whitfield from Brightline" is Dana's)."""
    out: list[RelationMention] = []
    for r in found:
        subject = named(r.subject)
        named_object = r.relation in _RELATION_OBJECTS or r.relation == "client_of"
        obj = named(r.object) if named_object and not r.object.startswith("@") else r.object
        if subject and obj:
            out.append(replace(r, subject=subject, object=obj))
    return list(dict.fromkeys(out))


def _inside_declared(name: str, declared: dict[str, EntityType | None]) -> bool:
    return any(name != d and name in d for d in declared)


def _guess_type(name: str) -> EntityType | None:
    return EntityType.ORG if name.isupper() and len(name) <= 10 else None


def _find_all(text: str, name: str, etype: EntityType | None, source: str) -> list[Mention]:
    pattern = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")
    return [Mention(name, m.start(), m.end(), etype, source) for m in pattern.finditer(text)]


def _swallows(m: Mention, known: list[Mention], text: str) -> bool:
    inside = [k for k in known if m.start <= k.start and k.end <= m.end and k != m]
    if not inside or any(k.start == m.start and k.end == m.end for k in inside):
        return False
    extends_first_name = (
        len(inside) == 1
        and inside[0].start == m.start
        and " " not in inside[0].text
        and not set(text[m.start : m.end].lower().split()) & RUN_CONNECTORS
        and text[inside[0].end : m.end].strip()[:1].isupper()  # a surname, not "John later"
    )
    return not extends_first_name


def _pleonastic(tok: Any) -> bool:
    """ "it is raining", "it seems": an "it" that refers to nothing."""
    if not tok.doc.has_annotation("DEP"):  # a light parse: the next few words tell
        after = tok.doc[tok.i + 1 : tok.i + 4]
        if any(t.lemma_ in _IMPERSONAL for t in after):
            return True
        return (
            len(after) == 3
            and after[0].lemma_ == "be"
            and after[1].pos_ == "ADJ"
            and after[2].lower_ in {"that", "to"}
        )
    return bool(tok.head.lemma_ in _IMPERSONAL or tok.dep_ == "expl")


def _non_overlapping(mentions: list[Mention]) -> list[Mention]:
    """Keep mentions in precedence order, dropping any that overlaps one already kept.

    A statistical entity strictly inside a longer proper-noun run gives way to the run (the
    small model often tags a fragment), but lends it its type when the run has none.
    """
    kept: list[Mention] = []
    for m in mentions:
        if any(m.start < k.end and k.start < m.end for k in kept):
            if m.entity_type is not None:
                # Type the untyped span that swallowed this one ("Peter" in a relation).
                for idx, k in enumerate(kept):
                    inside = k.start <= m.start and m.end <= k.end
                    if k.entity_type is None and inside:
                        kept[idx] = Mention(k.text, k.start, k.end, m.entity_type, k.source)
            continue
        kept.append(m)
    return sorted(kept, key=lambda m: m.start)
