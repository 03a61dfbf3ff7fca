"""The words and token shapes the statement reading (``ingest/slots/analysis.py``) goes by:
word lists kept small and documented, and helpers over a parsed sentence's tokens."""

from __future__ import annotations

from typing import Any

from core.statements import (
    normal,
    words,
)

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

STOP = words(
    """a an the and or but nor of to in on at by for with from into onto over under about
    as than then that this these those there here it its i me my mine we us our ours you
    your yours he him his she her hers they them their theirs who whom whose which what
    when where why how all any some each every both either neither not n't no never one
    ones 's ' will would shall should can could may might must 'll 'd 're 've 'm"""
)

REPORTING = words(
    """think believe feel suggest say reckon argue propose claim recommend mention tell
    guess suspect hope want expect insist assume doubt worry hear read gather"""
)

PLANNING = words("plan intend consider aim hope expect want mean try")

CHECKING = words("check confirm tell remind verify see know find look ask wonder remember")

PAST_MARKERS = words("previously originally formerly initially before ago used once earlier")
# what a place or a time said as over is ("at my old company", "in my previous flat")
FORMER = words("old previous former prior last")

FUTURE = words("next tomorrow soon eventually later upcoming someday")

CONDITIONS = words("if unless whether suppose supposing assuming provided")

HEDGED_MODALS = words("might may could would should must shall")

COPULAS = frozenset({"be", "become", "remain", "stay"})

PLACE_PREPS = frozenset({"on", "at", "in", "with", "through", "via", "under", "over"})

# "as a result", "as a team": an "as" phrase that is no role
NO_ROLE = frozenset({"result", "team", "usual", "example", "part", "reminder", "way", "well"})

ALTERNATIVE = frozenset({"else", "other", "another", "instead", "different", "else?"})


def main_clause(roots: list[Token]) -> Token | None:
    """The sentence's main clause: its first verb root, else its first root."""
    verbs = [r for r in roots if r.pos_ in ("VERB", "AUX")]
    return verbs[0] if verbs else (roots[0] if roots else None)


NAME_PARTS = frozenset({"compound", "amod", "nummod"})


def answers_no(tok: Token) -> bool:
    """ "no - 18:40, evening.", "nope, Thursday": a "no" set off at a sentence's start answers
    what was said before; it negates nothing of its own sentence."""
    doc = tok.doc
    return (
        tok.lower_ in ("no", "nope", "nah")
        and (tok.i == 0 or tok.is_sent_start or doc[tok.i - 1].is_punct)
        and tok.i + 1 < len(doc)
        and doc[tok.i + 1].is_punct
    )


def has_not(tokens: list[Token]) -> bool:
    return any(t.lower_ in ("not", "n't") for t in tokens)


def negated_clause(root: Token, value_starts: set[int]) -> bool:
    """A negated main clause ("we don't use X", "X is no longer on Y"); "not" right before a
    value ("£2,000 now, not £1,500") negates that value only."""

    def before_value(neg: Token) -> bool:
        j = neg.i + 1
        while j < len(neg.doc) and j not in value_starts and neg.doc[j].pos_ in ("DET", "SYM"):
            j += 1
        return j in value_starts

    return any(
        c.dep_ == "neg" and not before_value(c) and not answers_no(c) for c in root.children
    ) or any(c.lower_ == "longer" and c.i > 0 and c.nbor(-1).lower_ == "no" for c in root.subtree)


def in_other_clause(tok: Token, root: Token) -> bool:
    """Whether ``tok`` belongs to a clause coordinated with or nested under the root ("we
    don't use Stripe, we use Paddle")."""
    for a in tok.ancestors:
        if a.i == root.i:
            return False
        if a.dep_ in ("conj", "ccomp", "parataxis", "advcl") and a.pos_ in ("VERB", "AUX"):
            return True
    return False


def owned_subject(verb: Token) -> bool:
    """An adjective after "is" is a value only of something someone has ("*my favourite
    colour* is blue", "*our status* is green"); of anything else it is an opinion ("that bowl
    is gorgeous", "I'm so thankful")."""
    subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if subject is None or subject.pos_ == "PRON":
        return False
    return any(c.dep_ == "poss" for c in subject.children) and not any(
        c.dep_ == "advmod" and c.lower_ in INTENSIFIERS for c in verb.subtree
    )


def specific_subject(verb: Token) -> bool:
    """A subject a value can belong to: a named thing, or one said with a determiner or an
    owner ("the deploy target", "our CRM", "Peter's rate"); not a pronoun ("it was an awesome
    time") nor a thing in general ("art is a source of joy")."""
    subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if subject is None or subject.pos_ == "PRON":
        return False
    if subject.pos_ == "PROPN":
        return True
    return any(c.dep_ in ("det", "poss", "compound") for c in subject.children) and not any(
        c.dep_ == "advmod" and c.lower_ in INTENSIFIERS for c in verb.subtree
    )


INTENSIFIERS = frozenset(
    {"so", "really", "very", "super", "such", "too", "pretty", "quite", "absolutely", "totally"}
)


def goes_up(verb: Token) -> bool:
    """ "went up to $150", "has gone down to 3", "we're going back to Ozone": a value that
    changed."""
    return verb.lemma_.lower() in ("go", "come", "move", "switch", "put") and any(
        c.dep_ in ("prt", "advmod") and c.lower_ in ("up", "down", "back") for c in verb.children
    )


ASIDE_PREPS = frozenset(
    {"after", "before", "during", "since", "until", "following", "because", "despite", "due"}
)


def objects_of(prep: Token) -> list[Token]:
    return [c for c in prep.children if c.dep_ in ("pobj", "pcomp")]


def phrase_span(head: Token, inside: set[int]) -> tuple[int, int]:
    """A value's span: the head with its modifiers, without determiners or clauses after it
    (at most six tokens; longer, the head alone)."""

    def wanted(t: Token) -> bool:
        if t.i not in inside or t.dep_ in ("det", "poss", "punct", "relcl", "cc", "conj"):
            return False
        if t.lower_ in MARKERS or t.dep_ == "advmod":
            return False
        if t.dep_ == "prep" and t.lower_ != "of":
            return False
        return all(wanted(a) or a.i == head.i for a in up_to(t, head))

    keep = [t.i for t in head.subtree if t.i == head.i or wanted(t)]
    keep = [i for i in keep if abs(i - head.i) <= 5]
    lo, hi = min(keep, default=head.i), max(keep, default=head.i)
    if hi - lo > 5:
        return head.i, head.i
    return lo, hi


def up_to(tok: Token, head: Token) -> list[Token]:
    """The ancestors of ``tok`` below ``head``."""
    out = []
    for a in tok.ancestors:
        if a.i == head.i:
            break
        out.append(a)
    return out


def kept_in_frame(tok: Token) -> bool:
    if tok.is_punct or tok.is_space or tok.like_num and tok.pos_ != "NUM":
        return False
    lower = tok.lower_
    lemma = tok.lemma_.lower()
    if lower in STOP or lemma in STOP or lower in MARKERS or lemma in MARKERS:
        return False
    if lemma in LIGHT or lemma in CHANGING:
        return False
    return tok.pos_ not in ("DET", "ADP", "CCONJ", "SCONJ", "PART", "INTJ", "PRON", "AUX")


def lemma_of(tok: Token) -> str:
    if tok.like_num:
        return normal(tok.text, "number")
    particle = next((c.lower_ for c in tok.children if c.dep_ == "prt"), None)
    lemma = str(tok.lemma_).lower()
    return f"{lemma}_{particle}" if particle else lemma  # "check in" is not "check out"
