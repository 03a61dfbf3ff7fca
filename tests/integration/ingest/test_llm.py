"""The optional LLM extractor through the queue, with the hosted APIs stubbed at the HTTP
transport (httpx.MockTransport): valid JSON adds memories (linked, deduplicated); junk or
failures keep the rule-based result and lose nothing."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable

import httpx
import pytest
from pydantic import SecretStr

from api.brain import Brain
from core.ingest_types import JobStatus, TurnInput
from core.settings import IngestSettings, LLMSettings, Settings
from core.types import MemoryType
from ingest.service import IngestService
from resolution.resolver import Resolver

pytestmark = pytest.mark.integration

TURN = "Peter is one of our writers. He moved to the Berlin office last month."


def openai_reply(items: list[dict[str, object]]) -> dict[str, object]:
    content = json.dumps({"items": items})
    return {"choices": [{"message": {"role": "assistant", "content": content}}]}


Handler = Callable[[httpx.Request], httpx.Response]


@pytest.fixture
async def make_service(
    brain: Brain, resolver: Resolver
) -> AsyncIterator[Callable[[Handler, str], IngestService]]:
    made: list[IngestService] = []

    def build(handler: Handler, provider: str = "openai") -> IngestService:
        settings = Settings(
            data_dir=brain.settings.data_dir,
            ingest=IngestSettings(
                queue_max_attempts=1,
                llm=LLMSettings(
                    provider=provider,  # type: ignore[arg-type]
                    api_key=SecretStr("test-key"),
                    max_attempts=2,
                ),
            ),
        )
        service = IngestService.build(
            settings,
            brain.graph,
            brain.index,
            brain.embedder,
            resolver,
            llm_transport=httpx.MockTransport(handler),
        )
        assert service.llm is not None
        service.llm.backoff = 0.0
        made.append(service)
        return service

    yield build
    for service in made:
        await service.stop()


async def test_valid_llm_output_adds_linked_memories_once(
    make_service: Callable[[Handler, str], IngestService], brain: Brain, tenant_id: str
) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(
            200,
            json=openai_reply(
                [
                    {
                        "type": "fact",
                        "content": "Peter works in the Berlin office.",
                        "subject": "Peter",
                        "predicate": "location",
                        "object": "Berlin",
                        "confidence": 0.9,
                    },
                    {"type": "fact", "content": "Peter is one of our writers.", "confidence": 0.9},
                ]
            ),
        )

    service = make_service(handler, "openai")
    await service.start(tenants=[])
    result = await service.turns.record_turn(tenant_id, TurnInput(session_id="l", content=TURN))
    await service.queue.drain()
    await service.writer.sync.marks.flush()  # indexed marks are written shortly after, in batches
    assert seen and seen[0].url.path.endswith("/chat/completions")
    assert seen[0].headers["authorization"] == "Bearer test-key"
    ids = await brain.graph.tenant(tenant_id).memory_ids_about(result.entities[0].id)
    stored = await brain.graph.tenant(tenant_id).get_memories(ids)
    llm = [m for m in stored.values() if (m.source or "").startswith("llm:")]
    assert [m.content for m in llm] == ["Peter works in the Berlin office."]  # duplicate skipped
    assert llm[0].predicate == "location" and llm[0].object == "Berlin"
    assert llm[0].subject == next(e.id for e in result.entities if e.name == "Peter")
    assert all(m.indexed for m in llm)


@pytest.mark.parametrize(
    "reply",
    [
        httpx.Response(200, json={"choices": [{"message": {"content": "not json at all"}}]}),
        httpx.Response(200, json=openai_reply([{"type": "gossip", "content": "??"}])),
        httpx.Response(503, json={"error": "overloaded"}),
    ],
    ids=["junk", "schema-violation", "unavailable"],
)
async def test_llm_failure_keeps_the_rule_result(
    make_service: Callable[[Handler, str], IngestService],
    brain: Brain,
    tenant_id: str,
    reply: httpx.Response,
) -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return reply

    service = make_service(handler, "openai")
    await service.start(tenants=[])
    result = await service.turns.record_turn(tenant_id, TurnInput(session_id="l", content=TURN))
    await service.queue.drain()
    assert len(calls) == 2  # retried, then given up
    rule_fact = next(m for m in result.extracted if m.type is MemoryType.FACT)
    assert (await brain.memories.get(tenant_id, rule_fact.id)).is_current
    assert (await brain.memories.get(tenant_id, result.episode.id)).content == TURN
    jobs = await brain.graph.tenant(tenant_id).get_jobs(list(result.jobs))
    assert [j.status for j in jobs.values() if j.kind == "llm_extract"] == [JobStatus.FAILED]


async def test_a_topic_the_model_names_is_a_concept_with_its_own_chain(
    make_service: Callable[[Handler, str], IngestService], brain: Brain, tenant_id: str
) -> None:
    replies = iter(["Hetzner", "AWS"])

    def handler(request: httpx.Request) -> httpx.Response:
        where = next(replies)
        item = {
            "type": "fact",
            "content": f"The staging box is hosted on {where}.",
            "subject": "staging box",
            "predicate": "location",
            "object": where,
        }
        return httpx.Response(200, json=openai_reply([item]))

    service = make_service(handler, "openai")
    await service.start(tenants=[])
    for text in ("staging box -> hetzner fwiw", "staging box: aws from today"):
        await service.turns.record_turn(tenant_id, TurnInput(session_id="l", content=text))
        await service.queue.drain()
    (concept,) = await brain.graph.tenant(tenant_id).find_by_alias("staging box")
    assert concept.type.value == "concept"
    ids = await brain.graph.tenant(tenant_id).memory_ids_about(concept.id)
    stated = {m.object: m for m in (await brain.graph.tenant(tenant_id).get_memories(ids)).values()}
    assert not stated["Hetzner"].is_current and stated["AWS"].is_current  # superseded


async def test_anthropic_messages_api_is_spoken_too(
    make_service: Callable[[Handler, str], IngestService], brain: Brain, tenant_id: str
) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        text = json.dumps(
            {"items": [{"type": "decision", "content": "We chose Hetzner for hosting."}]}
        )
        return httpx.Response(200, json={"content": [{"type": "text", "text": text}]})

    service = make_service(handler, "anthropic")
    await service.start(tenants=[])
    result = await service.turns.record_turn(tenant_id, TurnInput(session_id="a", content=TURN))
    await service.queue.drain()
    assert seen[0].url.path == "/v1/messages"
    assert seen[0].headers["x-api-key"] == "test-key"
    assert json.loads(seen[0].content)["messages"][0]["content"] == TURN
    total, _ = await brain.graph.tenant(tenant_id).memory_counts()
    assert total == 1 + len(result.extracted) + 1
