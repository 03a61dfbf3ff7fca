"""Supersede on correction through recordTurn: same subject + single-valued predicate
supersedes with a reason; multi-valued contradictions become conflicts; different subjects
never supersede each other; repeated statements add nothing."""

from __future__ import annotations

import asyncio

import pytest

from api.brain import Brain
from core.errors import NotFound
from core.ingest_types import Role, TurnInput
from core.retrieval_types import SearchQuery
from core.types import EntityType, MemoryType, NewMemory
from ingest.service import IngestService
from retrieval.formatting import day
from retrieval.pairs import statements_of

pytestmark = pytest.mark.integration

T0 = 1_673_000_000.0


async def say(ingest: IngestService, tenant: str, text: str, at: float, user: str = "u1"):  # noqa: ANN201
    return await ingest.turns.record_turn(
        tenant, TurnInput(session_id=f"s-{user}", user_id=user, content=text, at=at)
    )


async def test_a_new_role_supersedes_the_old_one_with_a_reason(
    ingest: IngestService, brain: Brain, tenant_id: str
) -> None:
    first = await say(ingest, tenant_id, "Peter is one of our writers.", T0)
    old = next(m for m in first.extracted if m.predicate == "role")
    second = await say(ingest, tenant_id, "Actually, Peter is an editor now.", T0 + 86_400)
    new = next(m for m in second.extracted if m.predicate == "role")
    assert second.superseded == (old.id,)
    chain = await brain.memories.lineage(tenant_id, new.id)
    assert [link.memory.id for link in chain] == [old.id, new.id]
    assert chain[-1].current and "writer" in (chain[-1].reason or "")
    assert "editor" in (chain[-1].reason or "")
    assert (await brain.memories.get(tenant_id, old.id)).superseded_by == new.id
    # The superseded fact never comes back as current from search.
    hits = await brain.reads.search(tenant_id, SearchQuery(query="What is Peter's role?"))
    ids = [h.memory.id for h in hits.hits]
    assert new.id in ids and old.id not in ids
    # As of the first day, the old fact was the current one.
    assert (await brain.graph.tenant(tenant_id).as_of(new.id, T0 + 10)).id == old.id  # type: ignore[union-attr]


async def test_repeating_a_fact_adds_nothing(ingest: IngestService, tenant_id: str) -> None:
    await say(ingest, tenant_id, "Anna works for Globex.", T0)
    again = await say(ingest, tenant_id, "Anna works for Globex.", T0 + 60)
    assert [m for m in again.extracted if m.type is MemoryType.FACT] == []
    assert again.superseded == ()


async def test_different_subjects_never_supersede_each_other(
    ingest: IngestService, brain: Brain, tenant_id: str
) -> None:
    a = await say(ingest, tenant_id, "Anna is based in Berlin.", T0)
    b = await say(ingest, tenant_id, "Marco is based in Lisbon.", T0 + 60)
    assert b.superseded == ()
    anna_fact = next(m for m in a.extracted if m.predicate == "location")
    assert (await brain.memories.get(tenant_id, anna_fact.id)).is_current


async def test_preferences_supersede_per_user_and_topic(
    ingest: IngestService, brain: Brain, tenant_id: str
) -> None:
    first = await say(ingest, tenant_id, "I prefer tabs for indentation.", T0, user="alice")
    await say(ingest, tenant_id, "I prefer spaces for indentation.", T0 + 10, user="bob")
    old = first.extracted[0]
    assert old.type is MemoryType.PREFERENCE and old.subject == "user:alice"
    changed = await say(
        ingest, tenant_id, "Actually I prefer spaces for indentation.", T0 + 20, user="alice"
    )
    assert changed.superseded == (old.id,)  # alice's own preference only, not bob's


async def test_a_multi_valued_contradiction_is_a_conflict_not_an_overwrite(
    ingest: IngestService, brain: Brain, tenant_id: str, other_tenant_id: str
) -> None:
    liked = await say(ingest, tenant_id, "I like long meetings.", T0, user="carol")
    disliked = await say(ingest, tenant_id, "I don't like long meetings.", T0 + 10, user="carol")
    assert disliked.superseded == ()
    assert len(disliked.conflicts) == 1
    conflict = disliked.conflicts[0]
    assert conflict.existing_id == liked.extracted[0].id
    assert conflict.memory_id == disliked.extracted[0].id
    assert (await brain.memories.get(tenant_id, liked.extracted[0].id)).is_current
    listed = await ingest.conflicts(tenant_id)
    assert [c.id for c in listed] == [conflict.id]
    with pytest.raises(NotFound):
        await ingest.resolve_conflict(other_tenant_id, conflict.id)
    reviewed = await ingest.resolve_conflict(tenant_id, conflict.id)
    assert reviewed.resolved_at is not None
    assert await ingest.conflicts(tenant_id) == []
    assert [c.id for c in await ingest.conflicts(tenant_id, open_only=False)] == [conflict.id]


async def test_corrections_stay_inside_the_tenant(
    ingest: IngestService, brain: Brain, tenant_id: str, other_tenant_id: str
) -> None:
    mine = await say(ingest, tenant_id, "Peter is one of our writers.", T0)
    theirs = await say(ingest, other_tenant_id, "Peter is an editor now.", T0 + 10)
    assert theirs.superseded == ()
    fact = next(m for m in mine.extracted if m.predicate == "role")
    assert (await brain.memories.get(tenant_id, fact.id)).is_current
    assert await ingest.conflicts(other_tenant_id) == []
    # The same user id in two tenants: one subject ("user:dana"), two users' preferences.
    tabs = await say(ingest, tenant_id, "I prefer tabs for indentation.", T0, user="dana")
    spaces = await say(
        ingest, other_tenant_id, "Actually I prefer spaces for indentation.", T0 + 10, user="dana"
    )
    assert spaces.superseded == () and spaces.conflicts == ()
    assert (await brain.memories.get(tenant_id, tabs.extracted[0].id)).is_current


async def test_a_pronoun_correction_supersedes_the_tracked_entitys_fact(
    ingest: IngestService, brain: Brain, tenant_id: str
) -> None:
    seed = (
        "The company is Wolf of Blog Street, also known as WOBS. We do link building. "
        "Peter is one of our writers."
    )
    first = await say(ingest, tenant_id, seed, T0)
    old = next(m for m in first.extracted if m.predicate == "role")
    later = await say(ingest, tenant_id, "Actually he is an editor now.", T0 + 60)
    new = next(m for m in later.extracted if m.predicate == "role")
    assert new.subject == old.subject  # "he" is Peter, through the session's entity tracker
    assert new.content == "Actually Peter is an editor now."
    assert later.superseded == (old.id,)


async def test_corrections_said_in_several_sessions_at_once_leave_one_current_value(
    ingest: IngestService, brain: Brain, tenant_id: str
) -> None:
    first = await say(ingest, tenant_id, "Peter is one of our writers.", T0)
    old = next(m for m in first.extracted if m.predicate == "role")
    said = ["an editor", "a manager", "an editor", "a designer"]
    results = await asyncio.gather(
        *(
            say(ingest, tenant_id, f"Actually, Peter is {role} now.", T0 + 60 + i, user=f"u{i}")
            for i, role in enumerate(said)
        )
    )
    # Was: four current roles, each turn reporting that it superseded "writer".
    chain = await brain.memories.lineage(tenant_id, old.id)
    assert chain[0].memory.id == old.id and chain[-1].current
    assert sum(link.current for link in chain) == 1
    made = [m.id for r in results for m in r.extracted if m.predicate == "role"]
    assert sorted(made) == sorted(link.memory.id for link in chain[1:])  # none left outside
    replaced = [i for r in results for i in r.superseded]
    assert sorted(replaced) == sorted(link.memory.id for link in chain[:-1])  # each once
    # Each step of the chain changes the value: "editor" twice in a row is said once.
    values = [link.memory.object for link in chain]
    assert all(a != b for a, b in zip(values, values[1:], strict=False))
    hits = await brain.reads.search(tenant_id, SearchQuery(query="What is Peter's role?"))
    current_roles = [h.memory.id for h in hits.hits if h.memory.predicate == "role"]
    assert current_roles == [chain[-1].memory.id]


async def test_a_corrected_statement_is_not_served_as_current(
    ingest: IngestService, brain: Brain, tenant_id: str
) -> None:
    # One sentence, two facts: each is stored as its own statement, so correcting the role
    # leaves no "writer" in the employer fact; the turn itself is kept as said, marked.
    first = await say(ingest, tenant_id, "Dana Lee is a writer at WOBS.", T0)
    assert sorted(m.content for m in first.extracted) == [
        "Dana Lee is a writer.",
        "Dana Lee works at WOBS.",
    ]
    assert (await brain.memories.get(tenant_id, first.episode.id)).corrected_at is None
    second = await say(ingest, tenant_id, "Actually, Dana Lee is an editor now.", T0 + 86_400)
    assert len(second.superseded) == 1
    assert (await brain.memories.get(tenant_id, first.episode.id)).corrected_at == T0 + 86_400
    ctx = await brain.reads.assemble_context(tenant_id, "s-other", query="What does Dana Lee do?")
    lines = ctx.text.splitlines()
    assert any("editor" in line for line in lines)
    assert any(line.endswith("] Dana Lee works at WOBS.") for line in lines)
    stale = [line for line in lines if "writer" in line]
    # right after the current value, as the earlier one, with the day it stopped being so
    assert stale == [f"- earlier: Dana Lee is a writer at WOBS. (until {day(T0 + 86_400)})"]
    editor = next(i for i, line in enumerate(lines) if "editor" in line and line.startswith("- "))
    assert lines.index(stale[0]) == editor + 1


async def test_superseding_an_extracted_fact_by_hand_marks_its_turn(
    ingest: IngestService, brain: Brain, tenant_id: str
) -> None:
    turn = await say(ingest, tenant_id, "Anna works for Globex.", T0)
    (fact,) = turn.extracted
    await brain.memories.supersede(tenant_id, fact.id, "Anna works for Initech.")
    assert (await brain.memories.get(tenant_id, turn.episode.id)).corrected_at is not None
    mine = await brain.memories.remember(tenant_id, NewMemory(content="Anna likes tea."))
    await brain.memories.supersede(tenant_id, mine.id, "Anna likes coffee.")  # no turn behind it
    assert (await brain.memories.get(tenant_id, mine.id)).corrected_at is None


async def test_our_facts_belong_to_the_sessions_organisation(
    ingest: IngestService, brain: Brain, tenant_id: str
) -> None:
    await say(ingest, tenant_id, "The company is Wolf of Blog Street, also known as WOBS.", T0)
    (wobs,) = await brain.graph.tenant(tenant_id).find_by_alias("WOBS")
    heroku = await say(ingest, tenant_id, "Our deploy target is Heroku.", T0 + 10)
    (old,) = heroku.extracted
    assert (old.subject, old.predicate, old.object) == (wobs.id, "deploy_target", "Heroku")
    assert wobs.id in old.entity_ids
    aws = await say(ingest, tenant_id, "Actually, our deploy target is AWS now.", T0 + 20)
    assert aws.superseded == (old.id,)
    assert (await brain.memories.get(tenant_id, heroku.episode.id)).corrected_at == T0 + 20
    # a session that has named no organisation: the deploy target is a topic of its own
    # (a concept entity), never a correction of WOBS's
    other = await say(ingest, tenant_id, "Our deploy target is Fly.", T0 + 30, user="u2")
    (topic,) = other.extracted
    assert topic.subject != wobs.id and other.superseded == ()
    (concept,) = await brain.graph.tenant(tenant_id).find_by_alias("deploy target")
    assert concept.type is EntityType.CONCEPT and topic.subject == concept.id


async def test_a_fact_from_a_sentence_of_two_parts_is_its_valued_part_statement(
    ingest: IngestService, brain: Brain, tenant_id: str
) -> None:
    """ "found my passport - the expiry date is 14 Aug 2027": the rules' fact is the whole
    sentence, the statement its second part. The fact is that statement's memory (its slot,
    its statement), so a later correction of the date replaces it."""
    first = await say(
        ingest, tenant_id, "Found my passport in the drawer - the expiry date is 14 Aug 2027.", T0
    )
    (fact,) = [m for m in first.extracted if m.type is MemoryType.FACT]
    assert fact.statements and fact.slot is not None and "expiry" in fact.slot
    second = await say(
        ingest, tenant_id, "Sorry, the expiry date is actually 14 Aug 2026.", T0 + 86_400
    )
    assert fact.id in second.superseded
    assert not (await brain.graph.tenant(tenant_id).get_memory(fact.id)).is_current


async def test_a_corrected_time_leaves_the_place_and_the_party_current(
    ingest: IngestService, brain: Brain, tenant_id: str
) -> None:
    """A request dialogue: "make the reservation at 17:45" replaces the booking's time; the
    city the user asked for last is not an earlier value, and leads."""
    turns = [
        (Role.USER, "I want to eat out, find something in Redwood City."),
        (Role.ASSISTANT, "How about John Bentley's Restaurant in Redwood City?"),
        (Role.USER, "Can you find some alternatives in Los Gatos?"),
        (Role.ASSISTANT, "California Cafe is a nice place in Los Gatos."),
        (Role.USER, "Yes, go ahead, make it for 5:15 in the evening."),
        (
            Role.ASSISTANT,
            "So I'll book a table for 2 people at California Cafe in Los Gatos, "
            "for 5:15 pm today. Is that okay?",
        ),  # fmt: skip
        (Role.USER, "Actually, make the reservation at 17:45."),
    ]
    for i, (role, text) in enumerate(turns):
        await ingest.turns.record_turn(
            tenant_id,
            TurnInput(
                session_id="dinner", user_id="u1", role=role, content=text, at=T0 + 60 * i
            ),  # fmt: skip
        )
    context = await brain.reads.assemble_context(
        tenant_id, session_id="later", user_id="u1",
        query="What is the city where the restaurant is located?",
    )  # fmt: skip
    lines = context.text.splitlines()
    los_gatos = [line for line in lines if "Los Gatos" in line]
    assert los_gatos and not any(line.startswith("- earlier:") for line in los_gatos), lines
    first = next(line for line in lines if "Los Gatos" in line or "Redwood City" in line)
    assert "Los Gatos" in first, lines


async def test_a_corrected_part_of_a_value_is_the_stored_statement_s_value(
    ingest: IngestService, brain: Brain, tenant_id: str
) -> None:
    """ "the domain is baltictimber.lt" corrects the email's domain: the corrected sentence
    and the value its statement stores are both the whole corrected email, so a later read
    compares d.kovacs@baltictimber.lt, not the old address."""
    await say(
        ingest,
        tenant_id,
        "The supplier contact is Daniel Kovacs, email d.kovacs@baltictimber.lv.",
        T0,
    )
    fix = await say(ingest, tenant_id, "typo on my part, the domain is baltictimber.lt.", T0 + 60)
    (corrected,) = [m for m in fix.extracted if "baltictimber" in m.content]
    assert "d.kovacs@baltictimber.lt" in corrected.content
    stored = await brain.memories.get(tenant_id, corrected.id)
    values = [v for s in statements_of(stored) for v in s.values]
    (email,) = [v for v in values if v.kind == "email"]
    assert (email.text, email.norm) == ("d.kovacs@baltictimber.lt", "d.kovacs@baltictimber.lt")


async def test_a_corrected_day_is_stored_as_the_sentence_writes_it(
    ingest: IngestService, brain: Brain, tenant_id: str
) -> None:
    # "for the 4th" corrected to "the 9th of March" reads "for the 9th of March", and the
    # value its statement stores is where the sentence says it
    await say(ingest, tenant_id, "Can you make an appointment for the 4th?", T0)
    fix = await say(ingest, tenant_id, "Actually, the 9th of March.", T0 + 60)
    # (the old sentence's statement is made too, to be superseded)
    (corrected,) = [m for m in fix.extracted if "9th" in m.content]
    assert corrected.content == "Can you make an appointment for the 9th of March?"
    stored = await brain.memories.get(tenant_id, corrected.id)
    (day,) = [v for s in statements_of(stored) for v in s.values if v.kind == "date"]
    assert day.text == "9th of March"
