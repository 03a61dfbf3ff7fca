"""The two vector backends give the same answers to the same calls (qdrant-client's
congruence tests, ``tests/congruence_tests/``, applied to our ``VectorIndex``).

One seeded random corpus (two tenants, every payload field the filters read, texts from a
small vocabulary so BM25 terms repeat) goes into the Edge shard and into ``qdrant-client``'s
local mode through ``QdrantVectorIndex``; then random filters, each a random combination of
the ``VectorFilter`` fields, are put to both: dense, keyword and hybrid searches, counts, id
listings and payload reads must agree. The contract suite (``test_vector_contract.py``) checks
each backend against hand-written expectations; this one finds where they differ from each
other on combinations nobody wrote down.
"""

from __future__ import annotations

import math
import random
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from qdrant_client import AsyncQdrantClient

from core.clock import NEVER
from core.settings import VectorSettings
from vectors.edge_index import EdgeVectorIndex
from vectors.qdrant_index import QdrantVectorIndex
from vectors.vector_index import ScoredId, VectorFilter, VectorIndex, VectorPoint

pytestmark = [
    pytest.mark.integration,
    pytest.mark.filterwarnings("ignore:Payload indexes have no effect:UserWarning"),
]

DIM = 8
TENANTS = ("tenant-a", "tenant-b")
TYPES = ("fact", "episode", "preference", "procedure", "task")
WORDS = [
    "invoice",
    "budget",
    "meeting",
    "deploy",
    "staging",
    "server",
    "writer",
    "content",
    "audit",
    "payroll",
    "kubernetes",
    "cluster",
    "migration",
    "backup",
    "vendor",
    "contract",
    "renewal",
    "Peter",
    "Dana",
    "Globex",
]
POINTS = 240
FILTERS = 80


def _vector(rng: random.Random) -> list[float]:
    values = [rng.gauss(0.0, 1.0) for _ in range(DIM)]
    norm = math.sqrt(sum(v * v for v in values))
    return [v / norm for v in values]


def _corpus(rng: random.Random) -> list[VectorPoint]:
    entities = [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(6)]
    points = []
    for _ in range(POINTS):
        created = rng.uniform(1_000.0, 9_000.0)
        superseded = NEVER if rng.random() < 0.6 else created + rng.uniform(10.0, 3_000.0)
        payload: dict[str, Any] = {
            "tenant_id": rng.choice(TENANTS),
            "type": rng.choice(TYPES),
            "project_id": rng.choice(("p1", "p2")),
            "session_id": rng.choice(("s1", "s2", "s3")),
            "created_at": created,
            "valid_from": created,
            "superseded_at": superseded,
            "expires_at": NEVER if rng.random() < 0.8 else created + rng.uniform(100.0, 5_000.0),
            "importance": round(rng.random(), 3),
            "pinned": rng.random() < 0.1,
            "entity_ids": rng.sample(entities, rng.randint(0, 2)),
        }
        if rng.random() < 0.7:  # the others are shared with the whole tenant
            payload["user_id"] = rng.choice(("u1", "u2"))
        text = " ".join(rng.choices(WORDS, k=rng.randint(2, 9)))
        points.append(
            VectorPoint(str(uuid.UUID(int=rng.getrandbits(128))), _vector(rng), text, payload)
        )
    return points


def _filter(rng: random.Random, points: Sequence[VectorPoint]) -> VectorFilter:
    """A random combination of the filter's fields (each present about a third of the time)."""

    def some() -> bool:
        return rng.random() < 0.3

    entity_ids = sorted({e for p in points for e in p.payload["entity_ids"]})
    at = rng.uniform(1_000.0, 12_000.0)
    since = rng.uniform(1_000.0, 6_000.0)
    return VectorFilter(
        tenant_id=rng.choice(TENANTS),
        types=rng.sample(TYPES, rng.randint(1, 3)) if some() else None,
        project_id=rng.choice(("p1", "p2")) if some() else None,
        user_id=rng.choice(("u1", "u2")) if rng.random() < 0.15 else None,
        user_scope=rng.choice(("u1", "u2")) if some() else None,
        session_id=rng.choice(("s1", "s2", "s3")) if some() else None,
        entity_ids=rng.sample(entity_ids, 2) if some() else None,
        since=since if some() else None,
        until=since + rng.uniform(500.0, 4_000.0) if some() else None,
        as_of=at if some() else None,
        live_at=at if some() else None,
        include_superseded=some(),
        ids=[p.id for p in rng.sample(list(points), 40)] if rng.random() < 0.15 else None,
    )


@pytest.fixture
async def backends(tmp_path: Path) -> AsyncIterator[tuple[VectorIndex, VectorIndex]]:
    edge = EdgeVectorIndex(tmp_path / "vectors", DIM, VectorSettings())
    local = QdrantVectorIndex(
        VectorSettings(url="local"), DIM, client=AsyncQdrantClient(location=":memory:")
    )
    for index in (edge, local):
        await index.open()
    yield edge, local
    for index in (edge, local):
        await index.close()


def _plain(payload: Mapping[str, Any]) -> dict[str, Any]:
    """A payload with its sequences as lists: the Edge shard's payload cache hands out list
    values as tuples (read-only, and untracked by the garbage collector). Its floats may also
    differ in the last bit (1350.218107413849 against 1350.2181074138493): compared to the
    microsecond."""
    return {
        k: list(v) if isinstance(v, tuple | list) else round(v, 6) if isinstance(v, float) else v
        for k, v in payload.items()
    }


def _scores(hits: Sequence[ScoredId]) -> dict[str, float]:
    return {h.id: h.score for h in hits}


def _same_ranking(edge: Sequence[ScoredId], local: Sequence[ScoredId], what: str) -> None:
    """The same ids with the same scores; among equal scores the order may differ."""
    mine, theirs = _scores(edge), _scores(local)
    assert mine.keys() == theirs.keys(), what
    for pid, score in mine.items():
        assert score == pytest.approx(theirs[pid], rel=1e-4, abs=1e-5), (what, pid)
    ranked = [mine[h.id] for h in edge]
    assert ranked == sorted(ranked, reverse=True), what


async def test_the_backends_agree_on_random_filters(
    backends: tuple[VectorIndex, VectorIndex],
) -> None:
    edge, local = backends
    rng = random.Random(42)
    points = _corpus(rng)
    for index in (edge, local):
        await index.upsert(points)
    for tenant in (*TENANTS, None):
        assert await edge.count(tenant) == await local.count(tenant)
        assert sorted(await edge.all_ids(tenant)) == sorted(await local.all_ids(tenant))

    matched = 0
    for n in range(FILTERS):
        flt = _filter(rng, points)
        query = _vector(rng)
        words = " ".join(rng.sample(WORDS, 2))
        what = f"filter {n}: {flt}"
        dense = await edge.dense_search(query, flt, POINTS)
        _same_ranking(dense, await local.dense_search(query, flt, POINTS), what)
        top = await edge.dense_search(query, flt, 5)
        assert [h.id for h in top] == [h.id for h in dense[:5]], what
        keyword = await edge.keyword_search(words, flt, POINTS)
        _same_ranking(keyword, await local.keyword_search(words, flt, POINTS), what)
        hybrid = await edge.hybrid_search(query, words, flt, POINTS)
        assert {h.id for h in hybrid} == {
            h.id for h in await local.hybrid_search(query, words, flt, POINTS)
        }, what
        assert {h.id for h in hybrid} == {h.id for h in dense} | {h.id for h in keyword}, what
        matched += bool(dense)

    # The filters were not all empty (nor all everything): the comparison compared something.
    assert 20 <= matched < FILTERS
    sample = [p.id for p in rng.sample(points, 30)]
    for tenant in TENANTS:
        mine, theirs = await edge.retrieve(tenant, sample), await local.retrieve(tenant, sample)
        assert mine.keys() == theirs.keys()
        for pid, payload in mine.items():
            assert _plain(payload) == _plain(theirs[pid]), pid


async def test_the_backends_agree_after_updates_and_deletes(
    backends: tuple[VectorIndex, VectorIndex],
) -> None:
    """Payload changes and deletions (by id and by filter) leave both backends the same."""
    edge, local = backends
    rng = random.Random(7)
    points = _corpus(rng)
    for index in (edge, local):
        await index.upsert(points)
    changed = rng.sample(points, 40)
    gone = rng.sample(points, 30)
    for index in (edge, local):
        for p in changed:
            await index.set_payload(p.payload["tenant_id"], [p.id], {"superseded_at": 5_000.0})
        for tenant in TENANTS:
            await index.delete(tenant, [p.id for p in gone if p.payload["tenant_id"] == tenant])
        await index.delete_by_filter(VectorFilter(TENANTS[1], session_id="s2"))
    for tenant in TENANTS:
        assert sorted(await edge.all_ids(tenant)) == sorted(await local.all_ids(tenant))
    assert await edge.count() < POINTS
    for _ in range(20):
        flt = _filter(rng, points)
        query = _vector(rng)
        _same_ranking(
            await edge.dense_search(query, flt, POINTS),
            await local.dense_search(query, flt, POINTS),
            str(flt),
        )
