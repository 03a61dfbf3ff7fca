"""assembleContext: the five layers an LLM needs for this turn, within a token budget.

    procedural          how things are done (procedural memories)            300 tokens
    project_context     pinned core memory                                    600
    memories            the best remaining hits of the multi-path search     1,200
    document_chunks     document memories among the hits                       800
    recent_conversation the session's latest turns (never fewer than 3)      1,500

Budgets are scaled to ``tokenBudget``; packing rules are in ``retrieval/packing.py``.
Superseded facts never appear: the search reads current versions only and every item is
checked again. Resolution's tracked entities and clarification pass through untouched.

Example::

    assembler = ContextAssembler(retriever, token_counter())
    ctx = await assembler.assemble("acme", ContextRequest(session_id="s1", query="Peter?"))
    prompt = ctx.text
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from core.clock import now
from core.errors import InvalidInput
from core.retrieval_types import (
    AssembledContext,
    ContextRequest,
    Layer,
    RetrievalPath,
    SearchQuery,
)
from core.tokens import TokenCounter
from core.types import Entity, Hit, Memory, MemoryType
from core.validation import check_project_id
from retrieval.answers import ANSWERS
from retrieval.packing import pack
from retrieval.pairs import by_assistant
from retrieval.retriever import Retriever

MAX_TOKEN_BUDGET = 1_000_000


class ContextAssembler:
    """Builds token-budgeted context from a ``Retriever``'s hits and the session's turns."""

    def __init__(self, retriever: Retriever, counter: TokenCounter) -> None:
        self.retriever = retriever
        self.counter = counter

    async def assemble(
        self,
        tenant_id: str,
        request: ContextRequest,
        entities: Mapping[str, Entity] | None = None,
    ) -> AssembledContext:
        """The layers, their token counts and items for one model call. ``entities`` are the
        request's entities as the caller already read them (see ``Retriever.search``).

        Raises:
            InvalidInput: no session id, or a token budget below the minimum.
        """
        s = self.retriever.settings
        if not request.session_id or not request.session_id.strip():
            raise InvalidInput("sessionId is required", field="sessionId")
        check_project_id(request.project_id)
        budget = (
            request.token_budget
            if request.token_budget is not None
            else sum(s.layer_budgets.values())
        )
        if not s.min_token_budget <= budget <= MAX_TOKEN_BUDGET:
            raise InvalidInput(
                f"tokenBudget must be between {s.min_token_budget} and {MAX_TOKEN_BUDGET}",
                field="tokenBudget",
            )
        at = request.at if request.at is not None else now()
        turns = [t for t in request.recent_turns if t.tenant_id == tenant_id and t.is_live(at)]
        text = request.query or (turns[-1].content if turns else None)
        hits, core = await self._hits(tenant_id, request, text, turns, at, entities)
        floor = Floor(
            s.context_floor,
            s.context_min_similarity,
            s.context_assistant_similarity,
            s.context_first_hits,
        )
        candidates = self._layered(hits, core, turns, floor)
        note = identity_note(request)
        noted = self.counter.count(note + "\n\n") if note else 0
        packed = pack(
            self.counter,
            max(budget - noted, 0),
            {Layer(k): v for k, v in s.layer_budgets.items()},
            candidates,
            turns,
            s.min_recent_turns,
        )
        full = "\n\n".join(t for t in (note, packed.text) if t)
        return AssembledContext(
            layers=packed.layers,
            token_counts=packed.token_counts,
            total_tokens=self.counter.count(full) if note else packed.total_tokens,
            text=full,
            items=packed.items,
            tracked_entities=list(request.tracked),
            clarification=request.clarification,
            token_budget=budget,
            summarized_turns=packed.summarized_turns,
        )

    async def _hits(
        self,
        tenant_id: str,
        request: ContextRequest,
        text: str | None,
        turns: list[Memory],
        at: float,
        entities: Mapping[str, Entity] | None,
    ) -> tuple[list[Hit], list[Memory]]:
        """The search hits and pinned memories (the core path's; all pinned without a query)."""
        if not text or not text.strip():
            return [], await self._core(tenant_id, at, request.user_id)
        query = SearchQuery(
            query=text[: self.retriever.limits.max_content_chars],
            mode=request.mode,
            top_k=min(self.retriever.settings.context_top_k, self.retriever.limits.max_top_k),
            weights=request.weights,
            session_id=request.session_id,
            user_id=request.user_id,
            entity_ids=tuple(request.entity_ids),
            exclude_entity_ids=tuple(request.exclude_entity_ids),
            recent_turns=tuple(turns),
            prefer_project_id=request.project_id,
            at=at,
        )
        response, core = await self.retriever.search_with_core(tenant_id, query, entities)
        return response.hits, core

    async def _core(self, tenant_id: str, at: float, user_id: str | None) -> list[Memory]:
        tenant = self.retriever.graph.tenant(tenant_id)
        ids = await self.retriever.core.ids(tenant, at, None, user_id)
        found = await tenant.get_memories(ids)
        return [found[i] for i in ids if i in found]

    @staticmethod
    def _layered(
        hits: list[Hit],
        core: list[Memory],
        turns: list[Memory],
        floor: Floor,
    ) -> dict[Layer, list[tuple[Memory, float]]]:
        """Hits and core memories by layer, best first. A memory whose text is already in the
        context (a recent turn, or a better hit) is left out: a turn's episode and a memory
        extracted from it often say the same sentence, and both match the same queries. A hit
        below its layer's relevance floor is left out too (``floors``): a context carries
        what the question is about, not everything that scored above zero (``Floor``)."""
        out: dict[Layer, list[tuple[Memory, float]]] = {layer: [] for layer in Layer}
        turn_ids = {t.id for t in turns}
        said = {_said(t.content) for t in turns}
        # A hit that says what a core item says (the preference a rule was learned beside)
        # is left to the core item: one line, in the core layer.
        core_said = {_said(m.content): m.id for m in core if m.is_current}
        placed: set[str] = set()
        for rank, hit in enumerate(hits):
            m = hit.memory
            if m.id in turn_ids or not m.is_current or m.type is MemoryType.WORKING:
                continue
            text = _said(m.content)
            if text in said or _repeats(text, said) or core_said.get(text, m.id) != m.id:
                continue
            if m.type is MemoryType.PROCEDURAL:
                layer = Layer.PROCEDURAL
            elif m.pinned or hit.paths == (RetrievalPath.CORE,):
                layer = Layer.PROJECT_CONTEXT
            elif m.type is MemoryType.DOCUMENT:
                layer = Layer.DOCUMENT_CHUNKS
            else:
                layer = Layer.MEMORIES
            if floor.below(hit, layer, rank):
                continue
            if m.earlier_until is not None and not any(
                x.earlier_until is None for x, _ in out[layer]
            ):
                continue  # an earlier value only after a current one, never above it
            said.add(text)
            out[layer].append((m, hit.score))
            placed.add(m.id)
        for m in core:  # core memory is always offered, matched by the query or not
            if m.id not in placed and m.is_current and _said(m.content) not in said:
                layer = (
                    Layer.PROCEDURAL if m.type is MemoryType.PROCEDURAL else Layer.PROJECT_CONTEXT
                )
                out[layer].append((m, m.importance))
        return out


def identity_note(request: ContextRequest) -> str:
    """Who the query's names are: an ambiguous name says so and lists its candidates by their
    key facts (their memories are left out, never mixed); resolved people are named with
    theirs ("Sarah, designer at Brightpath Media")."""
    c = request.clarification
    if c is not None and c.descriptions:
        listed = "; ".join(c.descriptions)
        return (
            f'Identity: "{c.mention}" is ambiguous; it may be any of: {listed}. '
            "Their facts are left out: ask which one is meant."
        )
    known = [d for d in request.described if ", " in d]
    return f"Identity: {'; '.join(known)}." if known else ""


@dataclass(frozen=True)
class Floor:
    """What a hit needs to enter a context. ``shares``: each layer's floor, a share of the
    best candidate's relevance (similarity and keyword match); ``similarity``: the least
    similarity to the question of a hit that shares no word with it, unless it is among the
    search's ``first`` hits or a procedure (the few a tenant was taught are asked about in
    any words: "someone walked in wanting to join" for new patient registration);
    ``assistant``: the least similarity of an assistant's own turn. A hit about an entity
    the question names always passes (a foundation such as "We are WOBS ... Peter writes
    for us" answers a question about Peter in other words), and so does one the read path
    found giving what the question asks (its signal ``answers``: ``retrieval/slots.py``)."""

    shares: Mapping[str, float]
    similarity: float = 0.0
    assistant: float = 0.0
    first: int = 0  # the search's first hits are held to the shares only

    def below(self, hit: Hit, layer: Layer, rank: int = 0) -> bool:
        """Whether ``hit``, the search's ``rank``-th (from 0), stays out of ``layer``."""
        if RetrievalPath.ENTITY in hit.paths or hit.signals.get(ANSWERS):
            return False
        similarity = hit.signals.get("similarity", 1.0)
        if similarity < self.assistant and by_assistant(hit.memory):
            return True
        faint = similarity < self.similarity and hit.signals.get("keyword", 0.0) <= 0.0
        if faint and rank >= self.first and layer is not Layer.PROCEDURAL:
            return True
        return hit.signals.get("relevance_gate", 1.0) < self.shares.get(layer.value, 0.0)


def _repeats(text: str, said: set[str]) -> bool:
    """Whether ``text`` holds a sentence already in the context, or is one: a preference
    extracted from a turn ("keep my posts short, please") inside the turn that said it."""
    if len(text) < MIN_REPEAT:
        return False
    return any(len(s) >= MIN_REPEAT and (text in s or s in text) for s in said)


MIN_REPEAT = 20  # shorter texts ("ok", "thanks!") are not sentences worth comparing


def _said(text: str) -> str:
    """What a text says, for spotting the same sentence twice: case, spacing and the final
    full stop do not count."""
    return " ".join(text.split()).casefold().rstrip(".!")
