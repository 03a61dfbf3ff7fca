"""`ai_brain.client` against a real `brain serve`: what it writes comes back, and the
server's expected failures arrive as the client's typed exceptions with the request id."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from ai_brain.client import (
    AsyncBrainClient,
    AuthError,
    BrainClient,
    InvalidInputError,
    NotFoundError,
)
from tests.integration.client.conftest import ROOT, Service

pytestmark = [pytest.mark.integration, pytest.mark.slow]

MISSING = "00000000-0000-0000-0000-000000000000"


def test_a_recorded_turn_comes_back_in_context_and_search(service: Service) -> None:
    with BrainClient(service.url, service.key) as brain:
        turn = brain.record_turn("s-ctx", "ana", "Our deploy target is Fly.io, we ship on Fridays")
        assert turn.episode.content == "Our deploy target is Fly.io, we ship on Fridays"
        assert turn.episode.session_id == "s-ctx" and turn.episode.user_id == "ana"

        context = brain.context("s-ctx", "ana", query="where do we deploy?")
        assert "Fly.io" in context.text
        assert 0 < context.total_tokens <= context.token_budget
        assert turn.episode.id in {item.memory.id for item in context.items}

        hits = brain.search("deploy target", user_id="ana")
        assert hits[0].memory.content.startswith("Our deploy target is Fly.io")
        assert hits[0].score > 0 and hits[0].paths


def test_supersede_then_lineage_shows_both_versions(service: Service) -> None:
    with BrainClient(service.url + "/graphql", service.key) as brain:
        first = brain.remember("The office plant is called Gerald", user_id="ana")
        second = brain.supersede(first.id, "The office plant is called Geraldine", reason="renamed")
        assert second.supersedes_id == first.id and second.current

        lineage = brain.lineage(second.id)
        assert [link.memory.id for link in lineage.links] == [first.id, second.id]
        assert [link.current for link in lineage.links] == [False, True]
        assert lineage.links[1].reason == "renamed"
        assert lineage.current is not None and lineage.current.id == second.id


def test_forget_removes_a_memory_from_search(service: Service) -> None:
    with BrainClient(service.url, service.key) as brain:
        memory = brain.remember("The spare key hides under the blue flowerpot")
        assert memory.id in {h.memory.id for h in brain.search("where is the spare key?")}
        brain.forget(memory.id)
        assert memory.id not in {h.memory.id for h in brain.search("where is the spare key?")}


def test_errors_are_typed_with_the_server_code_and_request_id(service: Service) -> None:
    with BrainClient(service.url, service.key) as brain:
        with pytest.raises(InvalidInputError) as invalid:
            brain.remember("")
        assert invalid.value.code == "INVALID_INPUT" and invalid.value.field == "content"
        assert invalid.value.request_id

        with pytest.raises(NotFoundError) as missing:
            brain.lineage(MISSING)
        assert missing.value.code == "NOT_FOUND" and missing.value.id == MISSING

        with pytest.raises(InvalidInputError) as bad_enum:
            brain.search("x", mode="SIDEWAYS")  # refused by the schema itself
        assert "SIDEWAYS" in bad_enum.value.message

    with BrainClient(service.url, "brn_not-a-key") as stranger, pytest.raises(AuthError) as auth:
        stranger.search("deploy")
    assert auth.value.code == "UNAUTHENTICATED"
    assert auth.value.request_id


async def test_async_client(service: Service) -> None:
    async with AsyncBrainClient(service.url, service.key) as brain:
        turn = await brain.record_turn("s-async", "bo", "My dentist is Dr Okafor", role="user")
        context = await brain.context("s-async", "bo", query="who is my dentist?")
        assert "Okafor" in context.text
        memory = await brain.remember("Bo prefers tea over coffee", type="preference")
        assert memory.type == "PREFERENCE"
        with pytest.raises(NotFoundError):
            await brain.forget(MISSING)
        assert turn.episode.id in {h.memory.id for h in await brain.search("dentist")}


def test_the_documented_quickstart_runs(service: Service) -> None:
    """docs/CLIENT.md's sync quickstart, as written, with this service's URL and key."""
    text = (ROOT / "docs" / "CLIENT.md").read_text()
    block = re.search(r"## Quickstart\n\n```python\n(.*?)```", text, re.S)
    assert block is not None
    code = block.group(1).replace("http://127.0.0.1:8000", service.url)
    assert len(code.strip().splitlines()) < 10
    scope: dict[str, object] = {}
    exec(code.replace('"brn_..."', repr(service.key)), scope)
    assert "Fly.io" in str(scope["prompt"])


def test_the_readme_runs_as_written(service: Service) -> None:
    """README's two calls, in Python and over HTTP, with this service's URL and key: the
    README is what a new user copies first."""
    text = (ROOT / "README.md").read_text()
    python = re.search(r"```python\n(.*?)```", text, re.S)
    assert python is not None
    code = python.group(1).replace("http://127.0.0.1:8000", service.url)
    assert len(code.strip().splitlines()) <= 10
    scope: dict[str, object] = {}
    exec(code.replace('"brn_..."', repr(service.key)), scope)
    assert "Peter is one of our writers" in str(scope["prompt"])

    shell = re.search(r"```sh\ncurl(.*?)```", text, re.S)
    assert shell is not None
    payloads = re.findall(r"-d '(\{.*?\})'", shell.group(0))
    assert len(payloads) == 2
    headers = {"Authorization": f"Bearer {service.key}", "Content-Type": "application/json"}
    answers = [
        httpx.post(f"{service.url}/graphql", content=p, headers=headers, timeout=60).json()
        for p in payloads
    ]
    assert all("errors" not in a for a in answers), answers
    assert answers[0]["data"]["recordTurn"]["episode"]["id"]
    assert "Fridays" in answers[1]["data"]["assembleContext"]["text"]


def test_a_small_document_is_stored_at_once(service: Service) -> None:
    with BrainClient(service.url, service.key) as brain:
        text = "# Returns\n\nRefunds go back to the original payment method within 28 days.\n"
        first = brain.ingest_document("docs/returns.md", text)
        assert first.version >= 1 and not first.unchanged and first.chunk_count >= 1
        again = brain.ingest_document("docs/returns.md", text)
        assert again.unchanged and again.version == first.version


async def test_a_large_document_is_waited_for_with_progress(service: Service) -> None:
    # Over the service's 100,000-character threshold: a background job, read until done.
    text = "\n".join(
        f"## Section {k}\n\n"
        + " ".join(f"Shelf {k}-{i} holds crate {k * 50 + i}." for i in range(60))
        for k in range(60)
    )
    assert len(text) > 100_000
    seen: list[float] = []
    async with AsyncBrainClient(service.url, service.key) as brain:
        stored = await brain.ingest_document(
            "docs/depot.md", text, on_progress=lambda job: seen.append(job.progress)
        )
    assert stored.chunk_count > 10 and stored.version == 1 and not stored.unchanged
    assert seen and seen == sorted(seen)  # the job was read, its progress never went back


def test_identity_questions_are_answered_same_or_different(service: Service) -> None:
    with BrainClient(service.url, service.key) as brain:
        brain.record_turn("s-id-a", "ana", "Thaddeus is our accountant.")
        brain.record_turn("s-id-b", "ana", "Thaddeus from Globex called about the audit.")

        def open_questions() -> list[Any]:
            return [q for q in brain.identity_questions(50) if q.entity.name == "Thaddeus"]

        [question] = open_questions()
        [candidate] = question.candidates
        assert question.description == "Thaddeus, works for Globex"
        assert candidate.description == "Thaddeus, accountant" and candidate.entity.type == "PERSON"
        brain.confirm_distinct(question.entity.id, candidate.entity.id, reason="two people")
        assert open_questions() == []

        brain.record_turn("s-id-c", "ana", "Thaddeus from Initech sent the invoice.")
        [question] = open_questions()
        merge = brain.confirm_same(question.entity.id, candidate.entity.id)
        assert merge.keep_id == candidate.entity.id and merge.drop_ids == [question.entity.id]
        assert open_questions() == []
