"""GraphQL `health`: engine status, counts of the caller's tenant, index lag."""

from __future__ import annotations

import strawberry

from api.gql.context import Context

VERSION = "0.1.0"
Info = strawberry.Info[Context, None]


@strawberry.type
class EngineHealth:
    name: str
    ok: bool
    latency_ms: float | None
    detail: str | None


@strawberry.type
class Health:
    ok: bool
    version: str
    engines: list[EngineHealth]
    memories: int | None = strawberry.field(description="Memories of the caller's tenant.")
    entities: int | None
    index_lag: int | None = strawberry.field(description="Memories not yet in the vector index.")


@strawberry.type
class HealthQuery:
    @strawberry.field(description="Engine status, counts of the caller's tenant, index lag.")
    async def health(self, info: Info) -> Health:
        ctx = info.context
        h = await ctx.brain.health.check(ctx.principal.tenant_id if ctx.principal else None)
        return Health(
            ok=h.ok,
            version=VERSION,
            engines=[
                EngineHealth(name=e.name, ok=e.ok, latency_ms=e.latency_ms, detail=e.detail)
                for e in h.engines
            ],
            memories=h.memories,
            entities=h.entities,
            index_lag=h.unindexed,
        )
