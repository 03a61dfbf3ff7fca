"""The GraphQL schema with its protective limits, and unexpected-error masking."""

from __future__ import annotations

import logging

import strawberry
from graphql import ASTValidationRule, GraphQLError
from strawberry.extensions import (
    AddValidationRules,
    MaskErrors,
    MaxTokensLimiter,
    ParserCache,
    ValidationCache,
)
from strawberry.extensions.max_aliases import create_validator as max_aliases_rule
from strawberry.extensions.query_depth_limiter import create_validator as max_depth_rule
from strawberry.schema.config import StrawberryConfig

from api.gql.admin import AdminMutation, AdminQuery
from api.gql.assemble import AssembleQuery
from api.gql.core_memory import CoreMutation, CoreQuery
from api.gql.documents import DocumentMutation, DocumentQuery
from api.gql.entities import EntityMutation, EntityQuery
from api.gql.errors import protect_root_fields
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


# Distinct query texts whose parsed document and validation result are kept (LRU). Apps send
# a handful of fixed operations with variables, so nearly every request is a hit; a client
# that sends many one-off texts only evicts its own entries.
CACHED_DOCUMENTS = 256


def build_schema(limits: ApiSettings | None = None) -> strawberry.Schema:
    """The schema; ``limits`` bound query depth, aliases and size (complexity).

    Each distinct query text is parsed and validated once: validation alone was ~7 % of the
    server's busy time under the API load benchmark. The depth and alias rules are built
    once per schema so that the validation cache's key (schema, document, rules) repeats;
    the strawberry extensions that add them make new rule classes on every request.
    """
    cfg = limits or ApiSettings()
    protect_root_fields(Query, Mutation)
    rules: list[type[ASTValidationRule]] = [
        max_depth_rule(cfg.max_query_depth, None),
        max_aliases_rule(cfg.max_aliases),
    ]
    return strawberry.Schema(
        query=Query,
        mutation=Mutation,
        config=StrawberryConfig(scalar_map=VIZ_SCALARS),
        extensions=[
            lambda: MaxTokensLimiter(max_token_count=cfg.max_tokens),
            lambda: ParserCache(maxsize=CACHED_DOCUMENTS),
            lambda: AddValidationRules(rules),
            lambda: ValidationCache(maxsize=CACHED_DOCUMENTS),
            LoggedMaskErrors,
        ],
    )


def schema_sdl() -> str:
    """The schema in SDL, as checked in at docs/schema.graphql."""
    return build_schema().as_str() + "\n"
