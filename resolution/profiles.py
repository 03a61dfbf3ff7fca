"""Living entity profiles: a bounded extractive summary, its embedding and context tags.

The profile is what context disambiguation compares against, so it describes an entity by
what the tenant's current memories say about it: each statement once with the day it was said
(``resolution/summary.py``), sentences naming the entity first, then the rest of its most
important memories, cut at ``profile_max_chars``. The embedded text leaves out the days and
the entity's own names (the query context has the name removed too) and adds its declared
roles and parent ("… Role: writer. Part of Wolf of Blog Street (link, building).").

``refresh`` is the incremental path (the write path calls it after linking memories to
entities); ``reprofile_entities`` walks a whole tenant in pages with batched embeddings and a
progress callback, holding one page in memory at a time.
"""

from __future__ import annotations

import re
from array import array
from collections import Counter, OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from core.settings import ResolutionSettings
from core.text import normalize_name
from core.types import Entity
from graph.resolution_ops import ProfileSources
from graph.store import GraphStore
from resolution.entity_cache import EntityCache
from resolution.summary import build_summary, statements
from vectors.embedding.embedder import Embedder

Progress = Callable[[int, int], None]  # (entities done, entities total)

_WORD = re.compile(r"[A-Za-z][A-Za-z-]{3,}")
_STOP = frozenset(
    {"this", "that", "with", "from", "have", "been", "were", "will", "would", "could",
     "should", "about", "their", "there", "they", "them", "what", "when", "where", "which",
     "while", "also", "just", "very", "some", "more", "most", "into", "over", "only", "than",
     "then", "your", "ours", "mine", "need", "needs", "make", "made", "does", "done", "like",
     "want", "wants", "told", "said"}
)  # fmt: skip
MAX_TAGS = 12
PAD_CHARS = 200  # a profile with no sentence naming the entity is padded up to this length
PARENT_TAGS = 4
# Profile texts whose vectors a builder keeps: a refresh of an entity whose profile did not
# change (most refreshes of a well-known one) embeds and writes nothing.
MAX_KEPT_VECTORS = 4096


@dataclass(frozen=True)
class ReprofileReport:
    tenant_id: str
    total: int
    profiled: int
    seconds: float


def context_tags(entity: Entity, summary: str) -> list[str]:
    """Declared tags (``role:writer``) kept, then the summary's most frequent content words
    (its days left out)."""
    declared = [t for t in entity.context_tags if ":" in t]
    names = {w for a in (entity.name, *entity.aliases) for w in normalize_name(a).split()}
    said = " ".join(statements(summary))
    words = Counter(w.lower() for w in _WORD.findall(said) if w.lower() not in _STOP | names)
    keywords = [w for w, _ in words.most_common(MAX_TAGS)]
    return list(dict.fromkeys(declared + keywords))[:MAX_TAGS]


def _own_names(entity: Entity) -> re.Pattern[str]:
    names = sorted({entity.name, *entity.aliases}, key=len, reverse=True)
    return re.compile(
        "|".join(rf"(?<!\w){re.escape(n)}(?:['’]s)?(?!\w)" for n in names), flags=re.I
    )


def profile_sentences(entity: Entity, summary: str) -> list[str]:
    """The summary's sentences that describe the entity, without their days and with its own
    names cut out.

    Only sentences naming the entity are used when there are any (a turn often talks about
    several things); otherwise the summary's first sentences, up to ``PAD_CHARS``.
    """
    pattern = _own_names(entity)
    named: list[str] = []
    other: list[str] = []
    for sentence in statements(summary):
        cut = re.sub(r"\s+", " ", pattern.sub(" ", sentence)).strip()
        if cut:
            (named if pattern.search(sentence) else other).append(cut)
    if named:
        return named
    out: list[str] = []
    for sentence in other:
        if sum(len(s) + 1 for s in out) >= PAD_CHARS:
            break
        out.append(sentence)
    return out


def role_line(tags: Sequence[str]) -> str:
    roles = [t.split(":", 1)[1] for t in tags if t.startswith("role:")]
    return "Role: " + ", ".join(roles) + "." if roles else ""


def profile_text(entity: Entity, summary: str, tags: Sequence[str], parent: Entity | None) -> str:
    """The text whose embedding represents the entity, without the entity's own names or the
    days the summary's statements were said (a day would pull unrelated profiles together).

    The describing sentences (``profile_sentences``), the declared roles, and the parent's
    name with a few of its context tags. No type boilerplate: a shared prefix
    ("A person.") pulls every candidate's score together and hides the distinctive words.
    """
    parts = [" ".join(profile_sentences(entity, summary)), role_line(tags)]
    if parent is not None:
        about = [t for t in parent.context_tags if ":" not in t][:PARENT_TAGS]
        parts.append(f"Part of {parent.name}" + (f" ({', '.join(about)})." if about else "."))
    text = " ".join(p for p in parts if p).strip()
    return text or f"{entity.type.value}"


def profile_facets(entity: Entity) -> list[str]:
    """The stored profile cut into facets: each describing sentence on its own, and the
    declared roles. Disambiguation compares a context with each facet as well as with the
    whole profile, so one memory that matches well is not drowned by the others."""
    summary = entity.profile_summary or ""
    facets = [*profile_sentences(entity, summary), role_line(entity.context_tags)]
    return list(dict.fromkeys(f for f in facets if f))


class ProfileBuilder:
    """Computes and stores entity profiles for one graph and embedder."""

    def __init__(
        self,
        graph: GraphStore,
        embedder: Embedder,
        settings: ResolutionSettings,
        cache: EntityCache | None = None,
    ):
        self._graph = graph
        self._embedder = embedder
        self._s = settings
        # Saving a profile does not count as an entity write (``ENTITY_NEUTRAL``): the
        # entities cached for resolution are replaced here with what was saved instead, so
        # turns that follow keep their cache (a profile job runs after most turns).
        self._cache = cache
        # Profile text → its vector, packed (a list of 384 floats is 12 KB, this 3 KB).
        self._vectors: OrderedDict[str, array[float]] = OrderedDict()

    async def refresh(self, tenant_id: str, entity_ids: Sequence[str]) -> list[Entity]:
        """Recompute the profiles of these entities now (unknown ids are skipped)."""
        out: list[Entity] = []
        ids = list(dict.fromkeys(entity_ids))
        for i in range(0, len(ids), self._s.profile_batch):
            out.extend(await self._profile_batch(tenant_id, ids[i : i + self._s.profile_batch]))
        return out

    async def reprofile_entities(
        self,
        tenant_id: str,
        ids: Sequence[str] | None = None,
        progress: Progress | None = None,
    ) -> ReprofileReport:
        """Re-profile ``ids`` or, when None, every live entity of the tenant, page by page."""
        import time

        started = time.monotonic()
        tenant = self._graph.tenant(tenant_id)
        total = len(set(ids)) if ids is not None else await tenant.entity_count()
        done = 0
        if ids is not None:
            wanted = list(dict.fromkeys(ids))
            for i in range(0, len(wanted), self._s.profile_batch):
                page = wanted[i : i + self._s.profile_batch]
                done += len(await self._profile_batch(tenant_id, page))
                if progress:
                    progress(done, total)
        else:
            after = ""
            while page := await tenant.entity_id_page(after, self._s.profile_batch):
                done += len(await self._profile_batch(tenant_id, page))
                after = page[-1]
                if progress:
                    progress(done, max(total, done))
        return ReprofileReport(tenant_id, total, done, time.monotonic() - started)

    async def _profile_batch(self, tenant_id: str, ids: Sequence[str]) -> list[Entity]:
        tenant = self._graph.tenant(tenant_id)
        entities = await tenant.get_entities(ids)
        if not entities:
            return []
        material = await tenant.entity_memories(list(entities), self._s.profile_max_memories)
        parent_ids = [e.parent_id for e in entities.values() if e.parent_id]
        parents = await tenant.get_entities(parent_ids) if parent_ids else {}
        rows: list[dict[str, object]] = []
        texts: list[str] = []
        for ident, entity in entities.items():
            sources = material.get(ident, ProfileSources([], []))
            summary = build_summary(
                entity, sources.material, self._s.profile_max_chars, sources.replaced
            )
            tags = context_tags(entity, summary)
            parent = parents.get(entity.parent_id) if entity.parent_id else None
            texts.append(profile_text(entity, summary, tags, parent))
            rows.append(
                {"id": ident, "summary": summary, "tags": tags, "sources": sources.memory_ids}
            )
        vectors = await self._embed(texts)
        for row, vector in zip(rows, vectors, strict=True):
            row["embedding"] = vector
        # A profile stored as it would be written again is left alone: no write, which a
        # turn's transaction on the same entity would otherwise conflict with.
        rows = [r for r in rows if not _stored(entities[str(r["id"])], r)]
        if not rows:
            return list(entities.values())
        writes = self._graph.entity_writes_of(tenant_id)
        await tenant.save_profiles(rows)
        fresh = list((await tenant.get_entities(list(entities))).values())
        if self._cache is not None:
            self._cache.replace(tenant_id, writes, fresh)
        return fresh

    async def _embed(self, texts: list[str]) -> list[list[float]]:
        """The vectors of these profile texts; texts embedded before are not embedded again."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if missing:
            for text, vector in zip(
                missing, await self._embedder.embed_documents(missing), strict=True
            ):
                self._vectors[text] = array("d", vector)
        out = []
        for text in texts:
            self._vectors.move_to_end(text)
            out.append(self._vectors[text].tolist())
        while len(self._vectors) > MAX_KEPT_VECTORS:
            self._vectors.popitem(last=False)
        return out


def _stored(entity: Entity, row: Mapping[str, object]) -> bool:
    """Whether ``entity`` already holds the profile ``row`` would save."""
    return (
        entity.profile_summary == row["summary"]
        and list(entity.context_tags) == row["tags"]
        and entity.profile_embedding is not None
        and list(entity.profile_embedding) == row["embedding"]
    )
