"""Multi-path search: five independent retrieval paths, fused and scored.

    entity        memories about the resolved / salient entities, their parents, related
                  process entities and merged entities (expanded through the graph, then
                  ranked by similarity within that set; plus the newest ABOUT links)
    semantic      dense nearest neighbours (vector index)
    keyword       BM25 over the sparse vectors (vector index)
    conversation  the session's recent turns, supplied by the caller, and neighbouring turns
                  of the strongest candidates (same session, nearest in time)
    core          pinned memories (graph), the most important first

``_search`` reads as its stages, each returning a small dataclass (``retrieval/stages.py``):
``plan`` checks the request (weights, "now", the vector filter); ``collect`` runs every path's
own query concurrently; ``fuse`` takes the union, each path ranking its own candidates;
``expand`` adds the strongest candidates' session neighbours and makes similarity and BM25
known for every candidate (from the paths' own queries, else one id-restricted query each,
while the index finds the neighbours); ``finalize`` ranks the union with the multi-signal
score on payload stand-ins (``retrieval/ranking.py``), hydrates the shortlist from the graph,
ranks it exactly, pushes near-duplicates down and cuts to top-k. Access counts are batched.

Example::

    retriever = Retriever(graph, index, embedder, settings.retrieval, settings.limits)
    response = await retriever.search("acme", SearchQuery(query="Who writes for WOBS?"))
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np

from core.clock import now
from core.errors import InvalidInput
from core.retrieval_types import RetrievalPath, SearchMetadata, SearchQuery, SearchResponse
from core.settings import LimitSettings, RetrievalSettings
from core.types import Entity, Hit, Memory, learned_from
from core.validation import check_project_id, check_text
from graph.retrieval_ops import EntitySet
from graph.store import GraphStore
from graph.tenant import TenantGraph
from retrieval.access import AccessRecorder
from retrieval.closeness import Similarities
from retrieval.core_cache import CoreCache
from retrieval.diversity import diversify
from retrieval.filters import admits
from retrieval.fusion import normalized, paths_of, rrf
from retrieval.neighbors import symmetric, windows_for
from retrieval.ranking import Evidence, order, rank, shortlist, stand_in
from retrieval.scoring import selectivity, weights_for
from retrieval.slots import LEAD_RANK, settle
from retrieval.stages import Candidates, PathResults, Plan, Shortlist
from retrieval.temporal import TimeIntent, time_intent
from retrieval.topic import topic_of
from vectors.embedding.embedder import Embedder
from vectors.vector_index import ScoredId, VectorFilter, VectorIndex

P = RetrievalPath


class Retriever:
    """The read side's search. One per service; safe for concurrent use.

    Args:
        graph, index, embedder: the engines.
        settings: path depths, fusion and scoring shape.
        limits: request limits (max top-k, max query size).
        access: where access counts are batched; None disables access counting.
    """

    def __init__(
        self,
        graph: GraphStore,
        index: VectorIndex,
        embedder: Embedder,
        settings: RetrievalSettings,
        limits: LimitSettings,
        access: AccessRecorder | None = None,
    ) -> None:
        self.graph = graph
        self.index = index
        self.embedder = embedder
        self.settings = settings
        self.limits = limits
        self.access = access
        self.core = CoreCache(settings.core_cache_seconds, settings.core_limit)

    async def search(
        self,
        tenant_id: str,
        query: SearchQuery,
        entities: Mapping[str, Entity] | None = None,
    ) -> SearchResponse:
        """Top-k memories for ``query`` with their paths, signals and search metadata.

        ``entities`` may hold the query's entities as the caller already read them (the
        resolver did): with all of them known, embedding the query's topic does not wait for
        the graph.

        Raises:
            InvalidInput: empty or oversized query, top-k out of range, since after until,
                unknown or out-of-range weights.
        """
        response, _ = await self._search(tenant_id, query, entities, with_core=False)
        return response

    async def search_with_core(
        self,
        tenant_id: str,
        query: SearchQuery,
        entities: Mapping[str, Entity] | None = None,
    ) -> tuple[SearchResponse, list[Memory]]:
        """``search`` plus the pinned memories the core path found (for context assembly)."""
        return await self._search(tenant_id, query, entities, with_core=True)

    async def _search(
        self,
        tenant_id: str,
        query: SearchQuery,
        entities: Mapping[str, Entity] | None,
        with_core: bool,
    ) -> tuple[SearchResponse, list[Memory]]:
        """The search as its stages (``retrieval/stages.py``); ``with_core`` also hydrates
        every pinned memory (a context's core layer), not only those in the shortlist."""
        start = time.perf_counter()
        plan = self._plan(tenant_id, query)
        found = await self._collect(plan, query, entities or {})
        candidates = await self._expand(plan, query, found.vector, self._fuse(plan, query, found))
        evidence = self._evidence(plan, candidates)
        keep = found.core if with_core else []
        result = await self._finalize(plan, query, candidates, evidence, keep, with_core)
        if self.access is not None and result.hits:
            self.access.note(tenant_id, [h.memory.id for h in result.hits], plan.at)
        metadata = _metadata(candidates, evidence, result, start)
        core = [
            result.hydrated[i]
            for i in found.core
            if i in result.hydrated
            and i not in result.stale_core
            and admits(result.hydrated[i], tenant_id, query, plan.at)
        ]
        return SearchResponse(hits=result.hits, metadata=metadata), core

    def _plan(self, tenant_id: str, query: SearchQuery) -> Plan:
        """The request checked, and what every stage reads: weights, time, filter.

        Raises:
            InvalidInput: see ``search``.
        """
        weights = self._validate(query)
        # A question about past events, or about an explicit time, wants that time, not "now".
        past = bool(query.time_windows) or (
            self.settings.past_intent_drops_recency and time_intent(query.query) is TimeIntent.PAST
        )
        if past:
            weights = {**weights, "recency": 0.0}
        at = query.at if query.at is not None else now()
        flt = VectorFilter(
            tenant_id=tenant_id,
            types=[t.value for t in query.types] if query.types else None,
            project_id=query.project_id,
            user_scope=query.user_id,
            since=query.since,
            until=query.until,
            as_of=query.as_of,
            live_at=at,
        )
        return Plan(tenant_id, self.graph.tenant(tenant_id), flt, weights, past, at)

    async def _collect(
        self, plan: Plan, query: SearchQuery, entities: Mapping[str, Entity]
    ) -> PathResults:
        """Every path's own query. What does not need the query vector runs while the model
        embeds it: the keyword path, the entity path's graph part (after the entity set's
        expansion), the pinned ids and the tenant's size. The dense searches start as soon as
        the vector and the entity set are there; the entity path's graph part may still be
        running."""
        s, tenant, flt = self.settings, plan.tenant, plan.filter
        expansion = asyncio.ensure_future(tenant.entity_set(query.entity_ids))
        graph_part = asyncio.ensure_future(
            self._entity_graph(tenant, expansion, plan.at, query.as_of)
        )
        rest = asyncio.gather(
            self.index.keyword_search(query.query, flt, s.keyword_limit),
            self.core.rows(tenant, plan.at, query.as_of, query.user_id),
            self.core.memory_count(tenant) if query.entity_ids else _zero(),
        )
        try:
            vector = await self._vector(query, entities, expansion)
            entity_set = (await expansion).ids
            dense, entity_dense = await asyncio.gather(
                self.index.dense_search(vector, flt, s.semantic_limit),
                self._entity_dense(vector, flt, entity_set),
            )
            (entity_rows, degree), (keyword, core, total) = await asyncio.gather(graph_part, rest)
        finally:
            _settle(expansion, graph_part, rest)
        return PathResults(
            vector,
            entity_set,
            entity_dense,
            entity_rows,
            degree,
            dense,
            keyword,
            core=[i for i, _ in core],
            core_path=[i for i, learned in core if not learned],
            total=total,
        )

    def _fuse(self, plan: Plan, query: SearchQuery, found: PathResults) -> Candidates:
        """Each path's ranking, their union, and the payloads and scores the paths' queries
        already returned (the id-restricted queries of ``_expand`` fill in the rest: the
        same query vector and tenant IDF give the same scores)."""
        s = self.settings
        # An entity set most memories are about (a chat's two speakers) weighs less.
        sel = selectivity(found.degree, found.total) if found.entity_set else 1.0
        path_weights = {**s.path_weights, P.ENTITY: s.path_weights.get(P.ENTITY, 1.0) * sel}
        weights = {**plan.weights, "entity_match": plan.weights["entity_match"] * sel}
        supplied = {m.id: m for m in query.recent_turns if m.tenant_id == plan.tenant_id}
        ranked: dict[str, list[str]] = {
            P.ENTITY: [*(h.id for h in found.entity_dense), *(i for i, _ in found.entity_rows)],
            P.SEMANTIC: [h.id for h in found.dense],
            P.KEYWORD: [h.id for h in found.keyword],
            P.CONVERSATION: list(reversed(list(supplied)))[: s.conversation_limit],
            P.CORE: found.core_path,
        }
        hits = (found.keyword, found.dense, found.entity_dense)
        return Candidates(
            ranked=ranked,
            path_weights=path_weights,
            weights=weights,
            supplied=supplied,
            known={h.id: h.payload for scored in hits for h in scored},
            similarity={h.id: h.score for scored in hits[1:] for h in scored},
            bm25={h.id: h.score for h in found.keyword},
            union=list(dict.fromkeys(i for ids in ranked.values() for i in ids)),
        )

    async def _expand(
        self, plan: Plan, query: SearchQuery, vector: list[float], c: Candidates
    ) -> Candidates:
        """The candidates with their session neighbours, every one's dense and BM25 score,
        and the entity path ranked by similarity within the entity set. The paths'
        candidates are scored while the index looks for the neighbours; the neighbours new to
        the union are scored after (usually a handful)."""
        tenant_id = plan.tenant_id
        fused = rrf(c.ranked, self.settings.rrf_k, c.path_weights)
        links, _ = await asyncio.gather(
            self._neighbors(tenant_id, fused, c.known),
            self._score(vector, query.query, tenant_id, c.union, c.similarity, c.bm25, c.known),
        )
        seen = set(c.union)
        extra = list(dict.fromkeys(n for ns in links.values() for n in ns if n not in seen))
        if extra:
            await self._score(vector, query.query, tenant_id, extra, c.similarity, c.bm25, c.known)
        entity = sorted(dict.fromkeys(c.ranked[P.ENTITY]), key=lambda i: -c.similarity.get(i, 0.0))
        return replace(
            c, ranked={**c.ranked, P.ENTITY: entity}, union=[*c.union, *extra], links=links
        )

    def _evidence(self, plan: Plan, c: Candidates) -> Evidence:
        """Every signal ranking reads besides the memories themselves."""
        return Evidence(
            similarity=c.similarity,
            keyword=c.bm25,
            fusion=normalized(rrf(c.ranked, self.settings.rrf_k, c.path_weights)),
            found_by=paths_of(c.ranked),
            neighbors=symmetric(c.links),
            weights=c.weights,
            past=plan.past,
        )

    async def _finalize(
        self,
        plan: Plan,
        query: SearchQuery,
        c: Candidates,
        evidence: Evidence,
        keep: Sequence[str],
        context: bool = False,
    ) -> Shortlist:
        """Rank the whole union on payload stand-ins, hydrate the shortlist (and ``keep``)
        from the graph, rank it exactly, push near-duplicates down, cut to top-k, and put each
        slot's current value first (``retrieval/slots.py``; ``context``: for a context)."""
        s, tenant_id = self.settings, plan.tenant_id
        stand_ins: dict[str, Memory] = {}
        for i in c.union:
            payload = c.known.get(i)
            m = stand_in(tenant_id, i, payload) if payload is not None else None
            if m is not None:
                stand_ins[i] = m
        stand_ins.update(c.supplied)
        first = order(stand_ins, tenant_id, query, plan.at, evidence, s)
        wanted = shortlist(first, query.top_k, keep)
        hydrated = await plan.tenant.get_memories([i for i in wanted if i not in c.supplied])
        hydrated.update({i: c.supplied[i] for i in wanted if i in c.supplied})
        exact = rank(hydrated, tenant_id, query, plan.at, evidence, s)
        hits = diversify(
            exact, s.diversity_entity_jaccard, s.diversity_text_jaccard, s.diversity_penalty
        )[: query.top_k]
        when = query.as_of if query.as_of is not None else plan.at
        if not s.slot_reads:
            return Shortlist(first, hydrated, hits)
        # A context's learned core lines are read with its hits: a line a newer statement
        # replaced (the write path missed it) must not lead every context from the core layer.
        learned = [
            hydrated[i]
            for i in keep
            if context and i in hydrated and learned_from(hydrated[i].source) is not None
        ]
        shown = {h.memory.id for h in hits}
        top = max((h.score for h in hits), default=1.0)
        extra = [Hit(memory=m, score=top, paths=("core",)) for m in learned if m.id not in shown]
        settled = await settle(
            plan.tenant,
            [*extra, *hits],
            when,
            lambda m: admits(m, tenant_id, query, plan.at),
            query.query if s.question_slots else None,
            as_of=query.as_of is not None,
            lead_rank=None if context or query.as_of is not None else LEAD_RANK,
            context=context,
            similar=partial(self._similar, query.query) if s.question_similarity else None,
            faint=s.context_min_similarity,
        )
        added = {h.memory.id for h in extra}
        stale = frozenset(
            h.memory.id
            for h in settled
            if h.memory.earlier_until is not None and h.memory.id in {m.id for m in learned}
        )
        hits = [h for h in settled if h.memory.id not in added]
        return Shortlist(first, hydrated, hits[: query.top_k], stale)

    async def _similar(self, query: str, texts: Sequence[str]) -> Similarities:
        """Cosine similarities of ``texts`` to ``query`` and to each other (normalized
        vectors), all embedded in one batch and cached by text (``Embedder.embed_query``)."""
        q, *vectors = await asyncio.gather(
            self.embedder.embed_query(query), *(self.embedder.embed_query(t) for t in texts)
        )
        matrix = np.asarray(vectors, dtype=np.float32)
        return Similarities(
            to_query=(matrix @ np.asarray(q, dtype=np.float32)).tolist(),
            pairwise=(matrix @ matrix.T).tolist(),
        )

    def _validate(self, query: SearchQuery) -> dict[str, float]:
        if not isinstance(query.query, str) or not query.query.strip():
            raise InvalidInput("query must not be empty", field="query")
        if len(query.query) > self.limits.max_content_chars:
            raise InvalidInput("query is too long", field="query")
        check_text(query.query, "query")
        check_project_id(query.project_id)
        if not 1 <= query.top_k <= self.limits.max_top_k:
            raise InvalidInput(f"topK must be between 1 and {self.limits.max_top_k}", field="topK")
        if query.since is not None and query.until is not None and query.since > query.until:
            raise InvalidInput("since is after until", field="since")
        return weights_for(self.settings, query.mode, query.weights)

    async def _vector(
        self,
        query: SearchQuery,
        known: Mapping[str, Entity],
        expansion: asyncio.Future[EntitySet],
    ) -> list[float]:
        """The dense query vector: the query's topic, its entities' names cut out (see
        ``retrieval/topic.py``). The names come from the caller when it knows every entity
        (the resolver read them), else from the read that expands the entity set."""
        if all(i in known for i in query.entity_ids):
            given: Iterable[Entity] = [known[i] for i in dict.fromkeys(query.entity_ids)]
        else:
            given = (await expansion).given.values()
        return await self.embedder.embed_query(topic_of(query.query, given))

    async def _entity_graph(
        self,
        tenant: TenantGraph,
        expansion: asyncio.Future[EntitySet],
        at: float,
        as_of: float | None,
    ) -> tuple[list[tuple[str, tuple[str, ...]]], int]:
        """The entity path's graph part: its memories and the entity set's degree."""
        ids = (await expansion).ids
        return await tenant.entity_path(ids, at, as_of, self.settings.entity_graph_limit)

    async def _entity_dense(
        self, vector: list[float], flt: VectorFilter, entity_set: Sequence[str]
    ) -> list[ScoredId]:
        """Memories about the entity set nearest to the query (payload ``entity_ids``)."""
        if not entity_set:
            return []
        scoped = replace(flt, entity_ids=list(entity_set))
        return await self.index.dense_search(vector, scoped, self.settings.entity_limit)

    async def _neighbors(
        self,
        tenant_id: str,
        fused: Mapping[str, float],
        known: Mapping[str, Mapping[str, Any]],
    ) -> dict[str, tuple[str, ...]]:
        """Nearest earlier/later memory in the session of the strongest fused candidates.

        ``known`` holds the index payloads the searches already returned; only the other
        seeds' payloads are read from the index.
        """
        s = self.settings
        if s.neighbor_weight <= 0 or s.neighbor_seeds <= 0:
            return {}
        seeds = sorted(fused, key=lambda i: -fused[i])[: s.neighbor_seeds]
        payloads = {i: known[i] for i in seeds if i in known}
        missing = [i for i in seeds if i not in payloads]
        if missing:
            payloads.update(await self.index.retrieve(tenant_id, missing))
        windows = windows_for(seeds, payloads, s.neighbor_window_s)
        return await self.index.neighbors(tenant_id, windows)

    async def _score(
        self,
        vector: list[float],
        text: str,
        tenant_id: str,
        ids: Sequence[str],
        similarity: dict[str, float],
        bm25: dict[str, float],
        payloads: dict[str, Mapping[str, Any]],
    ) -> None:
        """Add the dense and BM25 scores of these points that are not known yet (and the
        payloads the dense query returns); points of any version state."""
        dense, keyword = await asyncio.gather(
            self._scores_for(vector, None, tenant_id, [i for i in ids if i not in similarity]),
            self._scores_for(None, text, tenant_id, [i for i in ids if i not in bm25]),
        )
        for h in dense:
            similarity[h.id] = h.score
            payloads.setdefault(h.id, h.payload)
        bm25.update((h.id, h.score) for h in keyword)

    async def _scores_for(
        self, vector: list[float] | None, text: str | None, tenant_id: str, ids: Sequence[str]
    ) -> list[ScoredId]:
        """Dense scores and payloads (or BM25 scores alone) of exactly these points, any
        version state."""
        if not ids:
            return []
        flt = VectorFilter(tenant_id=tenant_id, ids=list(ids), include_superseded=True)
        if vector is not None:
            return await self.index.dense_search(vector, flt, len(ids))
        return await self.index.keyword_search(text or "", flt, len(ids), payload=False)


def _metadata(c: Candidates, evidence: Evidence, result: Shortlist, start: float) -> SearchMetadata:
    """Candidates per path (and the neighbours no path found), how many were ranked."""
    per_path = {str(p): len(dict.fromkeys(ids)) for p, ids in c.ranked.items()}
    per_path["NEIGHBOR"] = len([i for i in c.union if i not in evidence.found_by])
    return SearchMetadata(
        candidates_per_path=per_path,
        post_filter_count=len(result.first),
        latency_ms=(time.perf_counter() - start) * 1000,
    )


async def _zero() -> int:
    return 0


def _settle(*parts: asyncio.Future[Any]) -> None:
    """Stop the parts still running when another failed, and take the errors of those that
    failed too (the first error is already on its way up; the others would be logged as
    never retrieved)."""
    for part in parts:
        if not part.done():
            part.cancel()
        elif not part.cancelled():
            part.exception()
