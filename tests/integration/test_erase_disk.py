"""Erase and the disk: after an erase and a clean shutdown, no file of the embedded engines
holds an erased id or string (issue 23, item 5). Deleting through an engine's API is not
enough: Qdrant Edge keeps deleted payloads in its pages and write-ahead log, ArcadeDB keeps
deleted keys in its LSM index pages and old record bytes in its buckets."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from api.auth import create_key
from api.brain import Brain
from core.disk_scan import Needles, scan
from core.settings import GraphSettings, Settings, VectorSettings
from retrieval.edge_index import EdgeVectorIndex
from retrieval.vector_index import VectorFilter, VectorPoint
from tests.integration.api_client import Client

pytestmark = pytest.mark.integration

ERASE = """mutation($ids: [ID!], $entity: ID, $user: String) {
  erase(input: {memoryIds: $ids, entityId: $entity, userId: $user}) {
    __typename ... on EraseReport { memoryIds entityIds verified
      disk { scanned files vectorsCompacted graphCompacted traces pending clean } } } }"""
DOC = "# Zorblax launch\n\nQuentin Vexmoor leads the Zorblax launch. The budget code is QX-99871."
TURN = "Quentin Vexmoor prefers kumquat tea with the Zorblax team."
KEPT = "The staging server is called Bluefinch-Harbour."


def found(roots: list[Path], ids: list[str], texts: list[str]) -> list[str]:
    return [f"{t.path}: {t.values}" for t in scan(roots, Needles.of(ids, texts)).traces]


def vector(i: int) -> list[float]:
    return [1.0 if k == i % 8 else 0.1 for k in range(8)]


async def test_edge_compaction_leaves_no_byte_of_a_deleted_point(tmp_path: Path) -> None:
    path = tmp_path / "vectors"
    index = EdgeVectorIndex(path, 8, VectorSettings())
    await index.open()
    payload: dict[str, Any] = {"tenant_id": "t", "type": "fact", "entity_ids": []}
    gone = VectorPoint(str(uuid.uuid4()), vector(0), "", {**payload, "user_id": "user-gone-71"})
    kept = [VectorPoint(str(uuid.uuid4()), vector(i), f"note {i}", payload) for i in range(8)]
    await index.upsert([gone, *kept])
    await index.delete("t", [gone.id])
    assert found([path], [gone.id, "user-gone-71"], []), "a delete alone leaves its bytes"

    await index.compact()

    assert found([path], [gone.id, "user-gone-71"], []) == []
    assert found([path], [kept[0].id], []), "the scan sees a live point's id"
    assert set(await index.all_ids("t")) == {p.id for p in kept}
    hits = await index.dense_search(vector(3), VectorFilter("t"), 1)
    assert [h.id for h in hits] == [kept[3].id]
    await index.close()

    # A crash between the two renames of the swap: the complete new shard is beside no
    # shard, and the retired one (with the deleted bytes) is still there. Opening finishes it.
    path.rename(tmp_path / "vectors.new")
    (tmp_path / "vectors.old").mkdir()
    again = EdgeVectorIndex(path, 8, VectorSettings())
    await again.open()
    assert await again.count("t") == 8
    assert sorted(p.name for p in tmp_path.iterdir()) == ["vectors"]
    await again.close()


async def test_erase_through_the_api_leaves_nothing_on_disk_after_a_clean_shutdown(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    settings = Settings(data_dir=data, graph=GraphSettings(heap="512m"))
    brain = await Brain.open(settings)
    try:
        _, key = await create_key(brain.graph, "acme")
        api = Client(brain, key)
        doc = await api.data(
            "mutation($t: String!) { ingestDocument(input: {sourcePath:"
            ' "/plans/zorblax-launch.md", text: $t}) { ... on DocumentResult { chunks { id }'
            " entities { id name } } } }",
            t=DOC,
        )
        turn = await api.data(
            'mutation($c: String!) { recordTurn(input: {sessionId: "sess-zorblax-7", userId:'
            ' "user-vexmoor-5", content: $c}) { ... on TurnResult { episode { id }'
            " extracted { id } entities { id name } } } }",
            c=TURN,
        )
        kept = await api.data(
            "mutation($c: String!) { remember(input: {content: $c, type: FACT}) {"
            " ... on Memory { id } } }",
            c=KEPT,
        )
        chunks = [c["id"] for c in doc["ingestDocument"]["chunks"]]
        people = [e for e in turn["recordTurn"]["entities"] if e["name"] == "Quentin Vexmoor"]

        by_memory = (await api.data(ERASE, ids=chunks))["erase"]
        by_entity = (await api.data(ERASE, entity=people[0]["id"]))["erase"]
        by_user = (await api.data(ERASE, user="user-vexmoor-5"))["erase"]
    finally:
        await brain.close()

    erased_ids = [
        *chunks,
        turn["recordTurn"]["episode"]["id"],
        *(m["id"] for m in turn["recordTurn"]["extracted"]),
        *by_entity["entityIds"],
        "user-vexmoor-5",
        "sess-zorblax-7",
    ]
    strings = [
        DOC.split("\n\n")[1],
        TURN,
        "/plans/zorblax-launch.md",  # the document record goes with its last chunk
        "Quentin Vexmoor",
        "budget code is QX-99871",
        "kumquat tea with",
    ]

    # While serving, the vector shard was clean after each erase, and the report said what
    # the graph engine still held and until when.
    for report in (by_memory, by_entity, by_user):
        disk = report["disk"]
        assert report["verified"] and disk["scanned"] and disk["files"] > 0
        assert disk["vectorsCompacted"] and disk["graphCompacted"]
        assert not [t for t in disk["traces"] if t.startswith("vectors/")]
        assert disk["clean"] == (disk["traces"] == [])
        assert disk["clean"] or "clean shutdown" in disk["pending"]
    assert by_entity["entityIds"] == [people[0]["id"]]

    # After the clean shutdown, no file of either engine holds any of it.
    roots = [data / "vectors", data / "graph"]
    assert found(roots, erased_ids, strings) == []
    assert not (data / "graph" / "index-purge.pending").exists()
    # The scan can see what is there: the memory that was not erased.
    assert found([data / "graph"], [], [KEPT])
    assert found([data / "vectors"], [kept["remember"]["id"]], [])
