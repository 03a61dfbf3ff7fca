"""What a ``VectorFilter`` means and what a valid point is, once for both Qdrant backends.

Qdrant Edge and ``qdrant-client`` speak the same filter language through different classes.
The semantics live here as four backend-neutral condition shapes; each backend only maps them
onto its own classes, so the two cannot drift apart:

    Match(key, value)            payload[key] == value (or contains it, for arrays)
    MatchAnyOf(key, values)      payload[key] is (or contains) one of values; none matches ()
    MatchOrMissing(key, value)   payload[key] == value, or the point has no such field
    Range(key, gte, gt, lte, lt) a float range; a point without the field never matches
    HasIds(ids)                  the point id is one of ids; none matches ()

All conditions of a list must hold (a conjunction). Every list starts with the tenant.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.clock import NEVER
from core.errors import InvalidInput
from vectors.vector_index import NeighborWindow, VectorFilter, VectorPoint

TENANT = "tenant_id"
RRF_K = 60  # reciprocal-rank fusion constant, the same on both backends (Qdrant's default is 2)
SAME_TIME_S = 0.001  # memories this close to a neighbour search's seed share its time
# Points that omit these would silently fall out of every "current" / "live" filter.
_DEFAULT_TIMES = {"superseded_at": NEVER, "expires_at": NEVER}


@dataclass(frozen=True)
class Match:
    key: str
    value: str


@dataclass(frozen=True)
class MatchAnyOf:
    key: str
    values: tuple[str, ...]


@dataclass(frozen=True)
class MatchOrMissing:
    key: str
    value: str


@dataclass(frozen=True)
class Range:
    key: str
    gte: float | None = None
    gt: float | None = None
    lte: float | None = None
    lt: float | None = None


@dataclass(frozen=True)
class HasIds:
    ids: tuple[str, ...]


Condition = Match | MatchAnyOf | MatchOrMissing | Range | HasIds


def tenant_conditions(tenant_id: str | None, ids: Sequence[str] | None = None) -> list[Condition]:
    """Conditions selecting one tenant's points (all points for ``None``), optionally by id."""
    conditions: list[Condition] = []
    if tenant_id is not None:
        conditions.append(Match(TENANT, check_tenant(tenant_id)))
    if ids is not None:
        conditions.append(HasIds(tuple(canonical_ids(ids))))
    return conditions


def ids_conditions(tenant_id: str, ids: Sequence[str]) -> list[Condition] | None:
    """This tenant's points among ``ids``; None when none of them can exist (nothing to do)."""
    wanted = canonical_ids(ids)
    conditions = tenant_conditions(tenant_id, wanted)
    return conditions if wanted else None


def filter_conditions(flt: VectorFilter) -> list[Condition]:
    """Translate a ``VectorFilter`` as documented in ``vectors.vector_index``."""
    conditions = tenant_conditions(flt.tenant_id, flt.ids)
    for key, value in (
        ("project_id", flt.project_id),
        ("user_id", flt.user_id),
        ("session_id", flt.session_id),
    ):
        if value is not None:
            conditions.append(Match(key, value))
    if flt.user_scope is not None:  # the user's own points and the tenant's shared ones
        conditions.append(MatchOrMissing("user_id", flt.user_scope))
    if flt.types is not None:
        conditions.append(MatchAnyOf("type", tuple(flt.types)))
    if flt.entity_ids is not None:
        conditions.append(MatchAnyOf("entity_ids", tuple(flt.entity_ids)))
    if flt.since is not None or flt.until is not None:
        conditions.append(Range("created_at", gte=flt.since, lte=flt.until))
    if flt.as_of is not None:
        conditions.append(Range("valid_from", lte=flt.as_of))
        conditions.append(Range("superseded_at", gt=flt.as_of))
    elif not flt.include_superseded:
        conditions.append(Range("superseded_at", gte=NEVER))
    if flt.live_at is not None:
        conditions.append(Range("expires_at", gt=flt.live_at))
    return conditions


def neighbor_queries(
    tenant_id: str, windows: Sequence[NeighborWindow]
) -> list[tuple[list[Condition], bool]]:
    """Two one-point queries per window, as (conditions, newest first): the point before the
    seed ([lo, at − 1 ms)) newest first, then the one after it ((at + 1 ms, hi]) oldest first,
    both in the seed's session and ordered by ``created_at``. ``nearest`` reads their answers.

    Points within ``SAME_TIME_S`` of the seed are its own time, not neighbours: a turn and
    what was extracted from it share a timestamp, and an engine's float index may hold a
    timestamp a few units in the last place off its payload (seen on an optimized Edge shard:
    ``created_at < at`` matched the seed itself), so a strict bound at ``at`` is not enough.
    """
    out: list[tuple[list[Condition], bool]] = []
    for window in windows:
        session = [*tenant_conditions(tenant_id), Match("session_id", window.session_id)]
        before = Range("created_at", gte=window.lo, lt=window.at - SAME_TIME_S)
        after = Range("created_at", gt=window.at + SAME_TIME_S, lte=window.hi)
        out.append(([*session, before], True))
        out.append(([*session, after], False))
    return out


def nearest(
    windows: Sequence[NeighborWindow], found: Sequence[Sequence[str]]
) -> dict[str, tuple[str, ...]]:
    """Seed -> (before, after) ids from the answers to ``neighbor_queries``, in its order;
    seeds with neither left out."""
    out: dict[str, tuple[str, ...]] = {}
    for i, window in enumerate(windows):
        ids = tuple(ids[0] for ids in found[2 * i : 2 * i + 2] if ids)
        if ids:
            out[window.seed] = ids
    return out


def check_tenant(tenant_id: str) -> str:
    if not isinstance(tenant_id, str) or not tenant_id:
        raise InvalidInput("tenant_id must be a non-empty string", field="tenant_id")
    return tenant_id


_CANONICAL = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def canonical_ids(ids: Iterable[str]) -> list[str]:
    """Canonical UUID strings, deduplicated in order. Malformed ids are dropped: no point has
    them, so "these ids" and "these ids that can exist" select the same points."""
    seen: dict[str, None] = {}
    for value in ids:
        if isinstance(value, str) and _CANONICAL.fullmatch(value):
            seen.setdefault(value, None)  # our own ids: already canonical (no UUID parse)
            continue
        try:
            seen.setdefault(str(uuid.UUID(str(value))), None)
        except ValueError:
            continue
    return list(seen)


def check_dense(vector: Sequence[float], dimension: int) -> list[float]:
    if len(vector) != dimension:
        raise InvalidInput(
            f"dense vector has {len(vector)} dimensions, the index expects {dimension}",
            field="dense",
        )
    return [float(x) for x in vector]


def point_payload(point: VectorPoint, dimension: int) -> tuple[str, list[float], dict[str, Any]]:
    """Validate a point; return its canonical id, dense vector and stored payload.

    Raises:
        InvalidInput: malformed id, wrong dimension, or no ``tenant_id`` in the payload.
    """
    try:
        point_id = str(uuid.UUID(str(point.id)))
    except ValueError:
        raise InvalidInput(f"point id must be a UUID: {point.id!r}", field="id") from None
    check_tenant(point.payload.get(TENANT, ""))
    return point_id, check_dense(point.dense, dimension), {**_DEFAULT_TIMES, **point.payload}


def check_payload_update(payload: Mapping[str, Any]) -> dict[str, Any]:
    """A payload merge may not move points to another tenant."""
    if TENANT in payload:
        raise InvalidInput("tenant_id cannot be changed by set_payload", field="tenant_id")
    return dict(payload)
