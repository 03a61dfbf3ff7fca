"""Large documents as background jobs (issue 23), through the API: `ingestDocument` answers at
once with a DocumentJob, `documentJob` reports progress and the result, the chunks stay hidden
until the version is published, the tenant's other writes go through meanwhile, and a
document over the size limit is refused with a typed error."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from api.auth import create_key
from api.brain import Brain
from core.clock import now
from core.settings import Settings
from core.types import MemoryType, NewMemory
from graph.runtime import GraphRuntime
from tests.integration.api_client import Client
from vectors.embedding.embedder import Embedder

pytestmark = pytest.mark.integration

INGEST = """mutation($path: String!, $text: String!) {
  ingestDocument(input: {sourcePath: $path, text: $text}) { __typename
    ... on DocumentJob { id status progress result { version } }
    ... on DocumentResult { version }
    ... on InvalidInputError { field message } } }"""
JOB = """query($id: ID!) { documentJob(id: $id) { __typename
  ... on DocumentJob { status progress chunksDone chunksTotal error
    result { documentId version superseded chunkCount } } } }"""


@pytest.fixture
async def jobs_brain(
    settings: Settings, embedded_graph: GraphRuntime, embedder: Embedder, brain: Brain
) -> AsyncIterator[Brain]:
    """The session's engines, with small limits: a job above 3,000 characters, 4 chunks a
    batch, 60,000 characters at most."""
    ingest = settings.ingest.model_copy(
        update={
            "document_job_chars": 3_000,
            "document_batch_chunks": 4,
            "max_document_chars": 60_000,
        }
    )
    custom = settings.model_copy(update={"ingest": ingest})
    instance = Brain(custom, embedded_graph.store, brain.index, embedder)
    yield instance
    await instance.ingest.document_jobs.wait()
    await instance.access.close()


def _document(version: int, sections: int = 24) -> str:
    parts = []
    for k in range(sections):
        sentences = " ".join(
            f"Shelf {k}-{i} of the Lisbon depot holds crate batch {version * 1000 + k * 40 + i}."
            for i in range(40)
        )
        parts.append(f"## Section {k}\n\n{sentences}\n")
    return "\n".join(parts)


async def _wait(client: Client, job_id: str, seen: list[dict[str, Any]]) -> dict[str, Any]:
    for _ in range(2400):
        job: dict[str, Any] = (await client.data(JOB, id=job_id))["documentJob"]
        seen.append(job)
        if job["status"] in ("DONE", "FAILED"):
            return job
        await asyncio.sleep(0.05)
    raise AssertionError(f"document job {job_id} did not finish: {seen[-1]}")


async def _live_chunks(brain: Brain, tenant_id: str) -> list[str]:
    listed = await brain.memories.page(tenant_id, first=100, types=[MemoryType.DOCUMENT])
    return [m.id for m in listed]


async def test_a_large_document_is_a_background_job(jobs_brain: Brain, tenant_id: str) -> None:
    brain = jobs_brain
    _, key = await create_key(brain.graph, tenant_id)
    client = Client(brain, key)

    started = (await client.data(INGEST, path="depot.md", text=_document(1)))["ingestDocument"]
    assert started["__typename"] == "DocumentJob"
    assert started["status"] == "QUEUED" and started["progress"] == 0 and started["result"] is None
    # The tenant's other writes go through while the document is written.
    note = await brain.memories.remember(tenant_id, NewMemory(content="The depot opens at 7"))
    running = (await client.data(JOB, id=started["id"]))["documentJob"]
    assert running["status"] != "DONE" and note.indexed

    seen: list[dict[str, Any]] = []
    hidden_while_running: list[list[str]] = []

    async def watch() -> dict[str, Any]:
        job = await _wait(client, started["id"], seen)
        return job

    waiting = asyncio.create_task(watch())
    while not waiting.done():
        if seen and seen[-1]["status"] == "RUNNING" and seen[-1]["chunksDone"] > 0:
            listed = await _live_chunks(brain, tenant_id)
            after = (await client.data(JOB, id=started["id"]))["documentJob"]
            if after["chunksDone"] < after["chunksTotal"]:  # not all written: not published
                hidden_while_running.append(listed)
        await asyncio.sleep(0.05)
    done = waiting.result()

    assert done["status"] == "DONE" and done["progress"] == 1, done
    assert done["result"]["version"] == 1 and done["result"]["chunkCount"] > 4
    progress = [j["progress"] for j in seen]
    assert progress == sorted(progress) and any(0 < p < 1 for p in progress)
    assert hidden_while_running and all(ids == [] for ids in hidden_while_running)
    assert len(await _live_chunks(brain, tenant_id)) == done["result"]["chunkCount"]
    found = await client.data(
        '{ search(input: {query: "shelf 3-7 Lisbon depot", topK: 5}) {'
        " ... on SearchResults { hits { memory { type } } } } }"
    )
    assert "DOCUMENT" in {h["memory"]["type"] for h in found["search"]["hits"]}

    # A new version: published at once, the old chunks superseded then.
    second = (await client.data(INGEST, path="depot.md", text=_document(2)))["ingestDocument"]
    redone = await _wait(client, second["id"], [])
    assert redone["result"]["version"] == 2
    assert redone["result"]["superseded"] == done["result"]["chunkCount"]
    live = await brain.memories.get_many(tenant_id, await _live_chunks(brain, tenant_id))
    assert {m.content.split("crate batch ")[1][0] for m in live.values()} == {"2"}


async def test_limits_and_unknown_jobs(
    jobs_brain: Brain, tenant_id: str, other_tenant_id: str
) -> None:
    brain = jobs_brain
    _, key = await create_key(brain.graph, tenant_id)
    client = Client(brain, key)
    too_big = (await client.data(INGEST, path="big.md", text="x " * 30_001))["ingestDocument"]
    assert too_big["__typename"] == "InvalidInputError" and too_big["field"] == "text"
    assert "60000" in too_big["message"]
    small = (await client.data(INGEST, path="small.md", text="# Note\n\nThe depot is in Lisbon."))[
        "ingestDocument"
    ]
    assert small["__typename"] == "DocumentResult"  # below the threshold: done in the request

    missing = await client.data(JOB, id="00000000-0000-4000-8000-000000000001")
    assert missing["documentJob"]["__typename"] == "NotFoundError"
    started = (await client.data(INGEST, path="depot.md", text=_document(1, 4)))["ingestDocument"]
    _, other_key = await create_key(brain.graph, other_tenant_id)
    theirs = await Client(brain, other_key).data(JOB, id=started["id"])
    assert theirs["documentJob"]["__typename"] == "NotFoundError"
    await brain.ingest.document_jobs.wait()

    # A job whose process died reads as failed once its record is stale.
    tenant = brain.graph.tenant(tenant_id)
    stale = now() - brain.settings.ingest.document_job_stale_seconds - 1
    await tenant.save_document_job(
        "00000000-0000-4000-8000-000000000002",
        {"id": "00000000-0000-4000-8000-000000000002", "source_path": "gone.md",
         "status": "running", "progress": 0.4, "created_at": stale, "updated_at": stale},
    )  # fmt: skip
    gone = await client.data(JOB, id="00000000-0000-4000-8000-000000000002")
    assert gone["documentJob"]["status"] == "FAILED" and "again" in gone["documentJob"]["error"]
