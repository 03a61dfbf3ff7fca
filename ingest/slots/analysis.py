"""What each sentence of a turn states, read from its structure rather than its wording.

A ``Statement`` is one sentence reduced to three things a later sentence can be compared
with, whatever words either uses:

- its **mood**: does it assert something as true now (``ASSERT``), ask for something
  (``REQUEST``), or only ask, suppose, plan, report someone else's view, recall history,
  negate without a new value, or narrate a past event? Only assertions and requests can
  replace an earlier value; the rest are kept as said and replace nothing.
- its **values** (``ingest/slots/values.py``): numbers, amounts, times, dates, names, codes,
  the complement of "is" ("the deploy target is *staging*") and the target of a change ("we
  switched it to *production*"), and the values it says are *not* so ("4, not 3").
- its **frame**: the sentence with its values masked and its function words, discourse
  markers ("sorry", "actually", "now") and change verbs ("switched", "moved") left out:
  ``["deploy", "target", "<thing>"]``. Two statements with one frame and different values
  are two values of one slot (``ingest/slots/matching.py``). Names and numbers in the
  *subject* stay in the frame ("the door code for warehouse 1" is not warehouse 3's).

Pure functions over a spaCy ``Doc``; no I/O.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from core.slots import GENERIC
from core.statements import (
    ASSERT,
    CONDITIONAL,
    EVENT,
    HISTORY,
    MODAL,
    NAME,
    NEGATION,
    PLAN,
    QUESTION,
    REPORTED,
    REQUEST,
    WORD,
    Statement,
    Value,
    content_words,
    normal,
    words,
)
from ingest.extract.sentences import split_sentences
from ingest.slots.values import is_when, tokens_in, values_in

Token = Any  # spacy.tokens.Token

# Words that frame how something is said, not what: left out of every frame.
MARKERS = words(
    """sorry actually oh ah ok okay well so yes yeah yep no nope hey hi hello update fyi
    btw correction quick just really also now currently anymore longer these days today
    still instead again please thanks thank oops wait right though typo mean meant
    scratch rather anyway basically officially definitely exactly turns turned out
    apparently heads note reminder small minor quickly change changes tomorrow tonight back
    yesterday"""
)
CORRECTING = words(
    "sorry actually correction oops typo meant scratch mistake wrong misspoke misspelled"
)
# Verbs that say a value changed; what they change *to* is the value.
CHANGING = words(
    """switch move change migrate revert update swap replace shift transfer relocate
    reschedule push bump raise lower increase decrease reduce cut drop set adjust extend
    postpone delay upgrade downgrade rename modify amend correct rise fall grow climb slip
    jump double halve"""
)
LIGHT = words("be have do get make go keep take become remain stay")
_STOP = words(
    """a an the and or but nor of to in on at by for with from into onto over under about
    as than then that this these those there here it its i me my mine we us our ours you
    your yours he him his she her hers they them their theirs who whom whose which what
    when where why how all any some each every both either neither not n't no never one
    ones 's ' will would shall should can could may might must 'll 'd 're 've 'm"""
)
_REPORTING = words(
    """think believe feel suggest say reckon argue propose claim recommend mention tell
    guess suspect hope want expect insist assume doubt worry hear read gather"""
)
_PLANNING = words("plan intend consider aim hope expect want mean try")
_CHECKING = words("check confirm tell remind verify see know find look ask wonder remember")
_PAST_MARKERS = words("previously originally formerly initially before ago used once earlier")
_FUTURE = words("next tomorrow soon eventually later upcoming someday")
_CONDITIONS = words("if unless whether suppose supposing assuming provided")
_HEDGED_MODALS = words("might may could would should must shall")
_COPULAS = frozenset({"be", "become", "remain", "stay"})
_PLACE_PREPS = frozenset({"on", "at", "in", "with", "through", "via", "under", "over"})
# "as a result", "as a team": an "as" phrase that is no role
_NO_ROLE = frozenset({"result", "team", "usual", "example", "part", "reminder", "way", "well"})


def statements(doc: Any, text: str | None = None) -> list[Statement]:
    """Every sentence of a parsed turn as a ``Statement``, in order."""
    text = doc.text if text is None else text
    out: list[Statement] = []
    for tokens in _sentences(doc, text):
        tokens = _without_heading(tokens)
        if not tokens or all(t.is_punct or t.is_space for t in tokens):
            continue
        for clause, head in _clauses(tokens):
            a, b = clause[0].idx, clause[-1].idx + len(clause[-1].text)
            out.append(_statement(doc, clause, text[a:b], a, b, head))
    return _alternatives(doc, _carried(doc, out))


def _carried(doc: Any, said: list[Statement]) -> list[Statement]:
    """A statement whose subject is a pronoun and that names nothing else it is about takes
    what the sentence before it was about: "the guest wifi password you have is wrong. it's
    tidepool2025" is about the guest wifi password (and corrects it, as the sentence before
    says); "I had Akiko wrong. She works out of the Singapore office" is about Akiko."""
    out = list(said)
    for i in range(1, len(out)):
        s, before = out[i], said[i - 1]
        if not s.values or s.mood not in (ASSERT, REQUEST):
            continue
        if before.correction and not before.values and not before.frame and not s.correction:
            s = out[i] = replace(s, correction=True, change=True)  # "Scratch that. Let's do X"
        pronoun = _pronoun_subject(doc, s)
        if pronoun in ("it", "this", "that") and before.subject and not s.words - GENERIC:
            fix = before.correction and not before.values  # "... is wrong. it's X"
            out[i] = replace(
                s,
                frame=(*before.subject, *s.frame),
                subject=before.subject,
                words=s.words | set(before.subject),
                correction=s.correction or fix,
                change=s.change or fix,
            )
        elif pronoun in ("he", "she", "they") and not s.named:
            name = next((v for v in [*before.named, *before.values] if v.kind == NAME), None)
            if name is not None:
                out[i] = replace(s, subject=(*s.subject, *name.norm.split()))
    return out


def _pronoun_subject(doc: Any, s: Statement) -> str | None:
    """The pronoun that is ``s``'s first subject, if it is one ("it's X, they changed it")."""
    tokens = tokens_in(doc, s.start, s.end)
    subject = next((t for t in tokens if t.dep_ in ("nsubj", "nsubjpass")), None)
    return subject.lower_ if subject is not None and subject.pos_ == "PRON" else None


def _alternatives(doc: Any, said: list[Statement]) -> list[Statement]:
    """A request for something else ("Do you have anything else? I'd like to go to San Fran",
    "any other options in Santa Clara?", "let's try another time"): its values stand in
    place of the ones asked for before, as a correction's do."""
    asking = [i for i, s in enumerate(said) if _ALTERNATIVE & set(s.text.lower().split())]
    if not asking:
        return said
    first = asking[0]
    return [
        replace(s, correction=True, change=True)
        if i >= first and s.mood == REQUEST and s.values
        else s
        for i, s in enumerate(said)
    ]


_ALTERNATIVE = frozenset({"else", "other", "another", "instead", "different", "else?"})


def _sentences(doc: Any, text: str) -> list[list[Token]]:
    """The tokens of each sentence: the lines and sentences the text marks, each cut again
    where the parser ends a sentence ("sorry, 4 pallets not 3. they just called back")."""
    out: list[list[Token]] = []
    starts = {s.start for s in doc.sents} if doc.has_annotation("SENT_START") else set()
    for sentence in split_sentences(text):  # offsets into ``text``, which is ``doc.text``
        tokens = tokens_in(doc, sentence.start, sentence.end)
        part: list[Token] = []
        for t in tokens:
            if part and t.i in starts and part[-1].text in (".", "!", "?", ";"):
                out.append(part)
                part = []
            part.append(t)
        if part:
            out.append(part)
    return out


def _without_heading(tokens: list[Token]) -> list[Token]:
    """ "Quick facts: ...", "Update: ...": the few words before a colon at the start say what
    follows, not what is so."""
    colon = next((k for k, t in enumerate(tokens[:6]) if t.text == ":"), None)
    if colon is None or colon == 0 or colon > 4 or colon + 1 >= len(tokens):
        return tokens
    return tokens[colon + 1 :]


def _clauses(tokens: list[Token]) -> list[tuple[list[Token], Token | None]]:
    """The sentence's coordinated clauses, each with its own subject ("the office is in
    Bristol, the team has 14 people, and our accountant is Rhona Patel"): a statement each.
    Subordinate clauses ("I think the budget is 50k") stay with the clause they belong to."""
    inside = {t.i for t in tokens}

    def subject_of(t: Token) -> Token | None:
        return next((c for c in t.children if c.dep_ in ("nsubj", "nsubjpass") and c.i < t.i), None)

    spliced = _comma_splice(tokens, inside, subject_of)
    if spliced is not None:
        return spliced

    heads = [
        t
        for t in tokens
        if t.pos_ in ("VERB", "AUX")
        and (subject_of(t) is not None or t.dep_ == "ROOT")
        and (t.dep_ in ("ROOT", "conj", "parataxis") or t.head.i not in inside)
    ]
    # "Went through the contract and the renewal date is 1 May": a clause with a subject of
    # its own after a first clause without one
    if len(heads) < 2 or all(subject_of(h) is None for h in heads[1:]):
        return [(tokens, None)]
    heads = [heads[0], *(h for h in heads[1:] if subject_of(h) is not None)]
    starts = [tokens[0].i]
    for h in heads[1:]:
        subject = subject_of(h)
        assert subject is not None
        starts.append(min(t.i for t in subject.subtree if t.i in inside))
    out: list[tuple[list[Token], Token | None]] = []
    for k, h in enumerate(heads):
        end = starts[k + 1] if k + 1 < len(starts) else tokens[-1].i + 1
        part = [t for t in tokens if starts[k] <= t.i < end]
        while part and (part[-1].is_punct or part[-1].dep_ == "cc"):
            part.pop()
        if part:
            out.append((part, h))
    return out


def _comma_splice(
    tokens: list[Token], inside: set[int], subject_of: Any
) -> list[tuple[list[Token], Token | None]] | None:
    """Two clauses joined by a comma alone, which the parser hangs one on the other ("Let's do
    Hotel du Vin instead, the other place is too far"): a clause before the main one, with no
    word saying how it depends on it ("if", "because", "when"), said by its speaker (a
    pronoun subject or none), and a comma between."""
    root = next((t for t in tokens if t.dep_ == "ROOT"), None)
    subject = subject_of(root) if root is not None else None
    if root is None or subject is None or subject.i not in inside:
        return None
    begins = min(t.i for t in subject.subtree if t.i in inside)
    for clause in root.children:
        if clause.dep_ not in ("advcl", "ccomp") or clause.i > begins or clause.pos_ != "VERB":
            continue
        if any(c.dep_ in ("mark", "advmod") and c.i < clause.i for c in clause.children):
            continue  # "if we ..., ", "when it ..., "
        own = subject_of(clause)
        if own is not None and own.pos_ != "PRON":
            continue  # "My son Leo goes to Greenfield, pickup is at 3:15": still about Leo
        ends = max(t.i for t in clause.subtree)
        if ends + 2 == begins and tokens[0].doc[ends + 1].text == ",":
            first = [t for t in tokens if t.i <= ends]
            second = [t for t in tokens if t.i >= begins]
            while second and second[-1].is_punct:
                second.pop()
            return [(first, clause), (second, root)]
    return None


def _statement(
    doc: Any, tokens: list[Token], text: str, start: int, end: int, head: Token | None = None
) -> Statement:
    first, last = tokens[0].i, tokens[-1].i
    inside = {t.i for t in tokens}
    roots = [t for t in tokens if t.head.i == t.i or t.head.i not in inside]
    root = head if head is not None else _main(roots)
    subject = _subject_zone(root, inside) if root is not None else set()
    complements, negated_at, change = _complements(doc, tokens, root)
    every = values_in(doc, first, last)
    found = [v for v in every if not is_when(v, doc)]
    when = {i for v in every if is_when(v, doc) for i in range(v.first, v.last + 1)}
    taken = {i for v in every for i in range(v.first, v.last + 1)}
    for a, b in complements:  # a complement the recognizer did not see as a value
        if not any(i in taken for i in range(a, b + 1)):
            span = doc[a : b + 1]
            found.append(
                Value(span.text, WORD, normal(span.text, WORD), span.start_char,
                      span.end_char, a, b)
            )  # fmt: skip
            taken.update(range(a, b + 1))
    found += _after_not(doc, tokens, taken)
    found += _fragment_value(doc, tokens, root, taken, bool(negated_at) or _has_not(tokens))
    found.sort(key=lambda v: v.first)
    negated_at |= {v.first for v in found if _said_not(doc, v, first)}
    if root is not None and _negative(
        root, {v.first for v in found}
    ):  # "we don't use Stripe anymore"
        negated_at |= {v.first for v in found if root.i in {a.i for a in doc[v.first].ancestors}
                       and not _in_other_clause(doc[v.first], root)}  # fmt: skip
    in_subject = [v for v in found if v.first in subject]
    values = [v for v in found if v.first not in subject and v.first not in negated_at]
    negated = [v for v in found if v.first in negated_at and v.first not in subject]
    aside = _asides(root, {t.i for t in tokens}) if root is not None else set()
    kept = [t for t in tokens if t.i not in when and t.i not in aside]
    frame = _frame(doc, kept, [v for v in values if v.first not in aside], negated, in_subject)
    lowered = {t.lower_ for t in tokens}
    correction = bool(lowered & CORRECTING) or _says_correction(tokens) or bool(negated)
    change = change or bool(lowered & {"now", "anymore", "longer", "instead"})
    mood = _mood(doc, tokens, root, text, values, negated)
    return Statement(
        text=text,
        start=start,
        end=end,
        mood=mood,
        frame=tuple(frame),
        subject=tuple(_lemma(doc[i]) for i in sorted(subject) if _kept(doc[i])),
        values=tuple(values),
        negated=tuple(negated),
        named=tuple(v for v in in_subject if v.first not in negated_at),
        correction=correction,
        change=change or correction,
        words=content_words(frame),
    )


def _main(roots: list[Token]) -> Token | None:
    """The sentence's main clause: its first verb root, else its first root."""
    verbs = [r for r in roots if r.pos_ in ("VERB", "AUX")]
    return verbs[0] if verbs else (roots[0] if roots else None)


def _subject_zone(root: Token, inside: set[int]) -> set[int]:
    """Token indices of what the main clause is about: its subject (said before the verb),
    or what a change verb changes ("we switched *the CRM* to Salesforce")."""
    zone: set[int] = set()
    for verb in [root, *(c for c in root.children if c.dep_ == "conj" and c.pos_ != "NOUN")]:
        changing = verb.lemma_.lower() in CHANGING
        for c in verb.children:
            if (
                c.dep_ in ("nsubj", "nsubjpass")
                and c.i < verb.i
                and c.lower_ not in _STOP
                or changing
                and c.dep_ == "dobj"
                and c.lower_ not in _STOP
            ):
                zone.update(t.i for t in c.subtree if t.i in inside)
    return zone


def _complements(
    doc: Any, tokens: list[Token], root: Token | None
) -> tuple[list[tuple[int, int]], set[int], bool]:
    """Spans that are a statement's value by position (what "is" is; what a change goes
    *to*), token indices of values said not to be so, and whether a change verb is used."""
    spans: list[tuple[int, int]] = []
    negated: set[int] = set()
    change = False
    if root is None:
        return spans, negated, change
    inside = {t.i for t in tokens}
    for verb in [root, *(c for c in root.children if c.dep_ == "conj")]:
        lemma = verb.lemma_.lower()
        if verb.i not in inside:
            continue  # a clause of its own (``_clauses``)
        if lemma in CHANGING or _goes_up(verb):
            change = True
            preps = [*verb.children, *(g for c in verb.children if c.dep_ in ("advmod", "prt")
                                       for g in c.children)]  # fmt: skip
            for prep in preps:
                if prep.dep_ == "prep" and prep.lower_ in ("to", "into", "with"):
                    spans += [_phrase(p, inside) for p in _objects(prep)]
                elif prep.dep_ == "prep" and prep.lower_ == "from":
                    negated.update(t.i for p in _objects(prep) for t in p.subtree)
        # the role a verb gives its subject: "joining *as the senior designer*" (with an
        # object, the role is the object's: "we use Notion as our wiki", and Notion the value)
        objects = any(c.dep_ in ("dobj", "obj") for c in verb.children)
        for prep in verb.children:
            if prep.dep_ == "prep" and prep.lower_ == "as" and not objects:
                spans += [
                    _phrase(p, inside)
                    for p in _objects(prep)
                    if p.pos_ in ("NOUN", "PROPN") and p.lemma_.lower() not in _NO_ROLE
                ]
        copular = lemma in _COPULAS or verb.pos_ == "AUX" and verb.dep_ == "ROOT"
        if copular:
            attrs = [c for c in verb.children if c.dep_ in ("attr", "acomp", "oprd")]
            owned = _owned_subject(verb)
            specific = owned or _specific_subject(verb)
            spans += [
                _phrase(a, inside)
                for a in attrs
                if a.pos_ not in ("PRON", "DET") and (owned if a.pos_ == "ADJ" else specific)
            ]
            if not attrs:
                for prep in verb.children:
                    if prep.dep_ == "prep" and prep.lower_ in _PLACE_PREPS:
                        spans += [_phrase(p, inside) for p in _objects(prep)]
        elif (
            _specific_subject(verb)
            and verb.tag_ == "VBG"
            and any(c.dep_ == "aux" and c.lemma_ == "be" for c in verb.children)
            and not any(c.dep_ in ("dobj", "prep", "xcomp", "ccomp") for c in verb.children)
        ):
            spans.append((verb.i, verb.i))  # "the deploy target is staging", misread
    for tok in tokens:  # "4, not 3"; "Jenna, not Jen"; "instead of X"; "rather than X"
        if tok.lower_ in ("not", "n't") and tok.head.i != tok.i:
            target = tok.head
            nxt = doc[tok.i + 1] if tok.i + 1 < len(doc) else None
            if target.i < tok.i and nxt is not None and nxt.i in inside and not nxt.is_punct:
                target = nxt  # "it's 4 now, not 3": the word after "not"
            if target.pos_ in ("NUM", "PROPN", "NOUN", "ADJ") and target.i > tok.i - 1:
                # what follows "not", up to a pause ("4, not 3": the parser may hang the 4 on
                # the 3; "not half two — 15:30": the 15:30 is what it is)
                pause = next((t.i for t in doc[tok.i + 1 :] if t.is_punct), len(doc))
                negated.update(t.i for t in target.subtree if t.i in inside and tok.i < t.i < pause)
        if tok.lower_ in ("instead", "rather") and tok.i + 2 < len(doc):
            after = doc[tok.i + 1]
            if after.lower_ in ("of", "than"):
                negated.update(t.i for t in after.subtree if t.i in inside and t.i != after.i)
    return spans, negated, change


def _after_not(doc: Any, tokens: list[Token], taken: set[int]) -> list[Value]:
    """What "not", "instead of" and "rather than" name when the recognizer saw no value there
    ("It's Jenna, not Jenny"): the noun phrase right after them, as a value."""
    out: list[Value] = []
    inside = {t.i for t in tokens}
    for tok in tokens:
        lower = tok.lower_
        if lower in ("of", "than") and tok.i > 0 and doc[tok.i - 1].lower_ in ("instead", "rather"):
            pass
        elif lower not in ("not", "n't"):
            continue
        a = tok.i + 1
        while a in inside and doc[a].pos_ in ("DET", "SYM"):
            a += 1
        b = a
        while b + 1 in inside and doc[b + 1].pos_ in ("PROPN", "NOUN") and b + 1 - a < 3:
            b += 1
        if a not in inside or a in taken or doc[a].pos_ not in ("PROPN", "NOUN", "ADJ", "NUM"):
            continue
        if any(i in taken for i in range(a, b + 1)):
            continue
        span = doc[a : b + 1]
        kind = NAME if span.text[:1].isupper() else WORD
        out.append(
            Value(span.text, kind, normal(span.text, kind), span.start_char, span.end_char, a, b)
        )
        taken.update(range(a, b + 1))
    return out


_NAME_PARTS = frozenset({"compound", "amod", "nummod"})


def _has_not(tokens: list[Token]) -> bool:
    return any(t.lower_ in ("not", "n't") for t in tokens)


def _fragment_value(
    doc: Any, tokens: list[Token], root: Token | None, taken: set[int], contrasted: bool
) -> list[Value]:
    """A sentence without a verb that sets a noun against another ("Brightpath, not
    Brightwater"): the noun it puts forward is a value, as a recognised name would be."""
    if root is None or not contrasted or root.i in taken or root.pos_ not in ("PROPN", "NOUN"):
        return []
    # the noun set against it comes next ("ugh typo, half three not half two": three is)
    against = next((c for c in root.children if c.dep_ in ("appos", "conj", "npadvmod")), None)
    if not any(c.dep_ == "neg" for c in [*root.children, *(against.children if against else ())]):
        return []
    if any(t.pos_ in ("VERB", "AUX") for t in tokens):
        return []
    inside = {t.i for t in tokens}
    a = b = root.i  # the noun with the words before it that make its name ("Acme Corp")
    while a - 1 in inside and doc[a - 1].head.i == root.i and doc[a - 1].dep_ in _NAME_PARTS:
        a -= 1
    if any(i in taken for i in range(a, b + 1)):
        return []
    span = doc[a : b + 1]
    kind = NAME if span.text[:1].isupper() else WORD
    taken.update(range(a, b + 1))
    return [Value(span.text, kind, normal(span.text, kind), span.start_char, span.end_char, a, b)]


def _said_not(doc: Any, value: Value, first: int) -> bool:
    """ "not 3", "not £1,500", "instead of 2", "rather than Friday", "from 1200 to ...": a
    value said to be no longer so."""
    i = value.first - 1
    while (
        i >= first
        and (doc[i].is_punct and doc[i].text not in ",;")
        or (i >= first and doc[i].pos_ in ("DET", "SYM"))
    ):
        i -= 1
    if i < first:
        return False
    word = doc[i].lower_
    if word in ("not", "n't"):
        return True
    if word in ("of", "than") and i - 1 >= first:
        return doc[i - 1].lower_ in ("instead", "rather")
    if word == "from":
        return any(t.lemma_.lower() in CHANGING for t in doc[first : value.first])
    return False


def _negative(root: Token, value_starts: set[int]) -> bool:
    """A negated main clause ("we don't use X", "X is no longer on Y"); "not" right before a
    value ("£2,000 now, not £1,500") negates that value only."""

    def before_value(neg: Token) -> bool:
        j = neg.i + 1
        while j < len(neg.doc) and j not in value_starts and neg.doc[j].pos_ in ("DET", "SYM"):
            j += 1
        return j in value_starts

    return any(c.dep_ == "neg" and not before_value(c) for c in root.children) or any(
        c.lower_ == "longer" and c.i > 0 and c.nbor(-1).lower_ == "no" for c in root.subtree
    )


def _in_other_clause(tok: Token, root: Token) -> bool:
    """Whether ``tok`` belongs to a clause coordinated with or nested under the root ("we
    don't use Stripe, we use Paddle")."""
    for a in tok.ancestors:
        if a.i == root.i:
            return False
        if a.dep_ in ("conj", "ccomp", "parataxis", "advcl") and a.pos_ in ("VERB", "AUX"):
            return True
    return False


def _owned_subject(verb: Token) -> bool:
    """An adjective after "is" is a value only of something someone has ("*my favourite
    colour* is blue", "*our status* is green"); of anything else it is an opinion ("that bowl
    is gorgeous", "I'm so thankful")."""
    subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if subject is None or subject.pos_ == "PRON":
        return False
    return any(c.dep_ == "poss" for c in subject.children) and not any(
        c.dep_ == "advmod" and c.lower_ in _INTENSIFIERS for c in verb.subtree
    )


def _specific_subject(verb: Token) -> bool:
    """A subject a value can belong to: a named thing, or one said with a determiner or an
    owner ("the deploy target", "our CRM", "Peter's rate"); not a pronoun ("it was an awesome
    time") nor a thing in general ("art is a source of joy")."""
    subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if subject is None or subject.pos_ == "PRON":
        return False
    if subject.pos_ == "PROPN":
        return True
    return any(c.dep_ in ("det", "poss", "compound") for c in subject.children) and not any(
        c.dep_ == "advmod" and c.lower_ in _INTENSIFIERS for c in verb.subtree
    )


_INTENSIFIERS = frozenset(
    {"so", "really", "very", "super", "such", "too", "pretty", "quite", "absolutely", "totally"}
)


def _goes_up(verb: Token) -> bool:
    """ "went up to $150", "has gone down to 3", "we're going back to Ozone": a value that
    changed."""
    return verb.lemma_.lower() in ("go", "come", "move", "switch", "put") and any(
        c.dep_ in ("prt", "advmod") and c.lower_ in ("up", "down", "back") for c in verb.children
    )


def _asides(root: Token, inside: set[int]) -> set[int]:
    """Token indices of what a clause says around its statement: when or why ("after the
    incident", "since half the team is in Lisbon", "because ..."), not what it is about."""
    out: set[int] = set()
    for c in root.children:  # a clause introduced as when or why: "since ...", "because ..."
        if c.dep_ == "advcl" and any(g.dep_ == "mark" for g in c.children):
            out.update(t.i for t in c.subtree if t.i in inside)
    for i in inside:
        t = root.doc[i]
        if t.dep_ == "prep" and t.lower_ in _ASIDE_PREPS:  # wherever the parse hung it
            out.update(x.i for x in t.subtree if x.i in inside)
    return out


_ASIDE_PREPS = frozenset(
    {"after", "before", "during", "since", "until", "following", "because", "despite", "due"}
)


def _objects(prep: Token) -> list[Token]:
    return [c for c in prep.children if c.dep_ in ("pobj", "pcomp")]


def _phrase(head: Token, inside: set[int]) -> tuple[int, int]:
    """A value's span: the head with its modifiers, without determiners or clauses after it
    (at most six tokens; longer, the head alone)."""

    def wanted(t: Token) -> bool:
        if t.i not in inside or t.dep_ in ("det", "poss", "punct", "relcl", "cc", "conj"):
            return False
        if t.lower_ in MARKERS or t.dep_ == "advmod":
            return False
        if t.dep_ == "prep" and t.lower_ != "of":
            return False
        return all(wanted(a) or a.i == head.i for a in _up_to(t, head))

    keep = [t.i for t in head.subtree if t.i == head.i or wanted(t)]
    keep = [i for i in keep if abs(i - head.i) <= 5]
    lo, hi = min(keep, default=head.i), max(keep, default=head.i)
    if hi - lo > 5:
        return head.i, head.i
    return lo, hi


def _up_to(tok: Token, head: Token) -> list[Token]:
    """The ancestors of ``tok`` below ``head``."""
    out = []
    for a in tok.ancestors:
        if a.i == head.i:
            break
        out.append(a)
    return out


def _frame(
    doc: Any,
    tokens: list[Token],
    values: list[Value],
    negated: list[Value],
    in_subject: list[Value],
) -> list[str]:
    """The sentence with values masked (``<family>``), the subject's names kept, and function
    words, markers and change verbs left out."""
    at = {v.first: v for v in values}
    skip = {i for v in [*values, *negated] for i in range(v.first, v.last + 1)}
    named = {v.first: v for v in in_subject}
    named_skip = {i for v in in_subject for i in range(v.first + 1, v.last + 1)}
    out: list[str] = []
    for tok in tokens:
        i = tok.i
        if i in at:
            out.append(f"<{at[i].family}>")
            continue
        if i in named:
            out.append(named[i].norm)
            continue
        if i in skip or i in named_skip or not _kept(tok):
            continue
        out.append(_lemma(tok))
    return out


def _kept(tok: Token) -> bool:
    if tok.is_punct or tok.is_space or tok.like_num and tok.pos_ != "NUM":
        return False
    lower = tok.lower_
    lemma = tok.lemma_.lower()
    if lower in _STOP or lemma in _STOP or lower in MARKERS or lemma in MARKERS:
        return False
    if lemma in LIGHT or lemma in CHANGING:
        return False
    return tok.pos_ not in ("DET", "ADP", "CCONJ", "SCONJ", "PART", "INTJ", "PRON", "AUX")


def _lemma(tok: Token) -> str:
    if tok.like_num:
        return normal(tok.text, "number")
    particle = next((c.lower_ for c in tok.children if c.dep_ == "prt"), None)
    lemma = str(tok.lemma_).lower()
    return f"{lemma}_{particle}" if particle else lemma  # "check in" is not "check out"


def _says_correction(tokens: list[Token]) -> bool:
    """ "make it 4", "make that 3 tickets", "change it to ...", "it should be ...", "I mean
    ...": a correction of what was just said, whatever it was."""
    words = [t.lower_ for t in tokens if not t.is_punct]
    if words[:2] in (["how", "about"], ["what", "about"]) or words[:1] in (["no"], ["nope"]):
        return True  # "no, with Steven", "how about the 9th?": another value, in its place
    for i, w in enumerate(words[:-1]):
        if w in ("make", "change", "meant") and words[i + 1] in ("it", "that", "this"):
            return True
        if w == "should" and words[i + 1] in ("be", "read", "say"):
            return True
    return False


def _mood(
    doc: Any,
    tokens: list[Token],
    root: Token | None,
    text: str,
    values: list[Value],
    negated: list[Value],
) -> str:
    """What the sentence does with its values (see the module docstring)."""
    lowered = [t.lower_ for t in tokens]
    words = set(lowered)
    if root is None:
        return ASSERT
    subj = next((c for c in root.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    first_person = subj is not None and subj.lower_ in ("i", "we")
    lemma = root.lemma_.lower()
    asking = text.rstrip().endswith("?") or (
        lowered[0] in ("is", "are", "does", "do", "did", "was", "were", "has", "have")
        and subj is not None
        and subj.i > tokens[0].i
    )
    if asking:
        if lowered[:2] in (["how", "about"], ["what", "about"]) and values:
            return REQUEST  # "how about the 9th?": a value proposed in place of another
        return REQUEST if _asks_to_do(root, subj) else QUESTION
    if (
        words & _CONDITIONS
        and any(t.dep_ == "mark" and t.lower_ in _CONDITIONS for t in tokens)
        or "what if" in text.lower()
        or "in case" in text.lower()
    ):
        return CONDITIONAL
    reported = [c for c in root.children if c.dep_ in ("ccomp", "xcomp")]
    within = {t.i for c in reported for t in c.subtree}
    # the values said inside what is reported (a comma splice, "schedule posts for 7am now, our
    # analytics say earlier does better", reports nothing of its values)
    if lemma in _REPORTING and reported and (not values or any(v.first in within for v in values)):
        if lemma in ("want", "hope", "expect") and first_person and lemma == "want":
            return REQUEST  # "I want to book a table for 2"
        if not first_person or lemma in ("hear", "read", "gather"):
            return REPORTED  # someone's view; "I heard the office is in Leeds": hearsay
        if lemma in ("hope", "worry", "doubt", "suggest"):
            return PLAN
    if "according" in words or "says" in words and not first_person:
        return REPORTED
    modals = [c.lower_ for c in root.children if c.dep_ == "aux" and c.tag_ == "MD"]
    if any(m in _HEDGED_MODALS for m in modals):
        if lemma in ("like", "love", "prefer") and any(m in ("would", "'d") for m in modals):
            return REQUEST  # "I'd like a table for 4"
        return MODAL
    if words & {"maybe", "perhaps", "possibly", "probably", "hopefully"}:
        return MODAL
    if lemma in _PLANNING and any(c.dep_ == "xcomp" for c in root.children):
        return REQUEST if lemma in ("want", "need") and first_person else PLAN
    if "going" in words and "to" in words and root.tag_ == "VB" or "gonna" in words:
        return PLAN
    future = any(m in ("will", "'ll", "wo") for m in modals)
    if future and (lemma in CHANGING or words & _FUTURE):
        return PLAN
    if words & {"used"} and any(t.lower_ == "used" and t.nbor(1).lower_ == "to"
                                for t in tokens[:-1]):  # fmt: skip
        return HISTORY
    past = root.tag_ in ("VBD", "VBN") and not any(
        c.dep_ in ("aux", "auxpass") and c.tag_ in ("VBZ", "VBP") for c in root.children
    )
    if past and lemma not in CHANGING and not _goes_up(root):
        back_in = any(t.lower_ == "back" and t.nbor(1).lower_ in ("in", "then", "when")
                      for t in tokens[:-1])  # fmt: skip
        if back_in or words & _PAST_MARKERS or any(v.kind == "date" and v.norm[:2] in ("19", "20")
                                        for v in values):  # fmt: skip
            return HISTORY
        # "(I) noted the database is now X": what was done is to take a present fact down
        now_said = any(
            c.dep_ == "ccomp" and c.tag_ in ("VBZ", "VBP") and c.lemma_.lower() in _COPULAS
            for c in root.children
        )
        if lemma not in _COPULAS and lemma not in ("mean",) and not now_said:
            return EVENT  # "we went to the beach": it happened, it replaces nothing
    negative = any(c.dep_ == "neg" for c in root.children) or "longer" in words
    if negative and not values:
        return NEGATION
    if root.tag_ == "VB" and subj is None and root.dep_ == "ROOT":
        return REQUEST  # an imperative: "make it 7:30", "book the 3 pm slot"
    if first_person and lemma in ("need", "want", "like", "prefer", "look"):
        return REQUEST
    return ASSERT


def _asks_to_do(root: Token, subj: Token | None) -> bool:
    """ "Could you book a table for 3 at 18:45?": a request, not a question about a value."""
    you = subj is not None and subj.lower_ == "you"
    modal = any(c.dep_ == "aux" and c.lower_ in ("can", "could", "would", "will") for c in
                root.children)  # fmt: skip
    return you and modal and root.lemma_.lower() not in _CHECKING
