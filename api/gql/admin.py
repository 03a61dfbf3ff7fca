"""Admin operations: tenants and API keys. Only keys created with ``--admin`` may call them."""

from __future__ import annotations

from typing import Annotated

import strawberry

from api.auth import create_key, revoke_key
from api.context import Context
from api.gql.errors import ForbiddenError, InvalidInputError, NotFoundError, guarded
from core.errors import Forbidden

Info = strawberry.Info[Context, None]


@strawberry.type
class TenantList:
    tenants: list[str]


@strawberry.type
class NewApiKey:
    id: strawberry.ID
    tenant: str
    key: str = strawberry.field(description="Shown once; only its hash is stored.")


@strawberry.type
class RevokedKey:
    id: strawberry.ID


TenantsResult = Annotated[TenantList | ForbiddenError, strawberry.union("TenantsResult")]
ApiKeyResult = Annotated[
    NewApiKey | InvalidInputError | ForbiddenError, strawberry.union("ApiKeyResult")
]
RevokeKeyResult = Annotated[
    RevokedKey | NotFoundError | ForbiddenError, strawberry.union("RevokeKeyResult")
]


def _require_admin(info: Info) -> None:
    ctx = info.context
    ctx.tenant  # noqa: B018 - raises Forbidden without a valid key
    if ctx.principal is None or not ctx.principal.admin:
        raise Forbidden("this operation needs an admin key")


@strawberry.type
class AdminQuery:
    @strawberry.field(description="Every tenant (admin keys only).")
    async def tenants(self, info: Info) -> TenantsResult:
        async def run() -> TenantList:
            _require_admin(info)
            return TenantList(tenants=await info.context.brain.graph.system.tenants())

        return await guarded(run)  # type: ignore[no-any-return]


@strawberry.type
class AdminMutation:
    @strawberry.mutation(description="Create an API key for a tenant (admin keys only).")
    async def create_api_key(
        self, info: Info, tenant: str, name: str | None = None, admin: bool = False
    ) -> ApiKeyResult:
        async def run() -> NewApiKey:
            _require_admin(info)
            key_id, key = await create_key(info.context.brain.graph, tenant, name, admin)
            return NewApiKey(id=strawberry.ID(key_id), tenant=tenant, key=key)

        return await guarded(run)  # type: ignore[no-any-return]

    @strawberry.mutation(description="Revoke an API key (admin keys only).")
    async def revoke_api_key(self, info: Info, id: strawberry.ID) -> RevokeKeyResult:
        async def run() -> RevokedKey:
            _require_admin(info)
            await revoke_key(info.context.brain.graph, str(id))
            return RevokedKey(id=id)

        return await guarded(run)  # type: ignore[no-any-return]
