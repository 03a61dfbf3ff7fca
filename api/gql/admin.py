"""Admin operations: tenants and API keys. Only keys created with ``--admin`` may call them."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from strawberry.scalars import JSON

from api.gql.context import Context
from api.gql.errors import ForbiddenError, InvalidInputError, NotFoundError
from core.errors import Forbidden, InvalidInput

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


@strawberry.type(description="The rows of a read-only query, each an object of its columns.")
class CypherRows:
    rows: list[JSON]


TenantsResult = Annotated[TenantList | ForbiddenError, strawberry.union("TenantsResult")]
ApiKeyResult = Annotated[
    NewApiKey | InvalidInputError | ForbiddenError, strawberry.union("ApiKeyResult")
]
CypherResult = Annotated[
    CypherRows | InvalidInputError | ForbiddenError, strawberry.union("CypherResult")
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
        _require_admin(info)
        return TenantList(tenants=await info.context.brain.admin.tenants())

    @strawberry.field(
        description="Run a read-only Cypher query with $tenant bound to the tenant acted for "
        "(admin keys only; `brain cypher` uses it). Write and admin clauses are refused, and "
        "a query must use $tenant, but is not confined to it: admin Cypher is not "
        "tenant-scoped. Dates come back as ISO-8601 strings."
    )
    async def cypher(self, info: Info, query: str, params: JSON | None = None) -> CypherResult:
        _require_admin(info)
        if params is not None and not isinstance(params, dict):
            raise InvalidInput("params must be an object", field="params")
        values: dict[str, Any] = dict(params or {})
        rows = await info.context.brain.admin.read_only_cypher(info.context.tenant, query, values)
        return CypherRows(rows=[JSON(row) for row in rows])


@strawberry.type
class AdminMutation:
    @strawberry.mutation(description="Create an API key for a tenant (admin keys only).")
    async def create_api_key(
        self, info: Info, tenant: str, name: str | None = None, admin: bool = False
    ) -> ApiKeyResult:
        _require_admin(info)
        key_id, key = await info.context.brain.admin.create_api_key(tenant, name, admin)
        return NewApiKey(id=strawberry.ID(key_id), tenant=tenant, key=key)

    @strawberry.mutation(description="Revoke an API key (admin keys only).")
    async def revoke_api_key(self, info: Info, id: strawberry.ID) -> RevokeKeyResult:
        _require_admin(info)
        await info.context.brain.admin.revoke_api_key(str(id))
        return RevokedKey(id=id)
