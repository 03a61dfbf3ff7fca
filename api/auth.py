"""API keys: created once (shown once), stored as SHA-256 hashes, revocable.

A key names its tenant; the tenant of every request comes from the key, never from a field.
Keys are 32 random bytes, so a plain SHA-256 is a safe lookup hash (no password stretching
needed for high-entropy secrets).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Any

from core.clock import now
from core.errors import Forbidden, NotFound
from core.ids import new_id
from core.validation import check_tenant_name
from graph.store import GraphStore

KEY_PREFIX = "brn_"


@dataclass(frozen=True)
class Principal:
    """Who is calling: the tenant every operation of this request is scoped to."""

    tenant_id: str
    key_id: str
    admin: bool = False


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


async def create_key(
    graph: GraphStore, tenant: str, name: str | None = None, admin: bool = False
) -> tuple[str, str]:
    """Create a key for ``tenant``; returns (key id, key). The key is not stored."""
    check_tenant_name(tenant)
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    key_id = new_id()
    row: dict[str, Any] = {
        "id": key_id,
        "hash": hash_key(key),
        "tenant_id": tenant,
        "admin": admin,
        "created_at": now(),
    }
    if name:
        row["name"] = name
    await graph.system.create_api_key(row)
    return key_id, key


async def revoke_key(graph: GraphStore, key_id: str) -> None:
    if not await graph.system.revoke_api_key(key_id, now()):
        raise NotFound("key", key_id)


async def list_keys(graph: GraphStore) -> list[dict[str, Any]]:
    return await graph.system.api_keys()


TENANT_HEADER = "x-brain-tenant"


def acting_for(principal: Principal, tenant: str | None) -> Principal:
    """The principal a request acts as when it names a tenant (``X-Brain-Tenant``).

    Only an admin key may act for another tenant: it could already make itself a key of any
    tenant (``createApiKey``), so this grants nothing new; it is what lets ``brain`` commands
    use one admin key for every ``--tenant``. Any other key may name only its own tenant.
    """
    if tenant is None or tenant == principal.tenant_id:
        return principal
    check_tenant_name(tenant)
    if not principal.admin:
        raise Forbidden("this key belongs to another tenant; only admin keys act for others")
    return Principal(tenant_id=tenant, key_id=principal.key_id, admin=True)


async def authenticate(graph: GraphStore, authorization: str | None) -> Principal:
    """Resolve an ``Authorization: Bearer <key>`` header; raise Forbidden otherwise."""
    if not authorization:
        raise Forbidden("missing API key: send 'Authorization: Bearer <key>'")
    scheme, _, key = authorization.partition(" ")
    key = key.strip()
    if scheme.lower() != "bearer" or not key.startswith(KEY_PREFIX):
        raise Forbidden("malformed Authorization header: expected 'Bearer brn_...'")
    stored = await graph.system.api_key_by_hash(hash_key(key))
    if stored is None:
        raise Forbidden("unknown or revoked API key")
    return Principal(tenant_id=stored.tenant_id, key_id=stored.id, admin=stored.admin)
