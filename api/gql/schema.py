"""The GraphQL schema with its protective limits, and unexpected-error masking."""

from __future__ import annotations

import logging

import strawberry
from graphql import GraphQLError
from strawberry.extensions import MaskErrors, MaxAliasesLimiter, MaxTokensLimiter, QueryDepthLimiter

from api.gql.admin import AdminMutation, AdminQuery
from api.gql.assemble import AssembleQuery
from api.gql.ingest import IngestMutation, IngestQuery
from api.gql.lifecycle import LifecycleMutation, LifecycleQuery
from api.gql.mutation import Mutation as MemoryMutation
from api.gql.query import Query as MemoryQuery
from api.gql.resolution import ResolutionMutation, ResolutionQuery
from core.errors import BrainError
from core.settings import ApiSettings

log = logging.getLogger(__name__)


class LoggedMaskErrors(MaskErrors):
    """Mask unexpected errors; log them with the request id that the client sees."""

    def __init__(self) -> None:
        super().__init__(should_mask_error=self._mask, error_message="Internal error")

    def _mask(self, error: GraphQLError) -> bool:
        if error.original_error is None or isinstance(
            error.original_error, (BrainError, GraphQLError)
        ):
            return False  # validation and variable-coercion errors, expected failures: safe
        ctx = self.execution_context.context
        request_id = getattr(ctx, "request_id", "-")
        log.error("request %s failed", request_id, exc_info=error.original_error)
        error.extensions = {**(error.extensions or {}), "requestId": request_id}
        return True


@strawberry.type
class Query(MemoryQuery, AssembleQuery, IngestQuery, ResolutionQuery, LifecycleQuery, AdminQuery):
    pass


@strawberry.type
class Mutation(
    MemoryMutation, IngestMutation, ResolutionMutation, LifecycleMutation, AdminMutation
):
    pass


def build_schema(limits: ApiSettings | None = None) -> strawberry.Schema:
    """The schema; ``limits`` bound query depth, aliases and size (complexity)."""
    cfg = limits or ApiSettings()
    return strawberry.Schema(
        query=Query,
        mutation=Mutation,
        extensions=[
            lambda: QueryDepthLimiter(max_depth=cfg.max_query_depth),
            lambda: MaxAliasesLimiter(max_alias_count=cfg.max_aliases),
            lambda: MaxTokensLimiter(max_token_count=cfg.max_tokens),
            LoggedMaskErrors,
        ],
    )


def schema_sdl() -> str:
    """The schema in SDL, as checked in at docs/schema.graphql."""
    return build_schema().as_str() + "\n"
