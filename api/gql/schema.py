"""The GraphQL schema with its protective limits, and unexpected-error masking."""

from __future__ import annotations

import logging

import strawberry
from graphql import GraphQLError
from strawberry.extensions import MaskErrors
from strawberry.schema.config import StrawberryConfig

from api.gql.admin import AdminMutation, AdminQuery
from api.gql.assemble import AssembleQuery
from api.gql.core_memory import CoreMutation, CoreQuery
from api.gql.cost import CostLimits
from api.gql.documents import DocumentMutation, DocumentQuery
from api.gql.entities import EntityMutation, EntityQuery
from api.gql.errors import protect_root_fields
from api.gql.guard import DocumentGuard, GuardLimits, QueryGuard
from api.gql.health import HealthQuery
from api.gql.identity import IdentityMutation, IdentityQuery
from api.gql.lifecycle import LifecycleMutation, LifecycleQuery
from api.gql.memories import MemoryMutation, MemoryQuery
from api.gql.resolution import ResolutionMutation, ResolutionQuery
from api.gql.search import SearchQuery
from api.gql.tasks import TaskMutation, TaskQuery
from api.gql.turns import TurnMutation
from api.gql.viz import SCALARS as VIZ_SCALARS
from api.gql.viz import VizQuery
from core.errors import BackendError, BrainError, EngineUnavailable
from core.settings import ApiSettings

log = logging.getLogger(__name__)


# What a client reads for a storage failure instead of the driver's text.
_STORAGE_MESSAGES = {
    EngineUnavailable.code: "The graph engine is unavailable right now; retry the request",
    BackendError.code: "A storage engine failed; quote the request id when reporting it",
}


class LoggedMaskErrors(MaskErrors):
    """Mask unexpected errors and storage failures; log them with the request id that the
    client sees (in the masked error's ``extensions.requestId`` and the response's
    ``X-Request-Id`` header). A storage failure keeps its code (``BACKEND_ERROR``,
    ``ENGINE_UNAVAILABLE``: retry) but not its text, which names the engine's address and the
    driver's internals."""

    def __init__(self) -> None:
        super().__init__(should_mask_error=self._mask, error_message="Internal error")

    def anonymise_error(self, error: GraphQLError) -> GraphQLError:
        masked = super().anonymise_error(error)
        masked.extensions = error.extensions  # the request id and code ``_mask`` put there
        code = (error.extensions or {}).get("code")
        if code in _STORAGE_MESSAGES:
            masked.message = _STORAGE_MESSAGES[code]
        return masked

    def _mask(self, error: GraphQLError) -> bool:
        original = error.original_error
        if original is None or isinstance(original, GraphQLError):
            return False  # validation and variable-coercion errors: safe
        if isinstance(original, BrainError) and not isinstance(original, BackendError):
            return False  # expected failures (not found, invalid input, ...): safe
        ctx = self.execution_context.context
        request_id = getattr(ctx, "request_id", "-")
        extensions = {**(error.extensions or {}), "requestId": request_id}
        if isinstance(original, EngineUnavailable):
            # Not a bug: the engine is restarting. Say so, so that clients retry.
            log.warning("request %s: %s", request_id, original)
            extensions["code"] = EngineUnavailable.code
        else:
            log.error("request %s failed", request_id, exc_info=original)
            if isinstance(original, BackendError):
                extensions["code"] = BackendError.code
        error.extensions = extensions
        return True


# One root part per feature module (its types, inputs, result unions and resolvers together);
# the order is the order of the fields in the schema.
@strawberry.type
class Query(
    HealthQuery,
    MemoryQuery,
    CoreQuery,
    SearchQuery,
    EntityQuery,
    VizQuery,
    AssembleQuery,
    TaskQuery,
    DocumentQuery,
    ResolutionQuery,
    IdentityQuery,
    LifecycleQuery,
    AdminQuery,
):
    pass


@strawberry.type
class Mutation(
    MemoryMutation,
    CoreMutation,
    EntityMutation,
    TurnMutation,
    DocumentMutation,
    TaskMutation,
    ResolutionMutation,
    IdentityMutation,
    LifecycleMutation,
    AdminMutation,
):
    pass


# Distinct query texts whose checked document (parsed and validated) is kept (LRU). Apps send
# a handful of fixed operations with variables, so nearly every request is a hit; a client
# that sends many one-off texts only evicts its own entries.
CACHED_DOCUMENTS = 256


def guard_limits(cfg: ApiSettings) -> GuardLimits:
    """The document limits of ``cfg`` (api/gql/guard.py, api/gql/cost.py)."""
    return GuardLimits(
        max_bytes=cfg.max_query_bytes,
        max_tokens=cfg.max_tokens,
        budget_seconds=cfg.validation_budget_seconds,
        cost=CostLimits(
            max_depth=cfg.max_query_depth,
            max_aliases=cfg.max_aliases,
            max_spreads=cfg.max_fragment_spreads,
            max_selections=cfg.max_selections,
            max_merges=cfg.max_field_merges,
        ),
    )


def build_schema(limits: ApiSettings | None = None) -> strawberry.Schema:
    """The schema; ``limits`` bound a query's size, depth, aliases and expanded fields.

    Each distinct query text is parsed and validated once (validation alone was ~7 % of the
    server's busy time under the API load benchmark), in a worker thread under a time
    budget, after a check whose cost is linear in the document (``QueryGuard``).
    """
    cfg = limits or ApiSettings()
    protect_root_fields(Query, Mutation)
    guard = DocumentGuard(guard_limits(cfg), CACHED_DOCUMENTS)
    return strawberry.Schema(
        query=Query,
        mutation=Mutation,
        config=StrawberryConfig(scalar_map=VIZ_SCALARS),
        extensions=[lambda: QueryGuard(guard), LoggedMaskErrors],
    )


def schema_sdl() -> str:
    """The schema in SDL, as checked in at docs/schema.graphql."""
    return build_schema().as_str() + "\n"
