"""Optional LLM extraction behind a small interface, over httpx.

``LLMExtractor.extract`` asks a model for JSON, validates it against ``LLMExtraction`` and
retries transport errors, retryable statuses and invalid output; when every attempt fails it
returns None and the caller keeps the rule-based result — a turn is never lost to the model.
Two clients speak the two common APIs: OpenAI-compatible chat completions (OpenAI, vLLM,
Ollama, LM Studio …) and Anthropic messages. Tests pass an ``httpx.MockTransport``.

    extractor = build_llm_extractor(settings.ingest.llm)
    result = await extractor.extract("Peter moved to the Berlin office")
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from typing import Any, Literal, Protocol

import httpx
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from core.errors import BackendError, InvalidInput
from core.settings import LLMSettings

log = logging.getLogger(__name__)

OPENAI_URL = "https://api.openai.com/v1"
ANTHROPIC_URL = "https://api.anthropic.com"
_RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 529})

SYSTEM_PROMPT = """You extract durable memories from one conversation turn.
Return ONLY a JSON object: {"items": [{"type": "fact|preference|decision|episode|task",
"content": "<one self-contained sentence>", "subject": "<entity name, or the topic a
statement is about such as 'staging server' or 'deploy target', or null>",
"predicate": "<role|employer|location|value|preference:<topic>|other or null>",
"object": "<value or null>", "confidence": <0..1>}]}.
Use names, never pronouns. Return {"items": []} for small talk."""


class LLMItem(BaseModel):
    model_config = ConfigDict(extra="ignore")

    type: Literal["fact", "preference", "decision", "episode", "task"]
    content: str = Field(min_length=3, max_length=1000)
    subject: str | None = Field(default=None, max_length=200)
    predicate: str | None = Field(default=None, max_length=100)
    object: str | None = Field(default=None, max_length=300)
    confidence: float = Field(default=0.7, ge=0.0, le=1.0)


class LLMExtraction(BaseModel):
    """The schema the model's JSON must satisfy."""

    model_config = ConfigDict(extra="ignore")

    items: list[LLMItem] = Field(default_factory=list, max_length=50)


class LLMClient(Protocol):
    async def complete(self, system: str, user: str) -> str:
        """The model's text reply; raises httpx errors or BackendError."""

    async def close(self) -> None: ...


class _HttpClient:
    def __init__(
        self, settings: LLMSettings, base_url: str, transport: httpx.AsyncBaseTransport | None
    ):
        if settings.api_key is None and transport is None and settings.base_url is None:
            raise InvalidInput("an LLM api key is required", field="ingest.jobs.llm.api_key")
        self.settings = settings
        self._http = httpx.AsyncClient(
            base_url=(settings.base_url or base_url).rstrip("/"),
            timeout=settings.timeout,
            transport=transport,
        )

    def _key(self) -> str:
        return self.settings.api_key.get_secret_value() if self.settings.api_key else ""

    async def close(self) -> None:
        await self._http.aclose()

    async def _post(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
        response = await self._http.post(path, json=body, headers=headers)
        if response.status_code in _RETRY_STATUSES:
            raise httpx.HTTPStatusError("retryable", request=response.request, response=response)
        if response.status_code >= 400:
            raise BackendError(f"LLM request failed with HTTP {response.status_code}")
        return response.json()


class OpenAICompatibleClient(_HttpClient):
    """``POST {base_url}/chat/completions`` with a JSON-object response format."""

    def __init__(self, settings: LLMSettings, transport: httpx.AsyncBaseTransport | None = None):
        super().__init__(settings, OPENAI_URL, transport)

    async def complete(self, system: str, user: str) -> str:
        body = {
            "model": self.settings.model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "response_format": {"type": "json_object"},
            "temperature": 0,
            "max_tokens": self.settings.max_tokens,
        }
        data = await self._post(
            "/chat/completions", body, {"Authorization": f"Bearer {self._key()}"}
        )
        try:
            return str(data["choices"][0]["message"]["content"])
        except (KeyError, IndexError, TypeError) as e:
            raise BackendError("malformed chat completion response") from e


class AnthropicClient(_HttpClient):
    """``POST {base_url}/v1/messages`` (Anthropic Messages API)."""

    def __init__(self, settings: LLMSettings, transport: httpx.AsyncBaseTransport | None = None):
        super().__init__(settings, ANTHROPIC_URL, transport)

    async def complete(self, system: str, user: str) -> str:
        body = {
            "model": self.settings.model,
            "system": system,
            "messages": [{"role": "user", "content": user}],
            "max_tokens": self.settings.max_tokens,
            "temperature": 0,
        }
        headers = {"x-api-key": self._key(), "anthropic-version": "2023-06-01"}
        data = await self._post("/v1/messages", body, headers)
        try:
            return "".join(b["text"] for b in data["content"] if b.get("type") == "text")
        except (KeyError, TypeError) as e:
            raise BackendError("malformed messages response") from e


def parse_extraction(text: str) -> LLMExtraction:
    """Validate a model reply (a bare JSON object, possibly inside a code fence)."""
    fenced = re.search(r"```(?:json)?\s*(\{.*\})\s*```", text, re.DOTALL)
    raw = fenced.group(1) if fenced else text.strip()
    return LLMExtraction.model_validate(json.loads(raw))


class LLMExtractor:
    """Extraction with validation and bounded retries; None when the model cannot deliver."""

    def __init__(self, client: LLMClient, max_attempts: int = 3, backoff: float = 0.5) -> None:
        self.client = client
        self.max_attempts = max(1, max_attempts)
        self.backoff = backoff
        self.failures = 0

    async def extract(self, text: str) -> LLMExtraction | None:
        for attempt in range(1, self.max_attempts + 1):
            try:
                return parse_extraction(await self.client.complete(SYSTEM_PROMPT, text))
            except (httpx.HTTPError, BackendError, ValueError, ValidationError) as e:
                log.warning(
                    "LLM extraction attempt %d/%d failed: %s", attempt, self.max_attempts, e
                )
                if attempt < self.max_attempts:
                    await asyncio.sleep(self.backoff * 2 ** (attempt - 1))
        self.failures += 1
        return None

    async def close(self) -> None:
        await self.client.close()


def build_llm_extractor(
    settings: LLMSettings, transport: httpx.AsyncBaseTransport | None = None, backoff: float = 0.5
) -> LLMExtractor | None:
    """The configured extractor, or None when ``provider == "none"``."""
    if settings.provider == "none":
        return None
    client: LLMClient = (
        AnthropicClient(settings, transport)
        if settings.provider == "anthropic"
        else OpenAICompatibleClient(settings, transport)
    )
    return LLMExtractor(client, settings.max_attempts, backoff)
