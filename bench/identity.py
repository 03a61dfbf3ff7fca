"""People told apart from conversation alone (issue 21): a benchmark built only from turns.

    HF_HUB_OFFLINE=1 .venv/bin/python -m bench.identity [--seed N] [--people 200] [--out F]

A generated company's conversations over three years, one session per turn: 200+ people of
whom 20 are called Peter and 20 Sarah (the rest share 40 other first names four by four),
each with a surname, and either an organisation and a role or a relation to the speaker.
Each is introduced once with the full name ("Peter Novak is the SEO lead at Kestrel Media",
"My cousin Sarah Hale lives in Cork"), then mentioned by first name with a cue ("Peter from
Kestrel Media approved the budget for order 1234", "Peter, the SEO lead at Kestrel Media, …",
"My cousin Sarah …"). Everything goes in through ``recordTurn`` and comes out through
``resolve`` and ``assembleContext``; ground truth is the person behind every mention.

The held-out set uses phrasings the cue rules were not written against ("Peter over at
Kestrel Media", "Our contact at Kestrel Media, Peter, …", "Sarah (my cousin) …") in a tenant
of its own with the same people; both sets are reported.

Figures: wrong-link rate (mentions linked to an entity born for someone else), split rate
(people spread over several entities), B-cubed F1 over mentions, entities created against
true people, cue-query accuracy (the context holds the person's facts and no same-named
person's), clarification rate of vague queries ("Call Peter tomorrow"), and resolution latency
p50/p95 with 20, 100 and 500 people of the same first name. Writes
bench/results/identity[-seedN].json.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import forget_query_vectors, machine, percentiles, write_json
from bench.identity_converge import convergence, proposals
from bench.identity_world import (
    CITIES,
    DAY,
    KIN,
    OTHERS,
    ROLES,
    SHARED,
    T0,
    TOPICS,
    VAGUE,
    VERBS,
    shuffled_orgs,
    shuffled_surnames,
)

RESULTS = Path(__file__).resolve().parent / "results"


@dataclass
class Person:
    index: int
    first: str
    last: str
    org: str | None = None
    role: str | None = None
    kin: str | None = None
    city: str | None = None
    orders: list[int] = field(default_factory=list)

    @property
    def full(self) -> str:
        return f"{self.first} {self.last}"


@dataclass(frozen=True)
class Mention:
    person: int
    first: str
    text: str
    phrasing: str = "main"


def people(n: int, seed: int) -> list[Person]:
    """``n`` people: 20 Peters, 20 Sarahs, the rest four per other first name. Same-named
    people never share an organisation, a role at one, or a relation to the speaker."""
    rng = random.Random(seed)
    firsts = [*(SHARED[0] for _ in range(20)), *(SHARED[1] for _ in range(20))]
    firsts += [OTHERS[i // 4 % len(OTHERS)] for i in range(max(0, n - 40))]
    surnames, orgs = iter(shuffled_surnames(rng)), shuffled_orgs(rng)
    out: list[Person] = []
    by_first: dict[str, int] = defaultdict(int)
    for i, first in enumerate(firsts):
        k = by_first[first]
        by_first[first] += 1
        p = Person(i, first, next(surnames))
        if k % 5 == 4 and k // 5 < len(KIN):  # one in five is family or a friend
            p.kin, p.city = KIN[(k // 5 + i) % len(KIN)], rng.choice(CITIES)
        else:
            p.org = orgs[(k * 7 + i) % len(orgs)]
            p.role = rng.choice(ROLES)
        out.append(p)
    # Same-named people must differ in what a cue says: re-draw any clash.
    seen: dict[tuple[str, str], int] = {}
    for p in out:
        key = (p.first, p.org or f"kin:{p.kin}")
        while key in seen:
            if p.org:
                p.org = rng.choice(orgs)
            else:
                p.kin = rng.choice(KIN)
            key = (p.first, p.org or f"kin:{p.kin}")
        seen[key] = p.index
    return out


def intro(p: Person, rng: random.Random) -> str:
    if p.kin:
        return f"My {p.kin} {p.full} lives in {p.city}."
    article = "an" if (p.role or "a")[0] in "aeiou" else "a"
    return rng.choice(
        [
            f"{p.full} is the {p.role} at {p.org}.",
            f"{p.full} works as {article} {p.role} at {p.org}.",
            f"Today I met {p.full}, the {p.role} at {p.org}.",
        ]
    )


SETS = ("main", "heldout", "heldout2")


def follow_up(p: Person, order: int, rng: random.Random, phrasing: str) -> str:
    """A cued first-name mention in one of the phrasing sets. ``heldout2`` was written in
    stop 21 before any of its mentions were run, against rules tuned on the other two."""
    what = f"{rng.choice(VERBS)} the {rng.choice(TOPICS)} for order {order}"
    if p.kin:
        forms = {
            "main": [f"My {p.kin} {p.first} {what}.", f"{p.first}, my {p.kin}, {what}."],
            "heldout": [f"{p.first} (my {p.kin}) {what}.", f"{p.first} — my {p.kin} — {what}."],
            "heldout2": [
                f"My {p.kin}, {p.first}, {what}.",
                f"Quick update: {p.first}, who is my {p.kin}, {what}.",
                f"{p.first} (the {p.kin} I mentioned) {what}.",
            ],
        }
    else:
        forms = {
            "main": [
                f"{p.first} from {p.org} {what}.",
                f"{p.first}, the {p.role} at {p.org}, {what}.",
            ],
            "heldout": [
                f"{p.first} over at {p.org} {what}.",
                f"Our contact at {p.org}, {p.first}, {what}.",
                f"{p.first} ({p.role}, {p.org}) {what}.",
            ],
            "heldout2": [
                f"{p.first} at {p.org} {what}.",
                f"{p.org}'s {p.first} {what}.",
                f"{p.first}, who works at {p.org}, {what}.",
                f"{p.first} ({p.org}) {what}.",
            ],
        }
    return rng.choice(forms[phrasing])


def cue_query(p: Person, phrasing: str) -> str:
    if p.kin:
        return {
            "main": f"What did my {p.kin} {p.first} say?",
            "heldout": f"What did {p.first}, my {p.kin}, say?",
            "heldout2": f"Any news from {p.first} (my {p.kin})?",
        }[phrasing]
    return {
        "main": f"What did {p.first} from {p.org} say?",
        "heldout": f"What did {p.first} over at {p.org} say?",
        "heldout2": f"Any news from {p.first} at {p.org}?",
    }[phrasing]


async def feed(
    brain: Any, tenant: str, crowd: list[Person], phrasing: str, seed: int
) -> tuple[dict[str, Any], dict[str, int]]:
    """Introduce everyone, then two cued follow-ups each; returns the linking figures and
    the person each linked entity was born for."""
    from core.ingest_types import TurnInput

    rng = random.Random(seed + SETS.index(phrasing))
    turns: list[Mention] = [Mention(p.index, p.first, intro(p, rng)) for p in crowd]
    rng.shuffle(turns)
    later: list[Mention] = []
    order = 1000
    for p in crowd:
        for _ in range(2):
            order += 1
            if phrasing == "main":  # the held-out tenants say the same order numbers again
                p.orders.append(order)
            later.append(Mention(p.index, p.first, follow_up(p, order, rng, phrasing), phrasing))
    rng.shuffle(later)
    linked: list[tuple[Mention, str | None]] = []
    started = time.perf_counter()
    for n, m in enumerate([*turns, *later]):
        result = await brain.ingest.turns.record_turn(
            tenant,
            TurnInput(session_id=f"s{n}", user_id="u1", content=m.text, at=T0 + n * DAY),
        )
        ids = [
            e.id
            for e in result.entities
            if e.type.value == "person" and e.name.split()[0].lower() == m.first.lower()
        ]
        linked.append((m, ids[0] if ids else None))
    seconds = time.perf_counter() - started
    figures = linking_figures(linked, len(crowd))
    figures["turns"] = len(linked)
    figures["turns_per_s"] = round(len(linked) / seconds, 1)
    if phrasing != "main":
        figures = {**figures, "followups_only": linking_figures(linked, len(crowd), len(turns))}
    owner: dict[str, int] = {}
    for m, entity in linked:
        if entity is not None:
            owner.setdefault(entity, m.person)
    return figures, owner


def linking_figures(
    linked: list[tuple[Mention, str | None]], people_n: int, skip: int = 0
) -> dict[str, Any]:
    """Wrong links, splits and B-cubed over the mentions (``skip``: leading mentions counted
    for entity ownership but not scored)."""
    owner: dict[str, int] = {}
    wrong = unlinked = 0
    examples: list[str] = []
    scored: list[tuple[int, str]] = []
    for n, (m, entity) in enumerate(linked):
        if entity is None:
            unlinked += 1 if n >= skip else 0
            continue
        born = owner.setdefault(entity, m.person)
        if n >= skip:
            wrong += born != m.person
            if born != m.person and len(examples) < 8:
                examples.append(m.text)
            scored.append((m.person, entity))
    by_person: dict[int, set[str]] = defaultdict(set)
    by_entity: dict[str, list[int]] = defaultdict(list)
    for person, entity in scored:
        by_person[person].add(entity)
        by_entity[entity].append(person)
    precision = recall = 0.0
    for person, entity in scored:
        cluster = by_entity[entity]
        same = sum(1 for x in cluster if x == person)
        gold = sum(1 for x, _ in scored if x == person)
        precision += same / len(cluster)
        recall += same / gold
    total = max(1, len(scored))
    p, r = precision / total, recall / total
    mentions = len(linked) - skip
    return {
        "mentions": mentions,
        "wrong_link_rate": round(wrong / max(1, mentions), 4),
        "unlinked_rate": round(unlinked / max(1, mentions), 4),
        "split_rate": round(sum(1 for s in by_person.values() if len(s) > 1) / max(1, people_n), 4),
        "bcubed_precision": round(p, 4),
        "bcubed_recall": round(r, 4),
        "bcubed_f1": round(2 * p * r / (p + r), 4) if p + r else 0.0,
        "entities_created": len(owner),
        "true_people": people_n,
        "wrong_examples": examples,
    }


async def queries(brain: Any, tenant: str, crowd: list[Person], phrasing: str) -> dict[str, Any]:
    """Cue queries (right person's facts in, no namesake's) and vague queries (clarified)."""
    shared = [p for p in crowd if p.first in SHARED]
    right = vague = 0
    misses: list[str] = []
    for p in shared:
        text = cue_query(p, phrasing)
        ctx = await brain.reads.assemble_context(
            tenant, f"q-{uuid.uuid4().hex[:6]}", "u1", query=text
        )
        own = any(f"order {o}" in ctx.text for o in p.orders)
        others = [
            o
            for q in shared
            if q.first == p.first and q is not p
            for o in q.orders
            if f"order {o}" in ctx.text
        ]
        if own and not others:
            right += 1
        elif len(misses) < 5:
            misses.append(text)
    asked = [f.format(first) for first in SHARED for f in VAGUE]
    for text in asked:
        ctx = await brain.reads.assemble_context(
            tenant, f"v-{uuid.uuid4().hex[:6]}", "u1", query=text
        )
        vague += ctx.clarification is not None
    return {
        "cue_queries": len(shared),
        "cue_accuracy": round(right / max(1, len(shared)), 4),
        "cue_misses": misses,
        "vague_queries": len(asked),
        "clarification_rate": round(vague / len(asked), 4),
    }


async def latency(brain: Any, seed: int, sizes: tuple[int, ...] = (20, 100, 500)) -> dict[str, Any]:
    """``resolve`` latency of a cued first name among N same-named people: reads in a row
    (the namesakes the first one weighed are reused) and the first read after a turn was
    recorded and its background work settled (they are read from the graph again)."""
    from core.ingest_types import TurnInput

    rng = random.Random(seed)
    out: dict[str, Any] = {}
    surnames, orgs = shuffled_surnames(rng), shuffled_orgs(rng)
    for size in sizes:
        tenant = f"lat{size}-{uuid.uuid4().hex[:6]}"
        for i in range(size):
            last, role = surnames[i % len(surnames)], ROLES[i % len(ROLES)]
            text = f"Peter {last} is the {role} at {orgs[i % len(orgs)]}."
            await brain.ingest.turns.record_turn(
                tenant, TurnInput(session_id=f"s{i}", user_id="u1", content=text)
            )
        if brain.ingest.queue is not None:
            await brain.ingest.queue.drain(120.0)
        samples: dict[str, list[float]] = {"warm": [], "after_write": []}
        for n in range(120):
            forget_query_vectors(brain.embedder)
            org = orgs[rng.randrange(min(size, len(orgs)))]
            kind = "warm" if n % 2 else "after_write"
            if kind == "after_write":  # a turn arrives between two reads; its work settles
                await brain.ingest.turns.record_turn(
                    tenant, TurnInput(session_id=f"w{n}", user_id="u1", content="Noted, thanks.")
                )
                if brain.ingest.queue is not None:
                    await brain.ingest.queue.drain(60.0)
                await asyncio.sleep(brain.settings.ingest.profile_refresh_settle + 0.5)
            started = time.perf_counter()
            await brain.entities.resolve(tenant, f"Ask Peter from {org} about the budget")
            if n >= 20:
                samples[kind].append((time.perf_counter() - started) * 1000)
        out[str(size)] = percentiles(samples["warm"])
        out[str(size)]["after_write"] = percentiles(samples["after_write"])
    return out


async def run(
    seed: int, n: int, sizes: tuple[int, ...], phrasings: tuple[str, ...] = SETS
) -> dict[str, Any]:
    from api.brain import Brain
    from core.settings import GraphSettings, Settings

    crowd = people(n, seed)
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), graph=GraphSettings(heap="1g"))
        brain = await Brain.open(settings)
        try:
            out: dict[str, Any] = {"people": len(crowd), "seed": seed, "machine": machine()}
            owners: dict[str, dict[str, int]] = {}
            for phrasing in phrasings:
                tenant = f"id-{seed}-{phrasing}"
                out[phrasing], owners[phrasing] = await feed(brain, tenant, crowd, phrasing, seed)
            if brain.ingest.queue is not None:
                await brain.ingest.queue.drain(120.0)
            for phrasing in phrasings:
                # The held-out tenants' facts carry the main set's order numbers' people.
                tenant = f"id-{seed}-{phrasing}"
                out[phrasing] |= await queries(brain, tenant, crowd, phrasing)
                out[phrasing]["proposals"] = await proposals(brain, tenant, owners[phrasing])
            out["convergence"] = await convergence(brain, seed)
            if sizes:
                out["latency_resolve"] = await latency(brain, seed, sizes)
        finally:
            await brain.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--people", type=int, default=200)
    parser.add_argument("--sizes", type=int, nargs="*", default=[20, 100, 500])
    parser.add_argument(
        "--sets", nargs="*", choices=SETS[1:], default=list(SETS[1:]), help="held-out sets"
    )
    parser.add_argument("--out", type=Path, help="default: bench/results/identity[-seedN].json")
    args = parser.parse_args()
    phrasings = ("main", *args.sets)  # main first: its follow-ups define the order numbers
    out = asyncio.run(run(args.seed, args.people, tuple(args.sizes), phrasings))
    suffix = f"-seed{args.seed}" if args.seed else ""
    for key in (*phrasings, "convergence", "latency_resolve"):
        print(key, out.get(key))
    write_json(args.out or RESULTS / f"identity{suffix}.json", out)


if __name__ == "__main__":
    main()
