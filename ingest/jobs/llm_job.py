"""The deferred ``llm_extract`` job: richer extraction of one recorded turn by an LLM.

Runs from the job queue, after ``recordTurn`` has already stored the rule-based result. The
model's validated items go through the same linking, correction planning and durable write
as rule extractions; items whose content is already stored for that turn are skipped, so a
re-run (after a restart) adds nothing twice. When the model fails or returns junk the job
fails (and is retried by the queue) while the turn and its rule-based memories stay as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from core.errors import BackendError, NotFound
from core.text import content_hash
from core.types import MemoryType
from ingest.extract.corrections import Action
from ingest.extract.extraction import Candidate, candidates, subject_of
from ingest.extract.rules import Extracted
from ingest.jobs.llm import LLMExtractor, LLMItem
from ingest.write.persist import WriteSet, commit
from ingest.write.planning import FactPlanner, fact_keys
from ingest.write.topics import topic_entities
from ingest.write.writer import MemoryWriter
from resolution.types import EntityResolver

_TYPES = {
    "fact": MemoryType.FACT,
    "preference": MemoryType.PREFERENCE,
    "decision": MemoryType.SEMANTIC,
    "episode": MemoryType.EPISODIC,
}


def _extracted(item: LLMItem) -> Extracted:
    subject = item.subject if item.type == "fact" else "user"
    start = item.content.find(item.subject) if item.subject else -1
    return Extracted(
        kind=item.type,
        memory_type=_TYPES[item.type],
        content=item.content,
        start=0,
        end=len(item.content),
        subject=subject,
        subject_start=start,
        predicate=item.predicate,
        object=item.object,
        importance=0.6,
        confidence=item.confidence,
    )


class LLMExtractJob:
    """Queue handler: ``payload = {"episode_id": ...}``."""

    def __init__(
        self,
        writer: MemoryWriter,
        resolver: EntityResolver,
        extractor: LLMExtractor,
        planner: FactPlanner,
    ) -> None:
        self.writer = writer
        self.resolver = resolver
        self.extractor = extractor
        self.planner = planner

    async def __call__(self, tenant_id: str, payload: Mapping[str, Any]) -> None:
        tenant = self.writer.graph.tenant(tenant_id)
        try:
            episode = await tenant.get_memory(str(payload["episode_id"]))
        except (NotFound, KeyError):
            return  # erased meanwhile: nothing to extract
        result = await self.extractor.extract(episode.content)
        if result is None:
            raise BackendError("LLM extraction failed; the rule-based result stands")
        known = await tenant.memory_hashes_for_episode(episode.session_id or "", episode.id)
        stated: list[tuple[LLMItem, list[Candidate]]] = []
        for item in result.items:
            if item.type == "task" or content_hash(item.content) in known:
                continue
            resolution = await self.resolver.resolve(
                tenant_id, item.content, None, episode.created_at, create_missing=False
            )
            ex = _extracted(item)
            if ex.kind == "fact" and ex.subject and subject_of(ex, resolution) is None:
                # Not a name the tenant knows: a topic ("staging server"), as the parse reads it.
                ex = replace(ex, subject_kind="topic", subject=ex.subject.lower())
            topics = await topic_entities(tenant, [ex], episode.created_at)
            found = candidates(
                [ex],
                resolution,
                topics=topics,
                user_id=episode.user_id,
                project_id=episode.project_id,
                session_id=episode.session_id,
                episode_id=episode.id,
                at=episode.created_at,
            )
            stated.append((item, found))
        # Planned and written while no other write of this process changes the same facts
        # (a turn correcting one of them meanwhile would fork its chain).
        keys = [k for _, found in stated for k in fact_keys(tenant_id, found)]
        async with self.writer.statements.holding(keys) as held:
            ws = WriteSet()
            for item, found in stated:
                for planned in await self.planner.plan(
                    tenant, found, episode.user_id, episode.created_at
                ):
                    if planned.plan.action is Action.SKIP:
                        continue
                    new = planned.candidate.item.model_copy(
                        update={
                            "source": f"llm:{item.type}:{episode.id}",
                            "confidence": item.confidence,
                        }
                    )
                    memory = self.writer.build(tenant_id, new)
                    ws.memories.append(memory)
                    known.add(memory.content_hash)
                    self.planner.link(ws, memory, planned.plan, episode.created_at)
            if ws.memories:
                indexing = await commit(self.writer, tenant_id, ws, episode.created_at)
                await held.handover()  # the vector side in turn, while the next one plans
                await indexing.run()
