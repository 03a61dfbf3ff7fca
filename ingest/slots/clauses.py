"""A turn's sentences and each sentence's clauses, as the statement reading takes them
(``ingest/slots/analysis.py``): lines and sentences the text marks, cut again where the
parser ends one; coordinated clauses and comma splices a statement each."""

from __future__ import annotations

from typing import Any

from ingest.extract.sentences import split_sentences
from ingest.slots.grammar import Token
from ingest.slots.values import TITLES, tokens_in


def sentences_of(doc: Any, text: str) -> list[list[Token]]:
    """The tokens of each sentence: the lines and sentences the text marks, each cut again
    where the parser ends a sentence ("sorry, 4 pallets not 3. they just called back") or
    a full stop of its own is followed by a word (a parser keeps "... ~12 min. what should
    the page cover?" whole; an abbreviation's stop is part of its token: "Dr. Brennan")."""
    out: list[list[Token]] = []
    starts = {s.start for s in doc.sents} if doc.has_annotation("SENT_START") else set()
    for sentence in split_sentences(text):  # offsets into ``text``, which is ``doc.text``
        tokens = tokens_in(doc, sentence.start, sentence.end)
        part: list[Token] = []
        for t in tokens:
            if (
                part
                and part[-1].text in (".", "!", "?", ";")
                and (t.i in starts or part[-1].text != ";" and t.is_alpha and _ends(part))
            ):  # a stop of its own then a word: "builds take ~12 min. what should it cover?"
                out.extend(_at_dashes(part))
                part = []
            part.append(t)
        if part:
            out.extend(_at_dashes(part))
    return out


_DASHES = frozenset({"-", "–", "—", "--"})


def _at_dashes(tokens: list[Token]) -> list[list[Token]]:
    """A sentence cut where a dash stands between two clauses, each with a verb of its own
    ("scratch that number, it's 38 — four people from sales pulled out"): chat joins thoughts
    with a dash, and the parser hangs one on the other. The words next to the dash, up to
    the nearest pause, hold a verb on each side; a dash in a range ("9 - 5", "Mon – Fri"),
    inside a phrase, or before an aside ("found someone else — Amara, a student") stays."""
    cuts = [k for k in range(1, len(tokens) - 1) if _spaced_dash(tokens, k)]
    if not cuts:
        return [tokens]
    out: list[list[Token]] = []
    start = 0
    for k in [*cuts, len(tokens)]:
        piece = tokens[start:k]
        rest = tokens[k + 1 :] if k < len(tokens) else []
        if k < len(tokens) and not (
            _has_verb(_after_pause(piece)) and _has_verb(_upto_pause(rest))
        ):
            continue  # this dash stays inside the piece
        if piece:
            out.append(piece)
        start = k + 1
    return out or [tokens]


def _upto_pause(tokens: list[Token]) -> list[Token]:
    """The words after a dash up to the next pause: a clause begins there, or an aside
    ("— Amara, a nursing student, she's …" names what came before the dash)."""
    end = next((k for k in range(len(tokens)) if _pause(tokens, k)), len(tokens))
    return tokens[:end]


def _after_pause(tokens: list[Token]) -> list[Token]:
    start = max((k + 1 for k in range(len(tokens)) if _pause(tokens, k)), default=0)
    return tokens[start:]


def _spaced_dash(tokens: list[Token], k: int) -> bool:
    """A dash with a space on each side (not the hyphen of "us-east-1" or an address)."""
    t = tokens[k]
    return (
        t.text in _DASHES and t.is_punct and bool(t.whitespace_)
        and k > 0 and bool(tokens[k - 1].whitespace_)
    )  # fmt: skip


def _pause(tokens: list[Token], k: int) -> bool:
    return tokens[k].text in (",", ";", ":") or _spaced_dash(tokens, k)


def _has_verb(tokens: list[Token]) -> bool:
    return any(t.pos_ in ("VERB", "AUX") for t in tokens)


def _ends(part: list[Token]) -> bool:
    """Whether the stop that closes ``part`` ends a sentence: a word before it that is no
    abbreviation ("e.g.", "a.m.", an initial, a title: "we take biscuit to dr. nakamura")."""
    if len(part) < 3:
        return False
    before = part[-2].text
    return "." not in before and len(before) > 1 and before.lower() not in TITLES


def without_heading(tokens: list[Token]) -> list[Token]:
    """ "Quick facts: ...", "Update: ...": the few words before a colon at the start say what
    follows, not what is so."""
    colon = next((k for k, t in enumerate(tokens[:6]) if t.text == ":"), None)
    if colon is None or colon == 0 or colon > 4 or colon + 1 >= len(tokens):
        return tokens
    return tokens[colon + 1 :]


def clauses_of(tokens: list[Token]) -> list[tuple[list[Token], Token | None]]:
    """The sentence's coordinated clauses, each with its own subject ("the office is in
    Bristol, the team has 14 people, and our accountant is Rhona Patel"): a statement each.
    Subordinate clauses ("I think the budget is 50k") stay with the clause they belong to."""
    inside = {t.i for t in tokens}

    def subject_of(t: Token) -> Token | None:
        return next((c for c in t.children if c.dep_ in ("nsubj", "nsubjpass") and c.i < t.i), None)

    spliced = comma_splice(tokens, inside, subject_of)
    if spliced is not None:
        return spliced

    heads = [
        t
        for t in tokens
        if t.pos_ in ("VERB", "AUX")
        and (subject_of(t) is not None or t.dep_ == "ROOT")
        and (t.dep_ in ("ROOT", "conj", "parataxis") or t.head.i not in inside)
    ]
    listed = _listed(tokens, subject_of)
    if len(listed) + len(heads) >= 3:  # a list of three facts or more
        heads = sorted([*heads, *listed], key=lambda t: t.i)
    # "Went through the contract and the renewal date is 1 May": a clause with a subject of
    # its own after a first clause without one
    if len(heads) < 2 or all(subject_of(h) is None for h in heads[1:]):
        return [(tokens, None)]
    heads = [heads[0], *(h for h in heads[1:] if subject_of(h) is not None)]
    starts = [tokens[0].i]
    for before, h in zip(heads, heads[1:], strict=False):
        subject = subject_of(h)
        assert subject is not None
        starts.append(_lead_in(tokens, min(t.i for t in subject.subtree if t.i in inside), before))
    out: list[tuple[list[Token], Token | None]] = []
    for k, h in enumerate(heads):
        end = starts[k + 1] if k + 1 < len(starts) else tokens[-1].i + 1
        part = [t for t in tokens if starts[k] <= t.i < end]
        while part and (part[-1].is_punct or part[-1].dep_ == "cc"):
            part.pop()
        if part:
            out.append((part, h))
    return out


def _listed(tokens: list[Token], subject_of: Any) -> list[Token]:
    """The clauses of a list of facts ("venue is Hengrave Hall, date is 20 September, the
    band is The Velvet Tones"), which the parser hangs each on the next: clauses with a
    subject of their own, each before the clause it hangs on and set off from it by a
    comma, with no word saying how it depends on it. They are clauses of their own in a
    list of three or more; in two, the first may well belong to the next ("My son Leo goes
    to Greenfield, pickup is at 3:15")."""
    doc = tokens[0].doc
    out: list[Token] = []
    for t in tokens:
        if t.dep_ != "ccomp" or t.pos_ not in ("VERB", "AUX") or t.i > t.head.i:
            continue
        if subject_of(t) is None or any(
            c.dep_ in ("mark", "advmod") and c.i < t.i for c in t.children
        ):
            continue
        then = subject_of(t.head)
        if then is None or then.pos_ == "PRON":
            continue  # "Rosa is watching the kids on date nights, she insisted": said, not listed
        ends = max(c.i for c in t.subtree)
        if ends + 1 < len(doc) and doc[ends + 1].text == ",":
            out.append(t)
    return out


def comma_splice(
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


_PAUSES = frozenset({",", ";", ":", "-", "–", "—"})


def _lead_in(tokens: list[Token], start: int, before: Token) -> int:
    """Where a clause starts: at its subject, or at the phrase without a verb that leads into
    it after a pause ("…statements - back in 2019 our first flat was £950": the "back in 2019"
    is the second clause's, wherever the parser hung it)."""
    by_index = {t.i: t for t in tokens}
    i = start - 1
    while i > before.i and i in by_index:
        t = by_index[i]
        if t.is_punct and t.text not in _PAUSES:
            return start  # a quote or an apostrophe is inside a phrase
        if t.is_punct:
            lead = i + 1  # without the "and" or "but" that joins the clauses
            while lead < start and by_index[lead].dep_ == "cc":
                lead += 1
            return lead
        if t.pos_ in ("VERB", "AUX"):
            return start
        i -= 1
    return start
