"""The read path's safety net for changed values: within a slot, the current value first.

Applied to a search's final hits (``Retriever._finalize``), so ``search`` and every context
layer read the same order:

1. **Corrected turns.** A turn one of whose statements a later statement superseded
   (``corrected_chains``, written with the supersede link) is preceded by the version of that
   chain current at the read's time (now, or ``asOf``), fetched if no path found it, and is
   marked as the earlier value (``Memory.earlier_until``): "earlier: ... (until <date>)".
2. **Pairs the write path did not link.** Two current hits whose stored statements are one
   slot with different values (``core/slots.same_slot``): the newer said by the user comes
   first and the older is marked earlier.
3. **A replaced value said in passing** (an assistant's "Would 11:30 work?"): a hit that holds
   a value a placed chain replaced, and not the chain's current value, goes after it.

Scores are lowered where needed so that the order holds wherever hits are sorted again (the
context packs each layer by score).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from core.slots import Focus, stem
from core.statements import (
    HISTORY,
    Statement,
    Value,
    statement_id,
    unit_of,
)
from core.types import Hit, LineageLink, Memory, MemoryType
from graph.tenant import TenantGraph
from retrieval import answers
from retrieval.answers import (
    ANSWERS,
    denied,
    follow_ups,
    found_for,
    holding,
    misheard,
    names_other,
)
from retrieval.closeness import NOTHING, About, Similar, close_to
from retrieval.pairs import (
    NEVER_SO,
    assertions_first,
    by_user,
    statements_of,
    unlinked_pairs,
    with_sentence_statements,
)
from retrieval.pairs import (
    earlier as marked_earlier,
)
from retrieval.stale import old_values, passing_mentions, replaced, restating, says

Admits = Callable[[Memory], bool]
LEAD_RANK = 3  # the question's current value must rank this high for the order to change
_STEP = 1e-6


async def settle(
    tenant: TenantGraph,
    hits: Sequence[Hit],
    at: float,
    admits: Admits,
    query: str | None = None,
    as_of: bool = False,
    lead_rank: int | None = None,
    context: bool = False,
    similar: Similar | None = None,
    faint: float = 0.0,
) -> list[Hit]:
    """``hits`` with each slot's value current at ``at`` before its earlier values; with the
    ``query``, also the values of what the question asks about (``_by_question``); ``as_of``
    (a question about a past time): the value current then comes first of all. ``lead_rank``:
    the question's order changes only when its current value ranks this high (a plain search,
    whose other hits may answer other readings of the question); None: whatever its rank (a
    context, an ``asOf`` search). ``context``: the hits are for a context, whose similarity
    floor is ``faint`` (``answers.newest_said``)."""
    hits = with_sentence_statements(hits)
    corrected = [h for h in hits if _corrected(h.memory, at)]
    chains = await tenant.chains([c for h in corrected for c in h.memory.corrected_chains])
    current = {_chain(links): _current(links, at, admits) for links in chains}
    stale = {_chain(links): old_values(links, at) for links in chains}
    ordered: list[Hit] = []
    placed: dict[str, int] = {}
    stale_after: list[tuple[str, set[str], set[str]]] = []  # (head id, gone norms, kept norms)

    def put(hit: Hit, after: str | None = None) -> None:
        if after is not None and after in placed:
            index = placed[after] + 1
            while index < len(ordered) and ordered[index].memory.earlier_until is not None:
                index += 1
            ordered.insert(index, hit)
            for i in range(index, len(ordered)):
                placed[ordered[i].memory.id] = i
        else:
            placed[hit.memory.id] = len(ordered)
            ordered.append(hit)

    for hit in hits:
        m = hit.memory
        if m.id in placed:
            continue
        heads: list[Memory] = []
        if _corrected(m, at):
            for c in m.corrected_chains:
                head = current.get(c)
                if head is not None and all(x.id != head.id for x in heads):
                    heads.append(head)
        if not heads:
            put(hit)
            continue
        for head in heads:
            if head.id not in placed:
                # the version current now, in the place of the one it replaced
                signals = {**hit.signals, ANSWERS: 1.0}
                put(Hit(memory=head, score=hit.score, paths=hit.paths, signals=signals))
            chain = head.chain_id or head.id
            stale_after.append((head.id, *replaced(stale.get(chain, []), head)))
        until = max(h.valid_from for h in heads)
        put(marked_earlier(hit, until), after=heads[0].id)
    ordered = unlinked_pairs(ordered)
    ordered = assertions_first(ordered)
    ordered = misheard(denied(passing_mentions(ordered, stale_after)))
    if query:
        focus = Focus.of(query).as_said(h.memory.indexed_text for h in ordered)
        close = NOTHING
        if similar is not None:
            said = {h.memory.id: statements_of(h.memory) for h in ordered}
            close = await close_to(
                ordered, said, focus, similar, lambda h: by_user(h.memory), as_of=as_of
            )
        ordered = _by_question(ordered, focus, as_of, lead_rank, close)
        if context:
            ordered = answers.newest_said(ordered, focus, faint)
            ordered = answers.so_before_not_so(ordered, focus, close.texts)
    # A context leaves out a correction turn its result says otherwise (a search keeps every
    # hit: what is found is the caller's to weigh)
    return _monotone(_without_restatements(ordered) if context else ordered)


def _chain(links: list[LineageLink]) -> str:
    first = links[0].memory
    return first.chain_id or first.id


def _corrected(m: Memory, at: float) -> bool:
    return bool(m.corrected_chains) and m.corrected_at is not None and m.corrected_at <= at


def _current(links: list[LineageLink], at: float, admits: Admits) -> Memory | None:
    """The chain's version valid at ``at`` that the read may show."""
    for link in reversed(links):
        m = link.memory
        if m.valid_from <= at < m.superseded_at and m.is_live(at) and admits(m):
            return m
    return None


def _without_restatements(hits: list[Hit]) -> list[Hit]:
    """A correction whose every statement with a value is in the result written out as a
    statement memory ("Sorry, 4, not 3." beside "The call is at 4.") says nothing more, and
    names the replaced value: left out (the earlier values that followed it follow the
    statement instead: an earlier value is shown only after a current one)."""
    present = {h.memory.id for h in hits}
    out = []
    moved: dict[str, list[Hit]] = {}  # stand-in id -> the earlier values that followed the turn
    anchor: str | None = None  # the stand-in of the turn left out just before
    for hit in hits:
        m = hit.memory
        if anchor is not None and m.earlier_until is not None:
            moved.setdefault(anchor, []).append(hit)  # it stays after a current value
            continue
        anchor = None
        if m.type is MemoryType.EPISODIC and m.earlier_until is None:
            valued = [s for s in statements_of(m) if s.values]
            correcting = any(s.negated or s.correction for s in valued)
            if correcting and all(statement_id(m.id, s.start) in present for s in valued):
                anchor = statement_id(m.id, valued[0].start)
                continue
            if any(s.negated for s in valued) and all(
                _said_elsewhere(v.text, hit, hits) for s in valued for v in s.values
            ):
                continue  # "Brightpath, not Brightwater." beside "... Brightpath Media ..."
        out.append(hit)
    for stand_in, later in moved.items():  # after the statement that stands in for the turn
        at = next((i for i, h in enumerate(out) if h.memory.id == stand_in), len(out) - 1)
        out[at + 1 : at + 1] = later
    return out


def _part(m: Memory, stale: list[Statement]) -> tuple[int, int] | None:
    """The span of ``m`` that says the earlier value, when ``m`` says other values besides
    ("I start on March 3, my manager is Priyanka Rao, and the office is on floor 6"): only
    that part is earlier. None when the stale statements are all it says."""
    valued = [s for s in statements_of(m) if s.values]
    if not stale or len(valued) <= len(stale) or any(s not in valued for s in stale):
        return None
    return min(s.start for s in stale), max(s.end for s in stale)


def _by_question(
    hits: list[Hit],
    focus: Focus,
    as_of: bool,
    lead_rank: int | None = None,
    close: About = NOTHING,
) -> list[Hit]:
    """The read path's check of what the write path may have missed, anchored on the
    question: among the hits that give a value of what it asks (``Focus.relevant``), the
    newest one said as so holds the current value (an assistant restating a correction
    counts). An older hit that gives another value of a kind the
    current one gives goes right after the first hit holding the current value, as the
    earlier value, "until" the current value was next said after it; one that only asked or
    supposed goes there unlabelled. With ``as_of``, the first hit holding the value current
    then leads."""
    said = {h.memory.id: statements_of(h.memory) for h in hits}
    subjects = [frozenset(stem(w) for w in s.subject) for ss in said.values() for s in ss]
    named = {h.memory.session_id for h in hits if focus.names_in(h.memory.indexed_text)}
    relevant: dict[str, list[Statement]] = {}
    earlier: dict[str, list[Statement]] = {}  # the same, of hits a chain marked earlier already
    for h in hits:
        m = h.memory
        by_session = m.session_id is not None and m.session_id in named
        found = [
            s
            for s in said[m.id]
            if focus.relevant(
                s,
                m.indexed_text,
                subjects,
                names_ok=by_session or s.text in close.kin and not names_other(s, focus),
                close=s.text in close.texts,
            )
        ]
        if found:
            (relevant if m.earlier_until is None else earlier)[m.id] = found
    # what the search ranked first, in words of its own: one not said as a change may be an
    # earlier value, never the current one, unless it gives the time, date or amount asked
    of_kind = found_for(hits, said, relevant, focus, named)
    ranked_first = _first_found(hits, said, relevant, focus, subjects, named, close)
    unsaid = {
        i
        for i in ranked_first
        if i not in of_kind and not any(s.change or s.correction for s in said[i])
    }
    relevant.update(ranked_first)
    relevant.update({i: of_kind[i] for i in of_kind.keys() - ranked_first.keys()})
    relevant.update(follow_ups(hits, said, relevant, focus))
    if len(relevant) < 2:
        return answering(hits, relevant)
    # What the question asks of another owner ("my wife's manager" for "my manager") is no
    # value of it: when another hit gives one, it goes after that hit, unlabelled.
    elsewhere = {i for i, ss in relevant.items() if all(focus.owned_elsewhere(s) for s in ss)}
    if len(elsewhere) == len(relevant):
        elsewhere = set()
    newest = sorted(
        (h for h in hits if h.memory.id in relevant and h.memory.id not in elsewhere | unsaid),
        key=lambda h: -h.memory.valid_from,
    )
    # An assistant's value is the current one only as a user gave it (a restated correction:
    # "Got it, £1,350 including parking"), never one only it said ("That puts your fixed
    # essentials at around £2,030 a month" is no rent).
    users = [v for h in hits if by_user(h.memory) for s in said[h.memory.id] for v in s.values]
    user_texts = [h.memory.content.lower() for h in hits if by_user(h.memory)]

    def gives(h: Hit) -> bool:
        answers = [v for s in relevant[h.memory.id] if s.slotted for v in focus.answers(s)]
        return bool(answers) and (
            by_user(h.memory)
            or any(v.same(u) for v in answers for u in users)
            or any(says(t, v.text.lower().strip("£$€")) for v in answers for t in user_texts)
        )

    current_hit = next((h for h in newest if gives(h)), None)
    if current_hit is None:
        return answering(hits, relevant)
    now: dict[str, list[Value]] = {}
    # a name the change only mentions beside a value of its kind, that an older hit gives, is
    # the old value ("Greenfield's prices went up 30% so we've moved to Harlow & Sons", after
    # "Greenfield Mills")
    since = {h.memory.id for h in hits if h.memory.valid_from < current_hit.memory.valid_from}
    given = [v for i, ss in relevant.items() if i in since for t in ss for v in t.values]
    held = holding(current_hit, relevant, said, focus)
    gives_anew = {v.family for s in held for v in s.values}
    for s in held:
        for v in focus.answers(s):
            if (
                v in s.values
                or v.family not in gives_anew
                or not any(v.same(w) or w.part(v) for w in given)
            ):
                now.setdefault(v.family, []).append(v)

    def stale(h: Hit) -> bool:
        """Gives another value of a kind the current statement gives: of the kind the question
        asks for ("when": a date, the time may be the same); for a question that does not say
        what kind, none of the current values."""
        text = h.memory.content.lower()
        mine: dict[str, list[Value]] = {}
        for s in relevant.get(h.memory.id, []):
            for v in focus.answers(s):
                mine.setdefault(v.family, []).append(v)

        def agrees(values: list[Value], current: list[Value]) -> bool:
            return any(v.same(n) or n.text.lower() in text for v in values for n in current)

        for f in mine:  # an amount is another value of what counts the same: £38 for £44,
            if f == "amount":  # not "55%"
                mine[f] = [v for v in mine[f] if any(_comparable(v, n) for n in now.get(f, []))]
        shared = [f for f in mine if f in now and mine[f]]
        if focus.families is None:  # most of its values are not the current ones
            every = [n for f in now for n in now[f]]
            values = [v for f in shared for v in mine[f]]
            agreeing = [v for v in values if any(v.same(n) for n in every)]
            return bool(values) and len(agreeing) * 2 < len(values)
        return any(not agrees(mine[f], now[f]) for f in shared)

    def holds(h: Hit) -> bool:
        return (
            h.memory.id in relevant
            and h.memory.id not in elsewhere
            and not stale(h)
            # a value of a kind the current one gives ("Great goal for a first half!" holds
            # no finishing time)
            and (
                h is current_hit
                or any(v.family in now for s in relevant[h.memory.id] for v in focus.answers(s))
            )
        )

    keeping = [h for h in hits if holds(h)]
    if not keeping:
        return answering(hits, relevant)
    moved: list[Hit] = []
    aside = [h for h in hits if h.memory.id in elsewhere]
    for h in hits:
        if h.memory.id not in relevant or h.memory.id in elsewhere or not stale(h):
            continue
        later = [k.memory.valid_from for k in keeping if k.memory.valid_from > h.memory.valid_from]
        # A value only asked about, supposed, planned or someone's view was never the value:
        # after the current one, unlabelled, however new ("should we move the call to 4pm?");
        # one said as so, or as done ("Noted, 25 seats"), was the value then.
        moods = {s.mood for s in relevant[h.memory.id]}
        if moods <= {HISTORY}:  # "at my old company the lead designer was Marco": over when said
            moved.append(marked_earlier(h, h.memory.valid_from))
        elif moods <= NEVER_SO:
            moved.append(h)
        elif later:  # (newer than every statement of the current value: an assistant's slip)
            # the part surely one slot with the current value's line, if any, says the old one
            paired = [
                s
                for s in said[h.memory.id]
                if any(
                    frozenset((s.text, c.text)) in close.pairs for c in said[current_hit.memory.id]
                )
            ]
            part = _part(h.memory, paired or relevant[h.memory.id])
            moved.append(marked_earlier(h, min(later), part))
    # The replaced values said in passing by hits the question's words did not find (an
    # assistant's "Got it: 14 Harbour Lane, ..."): after the current value too.
    current = [n for values in now.values() for n in values]
    old = [
        v for h in moved for s in relevant[h.memory.id] for v in focus.answers(s) if v.family in now
    ]
    # of a version a chain replaced, the values the current one gives another of the same kind
    # ("writer" for "editor"; not "WOBS" of "a writer at WOBS", which it does not say again)
    old += [
        v
        for statements in earlier.values()
        for s in statements
        for v in focus.answers(s)
        if any(n.kind == v.kind and not n.same(v) for n in current)
    ]
    replaced = {
        v.text.lower() for v in old if _distinctive(v) and not any(v.same(n) for n in current)
    }
    # what only the current value says ("Bristol BS1" is in both addresses)
    current = [n for n in current if not any(n.same(v) for v in old)]
    placed = {h.memory.id for h in moved}
    for h in hits:  # (a relevant hit that holds no value of the current kinds too: "Great
        # goal for a first half! Sub 2:10 is very doable" for a finishing time)
        taken = h.memory.id in relevant and (h.memory.id in placed or holds(h))
        if taken or h.memory.earlier_until is not None or not replaced:
            continue
        text = h.memory.content.lower()
        if not any(says(text, r) for r in replaced) or any(says(text, n.text.lower())
                                                           for n in current):  # fmt: skip
            continue
        later = [k.memory.valid_from for k in keeping if k.memory.valid_from > h.memory.valid_from]
        if later:
            moved.append(marked_earlier(h, min(later)))
    # Only what ranks above the first hit holding the current value moves (down, right after
    # it); what ranks below keeps its place, labelled: an earlier value never moves up.
    first = next(i for i, h in enumerate(hits) if holds(h))
    if lead_rank is not None and first > lead_rank:
        return hits  # the current value ranks low: the question is not clearly about it
    rank = {h.memory.id: i for i, h in enumerate(hits)}
    labelled = {h.memory.id: h for h in moved}
    if not as_of:  # the current value's line says what it replaced: it says which is which
        labelled[current_hit.memory.id] = restating(current_hit, old, current)
    above = [h for h in [*moved, *aside] if rank[h.memory.id] < first]
    gone = {h.memory.id for h in above}
    out = [labelled.get(h.memory.id, h) for h in hits if h.memory.id not in gone]
    at = next(i for i, h in enumerate(out) if holds(h))
    out[at + 1 : at + 1] = above
    return answering(_lead(out, at) if as_of else out, relevant)


def _first_found(
    hits: list[Hit],
    said: dict[str, list[Statement]],
    relevant: dict[str, list[Statement]],
    focus: Focus,
    subjects: Sequence[frozenset[str]],
    named: set[str | None],
    close: About,
) -> dict[str, list[Statement]]:
    """The search's first hits are about the question by its own measure, whatever their
    words: of the user's among them, the statements said as so that give a value of the kind
    asked for, nearly as close to the question as the closest (``About.first``), and pass
    every other check of ``Focus.relevant`` (what the question names, not another subject
    of the same kind)."""
    out: dict[str, list[Statement]] = {}
    for h in hits:
        m = h.memory
        if m.id in relevant or m.earlier_until is not None or not by_user(m):
            continue
        by_session = m.session_id is not None and m.session_id in named
        found = [
            s
            for s in said[m.id]
            if s.text in close.first
            and focus.relevant(s, m.indexed_text, subjects, names_ok=by_session, close=True)
        ]
        if found:
            out[m.id] = found
    return out


def answering(hits: list[Hit], ids: Collection[str]) -> list[Hit]:
    """``hits`` with those of ``ids`` marked as giving what the question asks (the signal
    ``answers``): a context keeps them however faintly the embedder relates them to the
    question ("sorry, 2791" answers "what's Dana's number?")."""
    if not ids:
        return hits
    return [
        h.model_copy(update={"signals": {**h.signals, ANSWERS: 1.0}}) if h.memory.id in ids else h
        for h in hits
    ]


def _comparable(a: Value, b: Value) -> bool:
    """Whether two amounts count the same thing: the same unit, or one without a unit unless
    the other is money or a share ("4 people" and "2"; not "200" and "£44")."""
    ua, ub = unit_of(a), unit_of(b)
    if ua and ub:
        return ua == ub
    return (ua or ub) not in ("£", "$", "€", "¥", "%")


def _distinctive(v: Value) -> bool:
    """A value worth finding in other words: not a bare small number or a short word."""
    text = v.text.strip()
    return len(text) >= 4 or (len(text) >= 2 and not text.isdigit())


def _lead(hits: list[Hit], index: int) -> list[Hit]:
    """``hits`` with the one at ``index`` first."""
    return [hits[index], *hits[:index], *hits[index + 1 :]]


def _said_elsewhere(value: str, hit: Hit, hits: list[Hit]) -> bool:
    """Whether another current hit of the result says ``value``."""
    return any(
        h is not hit and h.memory.earlier_until is None and says(h.memory.content.lower(),
                                                                  value.lower())
        for h in hits
    )  # fmt: skip


def _monotone(hits: list[Hit]) -> list[Hit]:
    """Scores lowered just enough that sorting by score keeps this order."""
    out: list[Hit] = []
    ceiling = float("inf")
    for hit in hits:
        score = min(hit.score, ceiling - _STEP) if out else hit.score
        ceiling = score
        out.append(hit if score == hit.score else hit.model_copy(update={"score": score}))
    return out
