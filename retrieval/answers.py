"""Which hits answer a question (``retrieval/slots._by_question``), beyond the statements
that share its words: the top hits giving the kind of value asked for, a conversation's later
corrections, and, of the newest turn, the sentence that gives what the earlier values gave;
which lines hold a value a later correction said is not so (``denied``) or an assistant
misheard (``misheard``); and, in one conversation, which line was said last (``newest_said``)."""

from __future__ import annotations

import re

from core.slots import Focus
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
    Statement,
    Value,
)
from core.types import Hit
from resolution.cues import KIN
from retrieval.pairs import by_assistant, by_user, statements_of
from retrieval.pairs import earlier as marked_earlier

ANSWERS = "answers"  # the signal of a hit found giving what the question asks (``answering``)
TOP_FOUND = 5  # the search's first hits taken as about the question (``found_for``)
SAID_FIRST = 6  # the first hits a conversation is read newest first in (``newest_said``)


def found_for(
    hits: list[Hit],
    said: dict[str, list[Statement]],
    relevant: dict[str, list[Statement]],
    focus: Focus,
    named: set[str | None],
) -> dict[str, list[Statement]]:
    """The statements the search itself ranked top for the question, in whatever words
    ("what time is our daily sync?" finds "standup is at 9:30"): a user's statement among the
    first ``TOP_FOUND`` hits that gives a time, a date or an amount when the question asks for
    one. Not for a question that asks for a name or does not say what kind: a conversation
    names many things."""
    if focus.families is None or "thing" in focus.families:
        return {}
    out: dict[str, list[Statement]] = {}
    for h in hits[:TOP_FOUND]:
        m = h.memory
        if m.id in relevant or m.earlier_until is not None or not by_user(m):
            continue
        if not (focus.names_in(m.indexed_text) or m.session_id in named):
            continue
        found = [s for s in said[m.id] if s.slotted and focus.answers(s)]
        if found:
            out[m.id] = found
    return out


def holding(
    current: Hit,
    relevant: dict[str, list[Statement]],
    said: dict[str, list[Statement]],
    focus: Focus,
) -> list[Statement]:
    """The statements of the current hit that hold the current value: its relevant ones;
    but when none of them gives a value of a kind the earlier hits gave and another sentence
    of the same turn said as so does, that one ("ingest prod moved again, it's in
    ap-southeast-2 now. third region this year": the region, not "this year"). Of a turn
    that says a change, the sentences that say it."""
    mine = [s for s in relevant[current.memory.id] if s.slotted]
    # of a turn that says a change, the sentence saying it: "Greenfield's prices went up 30%
    # so we've moved to Harlow & Sons for flour" holds Harlow & Sons, not Greenfield
    changed = [s for s in mine if s.change or s.correction]
    if changed and len(changed) < len(mine):
        mine = changed
    before = {
        v.family
        for i, statements in relevant.items()
        if i != current.memory.id
        for s in statements
        for v in focus.answers(s)
    }
    if not before or any(v.family in before for s in mine for v in focus.answers(s)):
        return mine
    others = [
        s
        for s in said[current.memory.id]
        if s not in mine
        and s.slotted
        and s.mood == ASSERT
        and any(v.family in before for v in focus.answers(s))
        and not names_other(s, focus)
    ]
    return others or mine


def follow_ups(
    hits: list[Hit],
    said: dict[str, list[Statement]],
    relevant: dict[str, list[Statement]],
    focus: Focus,
) -> dict[str, list[Statement]]:
    """A conversation's later corrections, after the user spoke of the question's topic in it:
    "How about Saturday instead?" after "I'd like a table at Luigi's on Friday" answers
    "which day is the table booked for?" too, though it names no table. Only the user's, of the same
    session, later than a relevant statement of it, naming no one the question does not."""
    began: dict[str, float] = {}
    for h in hits:
        m = h.memory
        if m.id in relevant and m.session_id is not None and by_user(m):
            began[m.session_id] = min(began.get(m.session_id, m.valid_from), m.valid_from)
    out: dict[str, list[Statement]] = {}
    for h in hits:
        m = h.memory
        if m.id in relevant or m.earlier_until is not None or not by_user(m):
            continue
        if m.session_id not in began or m.valid_from <= began[m.session_id]:
            continue
        found = [
            s
            for s in said[m.id]
            if s.slotted
            and s.mood in (REQUEST, ASSERT)
            and s.correction
            and focus.answers(s)
            and not names_other(s, focus)
        ]
        if found:
            out[m.id] = found
    return out


def names_other(s: Statement, focus: Focus) -> bool:
    """Whether the statement's subject names someone or something the question does not
    ("Anna's number is ..." for a question about Tom's)."""
    asked = {n.lower() for n in focus.names}
    return any(v.norm not in asked for v in s.named)


_TOKEN = re.compile(r"[^\W_]+(?:[:.'][^\W_]+)*")  # words and numbers: "eva", "6:40", "12d"


def denied(hits: list[Hit]) -> list[Hit]:
    """A line that holds a value a user's later correction in the same conversation says is
    not so ("aoife, not eva" after the assistant's "your physio is Dr Eva Brennan"; "no,
    6:14. not 6:40"), and not the value the correction gives, is labelled earlier, until the
    correction: whoever said it, the line was wrong. Only corrections among the hits, and
    only lines said before them in their session."""
    denials = []  # (session, when, values said not to be so, values given, the correction)
    for h in hits:
        m = h.memory
        if m.session_id is None or not by_user(m):
            continue
        for s in statements_of(m):
            if s.correction and s.negated:
                denials.append((m.session_id, m.valid_from, s.negated, s.values, m.id))
    if not denials:
        return hits
    out = list(hits)
    for i, hit in enumerate(out):
        m = hit.memory
        if m.earlier_until is not None or m.session_id is None:
            continue
        held = _values(hit)
        for session, at, negated, given, source in denials:
            if m.session_id != session or m.valid_from >= at or m.id == source:
                continue
            if any(_holds(held, v) for v in negated) and not any(_holds(held, v) for v in given):
                out[i] = marked_earlier(hit, at)
                break
    return out


def _holds(held: list[Value], value: Value) -> bool:
    """Whether one of ``held`` is ``value`` said again, or a name that holds its words whole
    ("Dr Eva Brennan" holds "eva", typed in lower case; a number is only itself: "3" is not
    in "3 March")."""
    words = _words(value)
    return any(
        v.same(value) or v.kind == NAME and _alphabetic(words) and words <= _words(v) for v in held
    )


def _alphabetic(words: set[str]) -> bool:
    return bool(words) and all(w.isalpha() for w in words)


def _words(v: Value) -> set[str]:
    return set(_TOKEN.findall(v.text.lower()))


EXCHANGE = 15 * 60.0  # seconds: a user's line, the assistant's answer and the user's reply


def misheard(hits: list[Hit]) -> list[Hit]:
    """An assistant's line between two of the user's, minutes apart in one session, that
    gives a value the user gave otherwise both before and after it ("Unit 12B, Foundry
    Court" → "I've noted Unit 12D, Foundry Court" → "It's 12B. B for Bravo."): the assistant
    misheard, and its line is labelled earlier, until the user's reply."""
    users = [(h.memory, _values(h)) for h in hits if by_user(h.memory) and h.memory.session_id]
    out = list(hits)
    for i, hit in enumerate(out):
        a = hit.memory
        if not by_assistant(a) or a.earlier_until is not None or a.session_id is None:
            continue
        said = _values(hit)
        around = [(m, values) for m, values in users if m.session_id == a.session_id]
        for before, was in around:
            if before.valid_from >= a.valid_from:
                continue
            # a value the user gave before, and again after: what the assistant gave otherwise
            for after, now in around:
                if not a.valid_from < after.valid_from <= before.valid_from + EXCHANGE:
                    continue
                kept = [u for u in was if any(x.same(u) for x in now)]
                if any(_other(v, u, was) for u in kept for v in said):
                    out[i] = marked_earlier(hit, after.valid_from)
    return out


def _values(hit: Hit) -> list[Value]:
    return [v for s in statements_of(hit.memory) for v in s.values]


def _other(v: Value, u: Value, was: list[Value]) -> bool:
    """Whether ``v`` gives ``u``'s kind of value otherwise, and the user never said it."""
    return u.family == v.family and not v.same(u) and not any(w.same(v) for w in was)


def newest_said(hits: list[Hit], focus: Focus, faint: float = 0.0) -> list[Hit]:
    """In one conversation, what was said last is what holds now: among the first hits, the
    user's lines of one session go newest first ("Find something in Redwood City", then "Can
    you find some alternatives in Los Gatos?"), each followed by the earlier values labelled
    after it, and above the lines of that session that do not move.

    What keeps a question or a suggestion from replacing a value (``level``):
    - nothing passes a value the user said as so ("the call is at 3"; between two such lines
      the slots decide, not the clock);
    - a request is passed only by a later request or value, a question only by a later
      question, request or value;
    - the assistant's lines and the user's suppositions, plans and reports of others never
      move up;
    - where the question says the kind of value it asks (a date, a time, an amount), only a
      line that gives one moves up;
    - a line only faintly like the question (similarity below ``faint``, no word of it) does
      not move up: a context's first hits are held to no similarity floor (``Floor``), and
      "our flour comes from Holloway Mill" must not become one of them for "who should I ask
      about the oven?".
    A user's later correction of a value of a kind a line gives passes that line, whatever it
    is ("argh sorry, it's ap@northwind-joinery.co.uk" after "send their invoices to
    accounts@northwind-joinery.co.uk"). A question that names someone reads only the lines
    that name them."""
    blocks = _blocks(hits)
    first, seen = [], 0
    for block in blocks:
        if seen >= SAID_FIRST:
            break
        first.append(block)
        seen += len(block)
    by_session: dict[str, list[int]] = {}
    for i, block in enumerate(first):
        m = block[0].memory
        if m.session_id is None or m.earlier_until is not None:
            continue
        if not focus.names_in(m.indexed_text):
            continue
        by_session.setdefault(m.session_id, []).append(i)
    kind = focus.families is not None and "thing" not in focus.families

    def level(h: Hit) -> int:
        """How far a line may move up: a value said as so (3) past anything; a request (2)
        past requests, questions and the rest; a question or a line with no value (1) past
        questions and the rest; the assistant's lines and the user's plans, suppositions and
        reports of others (0) past nothing. A line gives the kind asked, where it is said."""
        m = h.memory
        said = statements_of(m)
        faintly = h.signals.get("similarity", 1.0) < faint and h.signals.get("keyword", 0.0) <= 0
        if not by_user(m) or faintly:
            return 0
        if _said_as_so(said):
            grade = 3
        elif not said:  # no value in it ("now do the same for my savings account")
            return 0 if kind else 1
        elif any(s.mood == REQUEST for s in said):
            grade = 2
        elif all(s.mood == QUESTION for s in said):
            # "what will it be like on the 13th?" asks with the date it gives: a request's
            # parameter, where the question asks a date
            grade = 2 if kind and any(focus.answers(s) for s in said) else 1
        else:
            return 0
        return grade if not kind or any(focus.answers(s) for s in said) else 0

    def fixes(h: Hit, above: Hit) -> set[str]:
        """The kinds of which the user's line ``h`` corrects a value the line ``above``
        gives otherwise ("argh sorry, it's ap@northwind-joinery.co.uk" after "send their
        invoices to accounts@..."; not "terminal 2! not 3" after "my mom lands at terminal
        2")."""
        if not by_user(h.memory):
            return set()
        given = [v for s in statements_of(above.memory) for v in s.values]
        corrections = [
            s
            for s in statements_of(h.memory)
            if s.correction and s.mood in (ASSERT, EVENT, REQUEST)
        ]
        fixed = [v for s in corrections for v in s.values]
        denied = [v for s in corrections for v in s.negated]
        if denied and not any(_agree(g, d) for g in given for d in denied):
            return set()  # "no, 6:14. not 6:40" fixes only what said 6:40
        kinds = {v.family for v in fixed if any(g.family == v.family for g in given)}
        return {
            k for k in kinds if not any(_agree(g, w) for g in given for w in fixed if w.family == k)
        }

    passed: dict[str, tuple[float, set[str]]] = {}  # a line a correction passed: when, kinds

    for places in by_session.values():
        # (level, when said, the line) of each line, read once; a user's later correction of
        # a value a line of the session gives otherwise is said as so, however faintly like
        # the question ("ah no, it's Larch Avenue" after "the shipping address ...: 221 Larch
        # Street"), and passes that line even if it is said as so: that value is the earlier
        # one
        heads = [first[i][0] for i in places]
        fixing: dict[str, set[str]] = {}  # a correction: the lines it fixes
        for h in heads:
            # the newest line before it that gives a value of its kind otherwise, and the
            # lines before that gave the same value ("no you flipped it, eight thousand four
            # hundred" fixes the assistant's "Okay, 4,800", not the user's "quoted 8,400")
            # (of every line of the session's blocks: one already labelled earlier is one)
            before = sorted(
                (o for i in places for o in first[i] if o.memory.valid_from < h.memory.valid_from),
                key=lambda o: -o.memory.valid_from,
            )
            target = next(((o, found) for o in before if (found := fixes(h, o))), None)
            if target is None:
                continue
            wrong = [v for s in statements_of(target[0].memory) for v in s.values
                     if v.family in target[1]]  # fmt: skip
            for other in before:
                said = [v for s in statements_of(other.memory) for v in s.values]
                kinds = fixes(h, other)
                if other.memory.earlier_until is not None:
                    continue
                if other is target[0] or kinds and any(v.same(w) for v in said for w in wrong):
                    fixing.setdefault(h.memory.id, set()).add(other.memory.id)
                    when, known = passed.get(other.memory.id, (h.memory.valid_from, set()))
                    passed[other.memory.id] = (min(when, h.memory.valid_from), known | kinds)
        line = [
            (3 if h.memory.id in fixing else level(h), h.memory.valid_from, first[i])
            for i, h in zip(places, heads, strict=True)
        ]
        moved, rounds = True, len(line) ** 2  # (a bound, whatever the levels say)
        while moved and rounds:  # a line passes the one above it while it may, until none can
            moved, rounds = False, rounds - 1
            for k in range(len(line) - 1):
                (above, then, up), (below, when, block) = line[k], line[k + 1]
                fixed = up[0].memory.id in fixing.get(block[0].memory.id, ())
                if fixed or below and above < 3 and (not above or when > then and below >= above):
                    line[k], line[k + 1] = line[k + 1], line[k]
                    moved = True
        scores = [first[i][0].score for i in places]
        for place, (_, _, block), score in zip(places, line, scores, strict=True):
            # a line takes the score of the place it takes: the lines after it keep theirs
            head = block[0].model_copy(update={"score": score})
            if head.memory.id in fixing:  # it answers in the place of what it fixed
                head = head.model_copy(update={"signals": {**head.signals, ANSWERS: 1.0}})
            if head.memory.id in passed and head.memory.earlier_until is None:
                until, kinds = passed[head.memory.id]
                head = marked_earlier(head, until, _span(head, kinds))
            first[place] = [head, *block[1:]]
    return [h for block in first + blocks[len(first) :] for h in block]


def _blocks(hits: list[Hit]) -> list[list[Hit]]:
    """The hits as lines, each with the earlier values labelled after it."""
    blocks: list[list[Hit]] = []
    for h in hits:
        if h.memory.earlier_until is not None and blocks:
            blocks[-1].append(h)
        else:
            blocks.append([h])
    return blocks


def _agree(a: Value, b: Value) -> bool:
    """Whether two values of one kind are one, or one says the other in part ("6:14" and
    "6:14pm", "aoife" and "Dr Aoife Brennan")."""
    x, y = a.text.lower(), b.text.lower()
    if a.family != b.family:
        return False
    return a.same(b) or min(len(x), len(y)) >= 2 and (x in y or y in x)


def _span(h: Hit, kinds: set[str]) -> tuple[int, int] | None:
    """The part of a line that gives its values of ``kinds``, when it gives others too."""
    valued = [s for s in statements_of(h.memory) if s.values]
    these = [s for s in valued if any(v.family in kinds for v in s.values)]
    if not these or len(these) == len(valued):
        return None
    return min(s.start for s in these), max(s.end for s in these)


def _said_as_so(said: list[Statement]) -> bool:
    """Whether a line's statements ``said`` give a value as so (not asked, requested, planned
    or supposed), or correct one."""
    return any(s.mood in (ASSERT, EVENT, NEGATION) and s.values or s.correction for s in said)


NOT_SO = frozenset({QUESTION, CONDITIONAL, MODAL, PLAN, REPORTED, NEGATION, HISTORY})


def so_before_not_so(hits: list[Hit], focus: Focus, close: frozenset[str]) -> list[Hit]:
    """Among the first hits, a user's line that gives its values only as not so goes after
    the first line below it that states a value of the kind asked as so and is about the
    question (by its words, or by meaning: ``close``): "we don't do Royal Mail at all",
    "Derek keeps arguing standup should be at 11:00", "I might open a Starling account"
    follow "all our orders ship with DPD", "team standup is at 9:30", whatever their
    similarity to the question. What is denied, asked, supposed, planned, recalled or
    someone else's view is read after what is so, never in its place."""
    blocks = _blocks(hits)
    mine = re.search(r"\b(?:i|my|me|we|our|us)\b", focus.text) is not None

    def not_so(h: Hit) -> bool:
        valued = [s for s in statements_of(h.memory) if s.values or s.negated]
        return (
            by_user(h.memory)
            and bool(valued)
            and all(
                # (a denial with no value in its place corrects nothing: "we don't do Royal
                # Mail"); another person's, where the question asks of the user's own
                s.mood in NOT_SO
                and (s.mood == NEGATION or not s.correction)
                or mine
                and _someone_elses(s, focus)
                for s in valued
            )
        )

    def families(h: Hit) -> set[str]:
        return {v.family for s in statements_of(h.memory) for v in (*s.values, *s.negated)}

    def so(h: Hit, kinds: set[str]) -> bool:
        """A line the user says as so, answering the question, about it or giving a value
        of a kind the line not so gives ("DPD" for "Royal Mail")."""
        m = h.memory
        return by_user(m) and any(
            s.mood in (ASSERT, EVENT)
            and focus.answers(s)
            and (
                focus.relevant(s, m.indexed_text, close=s.text in close)
                or any(v.family in kinds for v in s.values)
            )
            for s in statements_of(m)
        )

    first = min(len(blocks), SAID_FIRST)
    moved: set[str] = set()  # each line moves once at most
    k = 0
    while k < first:
        head = blocks[k][0]
        if head.memory.id not in moved and not_so(head):
            kinds = families(head)
            below = next(
                (j for j in range(k + 1, first)
                 if not not_so(blocks[j][0]) and so(blocks[j][0], kinds)),
                None,
            )  # fmt: skip
            if below is not None:
                moved.add(head.memory.id)
                blocks.insert(below, blocks.pop(k))
                continue  # the block now at ``k`` is read in turn
        k += 1
    return [h for block in blocks for h in block]


def _someone_elses(s: Statement, focus: Focus) -> bool:
    """Whether ``s`` is said of one of the user's people ("my brother just bought ...") the
    question does not ask about (by a word of its subject: "my sister Priya" for "where
    should I send Priya's present?")."""
    words = [w.lower() for w in s.subject]
    asked = any(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", focus.text) for w in words)
    return not asked and any(w in KIN for w in words)  # (not "Priya" of "Priya's present")
