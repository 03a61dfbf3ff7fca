"""Our vector conditions and payload schema in Qdrant Edge's terms (for ``edge_index.py``):
the one place that knows how a ``Condition`` becomes a ``qdrant_edge`` filter."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import qdrant_edge as qe

from vectors.bm25 import SparseTerms
from vectors.vector_conditions import (
    TENANT,
    Condition,
    HasIds,
    Match,
    MatchAnyOf,
    MatchOrMissing,
    Range,
    ids_conditions,
    tenant_conditions,
)
from vectors.vector_index import PAYLOAD_BOOLS, PAYLOAD_FLOATS, PAYLOAD_KEYWORDS


def payload_indexes() -> dict[str, qe.PayloadSchemaType | qe.PayloadSchemaParams]:
    schema: dict[str, qe.PayloadSchemaType | qe.PayloadSchemaParams] = {
        TENANT: qe.KeywordIndexParams(is_tenant=True)
    }
    schema.update({f: qe.PayloadSchemaType.Keyword for f in PAYLOAD_KEYWORDS if f != TENANT})
    schema.update({f: qe.PayloadSchemaType.Float for f in PAYLOAD_FLOATS})
    schema.update({f: qe.PayloadSchemaType.Bool for f in PAYLOAD_BOOLS})
    return schema


def edge_filter(conditions: Sequence[Condition]) -> qe.Filter:
    return qe.Filter(must=[edge_condition(c) for c in conditions])


def edge_condition(condition: Condition) -> qe.ConditionType:
    match condition:
        case Match(key, value):
            return qe.FieldCondition(key, match=qe.MatchValue(value))
        case MatchAnyOf(key, values):
            return qe.FieldCondition(key, match=qe.MatchAny(list(values)))
        case MatchOrMissing(key, value):
            either: list[qe.ConditionType] = [
                qe.FieldCondition(key, match=qe.MatchValue(value)),
                qe.IsEmptyCondition(key),
            ]
            return qe.Filter(should=either)
        case Range(key, gte, gt, lte, lt):
            return qe.FieldCondition(key, range=qe.RangeFloat(gte=gte, gt=gt, lte=lte, lt=lt))
        case HasIds(ids):
            return has_ids(ids)


@functools.lru_cache(maxsize=16)
def has_ids(ids: tuple[str, ...]) -> qe.ConditionType:
    """One id condition per id set: a search scores the same few hundred candidates densely
    and by keyword, and building the condition (parsing every id) costs ~0.25 ms a time."""
    point_ids: set[qe.PointId] = set(ids)
    return qe.HasIdCondition(point_ids)


def ids_filter(tenant_id: str, ids: Sequence[str]) -> qe.Filter | None:
    conditions = ids_conditions(tenant_id, ids)
    return edge_filter(conditions) if conditions is not None else None


def idf_params(tenant_id: str) -> qe.SearchParams:
    """IDF over this tenant's points only: other tenants never shape a tenant's scores."""
    return qe.SearchParams(idf=qe.IdfParams(corpus=edge_filter(tenant_conditions(tenant_id))))


def sparse_vector(terms: SparseTerms) -> qe.SparseVector:
    return qe.SparseVector(terms.indices, terms.values)
