"""Context disambiguation with the packaged embedder: the three views on real vectors."""

from __future__ import annotations

from core.settings import ResolutionSettings
from core.types import Entity, EntityType
from resolution.disambiguate import Disambiguator
from resolution.profiles import profile_text
from vectors.embedding.embedder import Embedder

PEOPLE = {
    "dev": "Sam Reid writes Python code and fixes production bugs. "
    "Sam Reid is a backend developer on the payments service.",
    "mech": "Sam Cole changed the brakes and the engine oil on the van. "
    "Sam Cole repairs our company cars at the garage.",
    "vet": "Sam Park is the veterinarian who treats our dog. Sam Park gave the puppy its shots.",
}


async def people(embedder: Embedder) -> list[Entity]:
    out: list[Entity] = []
    for ident, summary in PEOPLE.items():
        name = " ".join(summary.split()[:2])
        e = Entity(
            id=ident,
            tenant_id="t",
            name=name,
            aliases=("Sam",),
            type=EntityType.PERSON,
            profile_summary=summary,
            first_seen=0,
            last_seen=0,
        )
        (vector,) = await embedder.embed_documents([profile_text(e, summary, [], None)])
        out.append(e.model_copy(update={"profile_embedding": tuple(vector)}))
    return out


async def test_context_picks_the_fitting_profile_or_clarifies(embedder: Embedder) -> None:
    candidates = await people(embedder)
    d = Disambiguator(embedder, ResolutionSettings())
    text = "Ask Sam why the deployment failed with a stack trace"
    best, ranked = await d.choose(text, ["Sam"], candidates)
    assert best is not None and best.entity.id == "dev"
    assert {s.entity.id for s in ranked} == set(PEOPLE)
    # Here the whole-profile view prefers the mechanic (a failure, an engine?) while the best
    # single facet nearly ties: the views disagree, so the answer is a question, not a guess.
    best, ranked = await d.choose("Ask Sam why the deployment failed again", ["Sam"], candidates)
    assert best is None and ranked[0].entity.id == "mech"
    best, _ = await d.choose("Did Sam give the dog its rabies booster?", ["Sam"], candidates)
    assert best is not None and best.entity.id == "vet"
    # Nothing describing anyone: no scores at all, the caller asks "Which Sam?".
    assert await d.choose("Call Sam tomorrow morning.", ["Sam"], candidates) == (None, [])


async def test_keyword_evidence_is_computed_per_candidate(embedder: Embedder) -> None:
    candidates = await people(embedder)
    d = Disambiguator(embedder, ResolutionSettings())
    _, ranked = await d.choose("Sam fixed the brakes on the van", ["Sam"], candidates)
    by_id = {s.entity.id: s for s in ranked}
    # "brakes" and "van" only in the mechanic's profile; "fixed" meets the developer's "fixes".
    assert by_id["mech"].keyword > by_id["dev"].keyword > by_id["vet"].keyword == 0.0
