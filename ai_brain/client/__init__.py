"""The Python client of AI Brain: ``BrainClient`` (sync) and ``AsyncBrainClient`` over a running
``brain serve``. It needs only httpx and pydantic (none of the service's dependencies).

    from ai_brain.client import BrainClient

    brain = BrainClient("http://127.0.0.1:8000", "brn_...")
    brain.record_turn("session-1", "ana", "We deploy to Fly.io on Fridays")
    print(brain.context("session-1", "ana", query="when do we deploy?").text)

``Brain`` and ``AsyncBrain`` are the same classes under the names docs/API.md gives them.
"""

from __future__ import annotations

from ai_brain.client.client import AsyncBrainClient, BrainClient
from ai_brain.client.errors import (
    AmbiguousError,
    AuthenticationError,
    AuthError,
    BrainError,
    ConflictError,
    DocumentJobFailed,
    EngineUnavailableError,
    ForbiddenError,
    InvalidInputError,
    NotFoundError,
    ServerError,
    TransportError,
)
from ai_brain.client.models import (
    Clarification,
    Context,
    ContextItem,
    ContextLayers,
    Document,
    DocumentJob,
    Entity,
    EntityMerge,
    IdentityCandidate,
    IdentityQuestion,
    Lineage,
    LineageLink,
    Memory,
    SearchHit,
    Turn,
)

Brain = BrainClient
AsyncBrain = AsyncBrainClient

__all__ = [
    "AmbiguousError",
    "AsyncBrain",
    "AsyncBrainClient",
    "AuthError",
    "AuthenticationError",
    "Brain",
    "BrainClient",
    "BrainError",
    "Clarification",
    "ConflictError",
    "Context",
    "ContextItem",
    "ContextLayers",
    "Document",
    "DocumentJob",
    "DocumentJobFailed",
    "EngineUnavailableError",
    "Entity",
    "EntityMerge",
    "IdentityCandidate",
    "IdentityQuestion",
    "ForbiddenError",
    "InvalidInputError",
    "Lineage",
    "LineageLink",
    "Memory",
    "NotFoundError",
    "SearchHit",
    "ServerError",
    "TransportError",
    "Turn",
]
