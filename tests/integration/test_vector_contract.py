"""The VectorIndex contract, run on every backend.

``edge`` (a shard in tmp_path) and ``qdrant_local`` (``qdrant-client``'s in-memory local mode)
always run; ``qdrant_server`` runs when QDRANT_URL is set. Dense vectors are 8-d, built by
hand on a circle so every expected ranking is certain.
"""

from __future__ import annotations

import asyncio
import math
import os
import uuid
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr
from qdrant_client import AsyncQdrantClient

from core.clock import NEVER
from core.errors import BackendError, InvalidInput
from core.settings import VectorSettings
from vectors.edge_index import EdgeVectorIndex
from vectors.qdrant_index import QdrantVectorIndex
from vectors.vector_index import NeighborWindow, ScoredId, VectorFilter, VectorIndex, VectorPoint

pytestmark = [
    pytest.mark.integration,
    pytest.mark.filterwarnings("ignore:Payload indexes have no effect:UserWarning"),
]

DIM = 8
T1, T2 = "tenant-1", "tenant-2"


def unit(degrees: float) -> list[float]:
    """A unit vector at ``degrees`` from the query direction ``unit(0)``."""
    angle = math.radians(degrees)
    return [math.cos(angle), math.sin(angle)] + [0.0] * (DIM - 2)


def point(
    tenant: str = T1, angle: float = 0.0, text: str = "", pid: str | None = None, **payload: Any
) -> VectorPoint:
    fields: dict[str, Any] = {
        "tenant_id": tenant,
        "type": "fact",
        "created_at": 1000.0,
        "valid_from": 1000.0,
        "superseded_at": NEVER,
        "expires_at": NEVER,
        "importance": 0.5,
        "pinned": False,
        "entity_ids": [],
    }
    fields.update(payload)
    return VectorPoint(pid or str(uuid.uuid4()), unit(angle), text, fields)


def ids(hits: Sequence[ScoredId]) -> list[str]:
    return [h.id for h in hits]


async def found(index: VectorIndex, flt: VectorFilter) -> set[str]:
    return set(ids(await index.dense_search(unit(0), flt, 100)))


@pytest.fixture(
    params=[
        "edge",
        "qdrant_local",
        pytest.param("qdrant_server", marks=pytest.mark.qdrant_server),
    ]
)
async def index(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[VectorIndex]:
    backend: VectorIndex
    server: VectorSettings | None = None
    if request.param == "edge":
        backend = EdgeVectorIndex(tmp_path / "vectors", DIM, VectorSettings())
    elif request.param == "qdrant_local":
        client = AsyncQdrantClient(location=":memory:")
        backend = QdrantVectorIndex(VectorSettings(url="local"), DIM, client=client)
    else:
        server = server_settings()
        backend = QdrantVectorIndex(server, DIM)
    await backend.open()
    yield backend
    await backend.close()
    if server is not None:
        await drop_collection(server)


def server_settings() -> VectorSettings:
    url = os.environ.get("QDRANT_URL")
    if not url:
        pytest.skip("QDRANT_URL is not set")
    key = os.environ.get("QDRANT_API_KEY")
    return VectorSettings(
        url=url, api_key=SecretStr(key) if key else None, collection=f"c{uuid.uuid4().hex}"
    )


async def drop_collection(settings: VectorSettings) -> None:
    key = settings.api_key.get_secret_value() if settings.api_key else None
    client = AsyncQdrantClient(url=settings.url, api_key=key)
    await client.delete_collection(settings.collection)
    await client.close()


async def test_upsert_retrieve_count_and_idempotent_upsert(index: VectorIndex) -> None:
    a, b, c = point(type="task"), point(), point(T2)
    await index.upsert([a, b, c])
    await index.open()  # idempotent

    assert await index.count(T1) == 2
    assert await index.count(T2) == 1
    assert await index.count() == 3
    assert set(await index.all_ids(T1)) == {a.id, b.id}
    assert set(await index.all_ids()) == {a.id, b.id, c.id}
    got = await index.retrieve(T1, [a.id, b.id, str(uuid.uuid4()), "not-a-uuid"])
    assert set(got) == {a.id, b.id}
    assert got[a.id]["type"] == "task"
    assert got[a.id]["tenant_id"] == T1

    await index.upsert([point(pid=a.id, type="preference", angle=90)])
    assert await index.count(T1) == 2
    assert (await index.retrieve(T1, [a.id]))[a.id]["type"] == "preference"


async def test_missing_time_fields_default_to_never(index: VectorIndex) -> None:
    bare = VectorPoint(str(uuid.uuid4()), unit(0), "", {"tenant_id": T1, "type": "fact"})
    await index.upsert([bare])
    assert await found(index, VectorFilter(T1, live_at=5000.0)) == {bare.id}


async def test_a_tenant_cannot_reach_another_tenants_points(index: VectorIndex) -> None:
    mine = point(T1, text="zyzzyva secret plan")
    theirs = point(T2, text="zyzzyva secret plan")
    await index.upsert([mine, theirs])
    other = VectorFilter(T2)

    assert ids(await index.dense_search(unit(0), other, 10)) == [theirs.id]
    assert ids(await index.keyword_search("zyzzyva", other, 10)) == [theirs.id]
    assert ids(await index.hybrid_search(unit(0), "zyzzyva", other, 10)) == [theirs.id]
    assert await index.retrieve(T2, [mine.id]) == {}
    assert await index.all_ids(T2) == [theirs.id]

    await index.set_payload(T2, [mine.id], {"importance": 0.99})
    await index.delete(T2, [mine.id])
    survivor = await index.retrieve(T1, [mine.id])
    assert survivor[mine.id]["importance"] == 0.5
    await index.delete_by_filter(VectorFilter(T2))
    assert await index.count(T1) == 1
    assert await index.count(T2) == 0

    with pytest.raises(InvalidInput):
        await index.set_payload(T1, [mine.id], {"tenant_id": T2})
    with pytest.raises(InvalidInput):
        await index.dense_search(unit(0), VectorFilter(""), 10)


async def test_dense_search_ranks_by_cosine(index: VectorIndex) -> None:
    by_angle = {angle: point(angle=angle) for angle in (60, 0, 170, 30, 90)}
    await index.upsert(list(by_angle.values()))

    hits = await index.dense_search(unit(0), VectorFilter(T1), 4)

    assert ids(hits) == [by_angle[a].id for a in (0, 30, 60, 90)]
    assert hits[0].score == pytest.approx(1.0, abs=1e-5)
    assert hits[1].score == pytest.approx(math.cos(math.radians(30)), abs=1e-5)
    assert hits[0].payload["tenant_id"] == T1


async def test_keyword_search_finds_rare_word_and_weighs_it_by_idf(index: VectorIndex) -> None:
    notes = point(text="meeting notes about the budget")
    team = point(text="meeting with the team")
    agenda = point(text="meeting agenda")
    rare = point(text="zyzzyva habitat")
    clusters = point(text="Peter deployed the kubernetes clusters")
    await index.upsert([notes, team, agenda, rare, clusters])

    assert ids(await index.keyword_search("ZYZZYVA?", VectorFilter(T1), 10)) == [rare.id]
    assert ids(await index.keyword_search("cluster", VectorFilter(T1), 10)) == [clusters.id]
    mixed = await index.keyword_search("meeting zyzzyva", VectorFilter(T1), 10)
    assert ids(mixed)[0] == rare.id
    assert set(ids(mixed)) == {rare.id, notes.id, team.id, agenda.id}
    assert await index.keyword_search("the of and", VectorFilter(T1), 10) == []


async def test_scores_without_payloads_and_by_id_equal_the_searches(index: VectorIndex) -> None:
    """Search scores a point the same whether it is found by search or scored by id, with
    or without its payload (the retriever reuses the paths' scores for its candidates)."""
    near, far = point(angle=10, text="invoice zyzzyva"), point(angle=80, text="invoice notes")
    await index.upsert([near, far, point(angle=40, text="meeting agenda")])
    dense = await index.dense_search(unit(0), VectorFilter(T1), 3)
    bare = await index.dense_search(unit(0), VectorFilter(T1, ids=[far.id]), 3, payload=False)
    assert ids(bare) == [far.id] and bare[0].payload == {}
    assert bare[0].score == pytest.approx(next(h.score for h in dense if h.id == far.id))
    found = await index.keyword_search("invoice zyzzyva", VectorFilter(T1), 3)
    by_id = await index.keyword_search(
        "invoice zyzzyva", VectorFilter(T1, ids=[near.id, far.id]), 3, payload=False
    )
    assert {h.id: h.score for h in by_id} == pytest.approx({h.id: h.score for h in found})
    assert all(h.payload == {} for h in by_id) and all(h.payload for h in found)


async def test_keyword_idf_ignores_other_tenants(index: VectorIndex) -> None:
    await index.upsert([point(text="zyzzyva habitat"), point(text="meeting agenda")])
    before = await index.keyword_search("zyzzyva", VectorFilter(T1), 1)
    await index.upsert([point(T2, text=f"zyzzyva number {i}") for i in range(5)])
    after = await index.keyword_search("zyzzyva", VectorFilter(T1), 1)
    assert after[0].score == pytest.approx(before[0].score, rel=1e-4)


async def test_hybrid_fuses_keyword_only_and_dense_only_hits(index: VectorIndex) -> None:
    both = point(angle=0, text="zyzzyva migration plan")
    dense_only = point(angle=10, text="quarterly numbers")
    keyword_only = point(angle=180, text="the zyzzyva report")
    neither = [point(angle=a, text="weekly sync") for a in (40, 50, 60)]
    await index.upsert([both, dense_only, keyword_only, *neither])

    hits = await index.hybrid_search(unit(0), "zyzzyva", VectorFilter(T1), limit=3, prefetch=2)

    assert ids(hits)[0] == both.id
    assert set(ids(hits)) == {both.id, dense_only.id, keyword_only.id}
    assert hits[0].score == pytest.approx(1 / 61 + 1 / 61, rel=0.02)
    stopwords_only = await index.hybrid_search(unit(0), "the", VectorFilter(T1), limit=2)
    assert ids(stopwords_only) == [both.id, dense_only.id]


async def test_payload_filters(index: VectorIndex) -> None:
    fact = point(type="fact", project_id="p1", user_id="u1", session_id="s1", entity_ids=["e1"])
    task = point(type="task", project_id="p2", entity_ids=["e2", "e3"])
    pref = point(type="preference", created_at=3000.0)
    await index.upsert([fact, task, pref, point(T2, type="task", entity_ids=["e2"])])

    assert await found(index, VectorFilter(T1, types=["fact", "task"])) == {fact.id, task.id}
    assert await found(index, VectorFilter(T1, types=[])) == set()
    assert await found(index, VectorFilter(T1, project_id="p2")) == {task.id}
    assert await found(index, VectorFilter(T1, user_id="u1", session_id="s1")) == {fact.id}
    assert await found(index, VectorFilter(T1, entity_ids=["e3", "e1"])) == {fact.id, task.id}
    assert await found(index, VectorFilter(T1, since=2000.0)) == {pref.id}
    assert await found(index, VectorFilter(T1, until=1000.0)) == {fact.id, task.id}
    assert await found(index, VectorFilter(T1, since=3000.0, until=3000.0)) == {pref.id}
    keyword = await index.keyword_search("x", VectorFilter(T1, types=["task"]), 10)
    assert keyword == []


async def test_as_of_current_and_superseded_versions(index: VectorIndex) -> None:
    old = point(valid_from=100.0, superseded_at=200.0)
    new = point(valid_from=200.0)
    await index.upsert([old, new])

    assert await found(index, VectorFilter(T1)) == {new.id}
    assert await found(index, VectorFilter(T1, include_superseded=True)) == {old.id, new.id}
    assert await found(index, VectorFilter(T1, as_of=150.0)) == {old.id}
    assert await found(index, VectorFilter(T1, as_of=200.0)) == {new.id}
    assert await found(index, VectorFilter(T1, as_of=50.0)) == set()


async def test_live_at_hides_expired_points(index: VectorIndex) -> None:
    expiring = point(expires_at=500.0)
    lasting = point()
    await index.upsert([expiring, lasting])

    assert await found(index, VectorFilter(T1, live_at=499.0)) == {expiring.id, lasting.id}
    assert await found(index, VectorFilter(T1, live_at=500.0)) == {lasting.id}


async def test_ids_filter(index: VectorIndex) -> None:
    a, b, c = point(), point(), point()
    await index.upsert([a, b, c])

    assert await found(index, VectorFilter(T1, ids=[a.id, c.id, "junk"])) == {a.id, c.id}
    assert await found(index, VectorFilter(T1, ids=[])) == set()
    hybrid = await index.hybrid_search(unit(0), "x", VectorFilter(T1, ids=[b.id]), 10)
    assert ids(hybrid) == [b.id]


async def test_neighbors_are_the_nearest_earlier_and_later_points_of_the_session(
    index: VectorIndex,
) -> None:
    t = 1_795_345_248.9810717  # a real timestamp: every digit of the float counts
    # A busy session, a turn a minute; three more at the seed's own time (to the
    # millisecond); the same times in another session and in another tenant's session of the
    # same name.
    turns = [point(session_id="chat", created_at=t + 60 * i) for i in range(21)]
    same_time = [point(session_id="chat", created_at=t + 600 + d) for d in (0, -4e-4, 4e-4)]
    other = [point(session_id="other", created_at=t + 570 + 60 * i) for i in range(2)]
    foreign = [point(T2, session_id="chat", created_at=t + 590 + 20 * i) for i in range(2)]
    # A superseded turn is still a neighbour (the caller decides what it may show).
    old = point(session_id="old", created_at=t, superseded_at=t + 1)
    await index.upsert([*turns, *same_time, *other, *foreign, old])
    ids = [p.id for p in turns]
    seed, at = ids[10], t + 600

    found = await index.neighbors(T1, [NeighborWindow(seed, "chat", at, at - 900, at + 900)])
    assert found == {seed: (ids[9], ids[11])}

    # The window bounds what counts: nothing within 30 s earlier, one turn 60 s later.
    narrow = await index.neighbors(T1, [NeighborWindow(seed, "chat", at, at - 30, at + 60)])
    assert narrow == {seed: (ids[11],)}

    # Several seeds at once; a seed with nothing around it is left out.
    first, last = ids[0], ids[20]
    many = await index.neighbors(
        T1,
        [
            NeighborWindow(first, "chat", t, t - 900, t + 900),
            NeighborWindow(last, "chat", t + 1200, t + 300, t + 2100),
            NeighborWindow("lonely", "nowhere", at, at - 900, at + 900),
            NeighborWindow(ids[5], "old", t - 60, t - 600, t + 600),
        ],
    )
    assert many == {first: (ids[1],), last: (ids[19],), ids[5]: (old.id,)}
    assert await index.neighbors(T1, []) == {}

    # Another tenant's session of the same name sees only its own points.
    theirs = await index.neighbors(
        T2, [NeighborWindow(foreign[0].id, "chat", t + 590, t - 300, t + 1500)]
    )
    assert theirs == {foreign[0].id: (foreign[1].id,)}


async def test_delete_by_id_and_by_filter(index: VectorIndex) -> None:
    a, b = point(text="alpha"), point(type="task")
    old_task = point(type="task", superseded_at=10.0)
    other_task = point(T2, type="task")
    await index.upsert([a, b, old_task, other_task])

    await index.delete(T1, [a.id, "junk"])
    assert await index.retrieve(T1, [a.id]) == {}
    assert await index.keyword_search("alpha", VectorFilter(T1), 10) == []

    await index.delete_by_filter(VectorFilter(T1, types=["task"]))
    assert set(await index.all_ids(T1)) == {old_task.id}  # the filter sees current versions
    await index.delete_by_filter(VectorFilter(T1, include_superseded=True))
    assert await index.count(T1) == 0
    assert await index.all_ids(T2) == [other_task.id]


async def test_compact_keeps_every_live_point_as_it_was(index: VectorIndex) -> None:
    """Edge rewrites its shard; a server leaves its files to its operator (False). Either
    way the live points, their payloads, vectors and keyword terms are unchanged."""
    kept, gone = point(text="zyzzyva kept", user_id="u-keep"), point(text="quokka gone")
    await index.upsert([kept, gone, point(T2, angle=45)])
    await index.delete(T1, [gone.id])
    before = await index.retrieve(T1, [kept.id])

    assert await index.compact() is isinstance(index, EdgeVectorIndex)

    assert await index.retrieve(T1, [kept.id, gone.id]) == before
    assert await index.vectors(T1, [kept.id]) == {kept.id: pytest.approx(unit(0))}
    assert ids(await index.keyword_search("zyzzyva", VectorFilter(T1), 5)) == [kept.id]
    assert await index.keyword_search("quokka", VectorFilter(T1), 5) == []
    assert await index.count() == 2
    await index.upsert([point(text="after compaction")])  # still writable
    assert await index.count(T1) == 2


async def test_set_payload_changes_what_filters_see(index: VectorIndex) -> None:
    a, b = point(), point()
    await index.upsert([a, b])

    await index.set_payload(T1, [a.id], {"superseded_at": 2000.0, "pinned": True})

    assert await found(index, VectorFilter(T1)) == {b.id}
    assert await found(index, VectorFilter(T1, as_of=1500.0)) == {a.id, b.id}
    payload = (await index.retrieve(T1, [a.id]))[a.id]
    assert payload["pinned"] is True
    assert payload["type"] == "fact"  # merged, not replaced


async def test_invalid_points_are_rejected(index: VectorIndex) -> None:
    with pytest.raises(InvalidInput):
        await index.upsert([VectorPoint(str(uuid.uuid4()), [1.0, 0.0], "", {"tenant_id": T1})])
    with pytest.raises(InvalidInput):
        await index.upsert([VectorPoint("memory-1", unit(0), "", {"tenant_id": T1})])
    with pytest.raises(InvalidInput):
        await index.upsert([VectorPoint(str(uuid.uuid4()), unit(0), "", {"type": "fact"})])
    with pytest.raises(InvalidInput):
        await index.dense_search([1.0], VectorFilter(T1), 10)
    assert await index.count() == 0


async def test_limits_and_prefetch_depth(index: VectorIndex) -> None:
    await index.upsert([point(angle=a) for a in range(0, 100, 10)])
    assert len(await index.dense_search(unit(0), VectorFilter(T1), 4)) == 4
    assert len(await index.hybrid_search(unit(0), "x", VectorFilter(T1), 6, prefetch=2)) == 6
    assert await index.dense_search(unit(0), VectorFilter(T1), 0) == []


async def test_edge_reopen_keeps_data_and_checks_dimension(tmp_path: Path) -> None:
    path = tmp_path / "vectors"
    first = EdgeVectorIndex(path, DIM, VectorSettings())
    await first.open()
    kept = point(text="zyzzyva")
    await first.upsert([kept])
    await first.close()
    with pytest.raises(BackendError):
        await first.count()

    second = EdgeVectorIndex(path, DIM, VectorSettings())
    await second.open()
    assert await second.retrieve(T1, [kept.id]) == {kept.id: dict(kept.payload, entity_ids=())}
    assert ids(await second.keyword_search("zyzzyva", VectorFilter(T1), 5)) == [kept.id]
    await second.upsert([point(angle=a) for a in range(10, 90, 10)])
    await second.optimize()
    assert ids(await second.hybrid_search(unit(0), "zyzzyva", VectorFilter(T1), 1)) == [kept.id]
    assert await second.count() == 9
    await second.close()

    with pytest.raises(BackendError, match="vector size"):
        await EdgeVectorIndex(path, DIM * 2, VectorSettings()).open()


async def test_edge_concurrent_writes_and_reads(tmp_path: Path) -> None:
    index = EdgeVectorIndex(tmp_path / "vectors", DIM, VectorSettings())
    await index.open()
    batches = [[point(angle=i, text=f"note {i}") for _ in range(50)] for i in range(8)]
    searches = [index.hybrid_search(unit(0), "note", VectorFilter(T1), 5) for _ in range(8)]
    await asyncio.gather(*(index.upsert(b) for b in batches), *searches)
    assert await index.count(T1) == 400
    await index.close()


async def test_payloads_read_after_a_write_are_the_written_ones(index: VectorIndex) -> None:
    # Every payload is read first: the Edge backend keeps what it read in memory, and each
    # write below must reach the next read anyway.
    a, b = point(angle=10, text="alpha"), point(angle=20, text="alpha beta")
    await index.upsert([a, b])
    flt = VectorFilter(T1, include_superseded=True)
    first = {h.id: h.payload for h in await index.dense_search(unit(0), flt, 10)}
    assert first[a.id]["pinned"] is False and first[b.id]["importance"] == 0.5
    assert set(await index.retrieve(T1, [a.id, b.id])) == {a.id, b.id}

    await index.set_payload(T1, [a.id], {"superseded_at": 2000.0, "pinned": True})
    await index.upsert([point(angle=20, text="alpha beta", pid=b.id, importance=0.9)])

    dense = {h.id: h.payload for h in await index.dense_search(unit(0), flt, 10)}
    keyword = {h.id: h.payload for h in await index.keyword_search("alpha", flt, 10)}
    for seen in (dense, keyword, await index.retrieve(T1, [a.id, b.id])):
        assert seen[a.id]["pinned"] is True and seen[a.id]["superseded_at"] == 2000.0
        assert seen[b.id]["importance"] == 0.9

    # An id written in another spelling (upper case) names the same point.
    await index.set_payload(T1, [b.id.upper()], {"importance": 0.2})
    after = {h.id: h.payload for h in await index.dense_search(unit(0), flt, 10)}
    assert after[b.id]["importance"] == 0.2

    await index.delete(T1, [a.id])
    assert await index.retrieve(T1, [a.id]) == {}
    await index.delete_by_filter(flt)
    assert await index.retrieve(T1, [b.id]) == {}


async def test_a_point_read_by_one_tenant_is_not_retrieved_by_another(index: VectorIndex) -> None:
    a = point(T1)
    await index.upsert([a])
    assert ids(await index.dense_search(unit(0), VectorFilter(T1), 10)) == [a.id]
    assert await index.retrieve(T2, [a.id]) == {}
