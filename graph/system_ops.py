"""The few cross-tenant operations (``store.system``): the tenant list, API keys, the index
lag of all tenants, which tenant holds an id, data migrations, and the lifecycle scheduler's
leader lock.

Their statements live in ``cypher/system/`` (the only ones without ``$tenant``); callers get
plain values and records back, never a statement name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graph.cypher import statement
from graph.runner import Rows, StatementRunner


@dataclass(frozen=True)
class StoredKey:
    """A live API key's record (found by the hash of the key; the key is never stored)."""

    id: str
    tenant_id: str
    admin: bool


class SystemGraph:
    """Cross-tenant statements, each run in its own transaction."""

    def __init__(self, store: StatementRunner) -> None:
        self._store = store

    async def read(self, name: str, **params: Any) -> Rows:
        text = statement(name, system=True)
        run = self._store._run
        return await self._store._execute_read(lambda tx: run(tx, text, params, name))

    async def write(self, name: str, **params: Any) -> Rows:
        text = statement(name, system=True)
        run = self._store._run
        return await self._store._execute_write(lambda tx: run(tx, text, params, name))

    async def tenants(self) -> list[str]:
        return [r["id"] for r in await self.read("tenants")]

    # -- API keys ------------------------------------------------------------------------------

    async def create_api_key(self, record: dict[str, Any]) -> None:
        """Store a key record: ``{id, hash, tenant_id, admin, created_at}`` and maybe ``name``."""
        await self.write("apikey_create", row=record)

    async def revoke_api_key(self, key_id: str, at: float) -> bool:
        """Revoke a live key; False when there is none with this id."""
        return bool(await self.write("apikey_revoke", id=key_id, at=at))

    async def api_keys(self) -> Rows:
        """Every key record (never a key), oldest first: id, tenant_id, name, admin,
        created_at, revoked_at."""
        return await self.read("apikey_list")

    async def api_key_by_hash(self, key_hash: str) -> StoredKey | None:
        rows = await self.read("apikey_lookup", hash=key_hash)
        if not rows:
            return None
        row = rows[0]
        return StoredKey(id=row["id"], tenant_id=row["tenant_id"], admin=bool(row.get("admin")))

    # -- across tenants ------------------------------------------------------------------------

    async def index_lag(self) -> int:
        """Memories of every tenant not yet in the vector index."""
        rows = await self.read("index_lag")
        return int(rows[0]["lag"]) if rows else 0

    async def holders(self, memory_ids: list[str], entity_ids: list[str]) -> list[str]:
        """The tenant of each of these memory and entity ids this database holds already
        (one entry per id held; ids are unique across tenants)."""
        rows = await self.read("import_taken_ids", memory_ids=memory_ids, entity_ids=entity_ids)
        return [r["tenant_id"] for r in rows]

    async def migration_applied(self, name: str) -> bool:
        return bool(await self.read("migration_applied", migration=name))

    async def record_migration(self, name: str, at: float, changed: int) -> None:
        await self.write("migration_record", migration=name, at=at, changed=changed)

    # -- the lifecycle scheduler's leader lock -------------------------------------------------

    async def acquire_lock(self, lock: str, holder: str, at: float, until: float) -> bool:
        """Take or renew ``lock`` for ``holder`` until ``until``; False when another holder's
        lease is still live."""
        rows = await self.write(
            "lifecycle_lock_acquire", lock=lock, holder=holder, now=at, until=until
        )
        return bool(rows) and rows[0]["holder"] == holder

    async def release_lock(self, lock: str, holder: str) -> None:
        await self.write("lifecycle_lock_release", lock=lock, holder=holder)
