"""The application facade: one object that owns the engines and exposes its services as
namespaces, each the service itself (no call passes through the facade):

    brain = await Brain.open(Settings())
    memory = await brain.memories.remember("acme", NewMemory(content="Peter is a writer at WOBS"))
    result = await brain.reads.search("acme", SearchQuery(query="who writes for WOBS?"))
    await brain.close()

- ``memories`` (``ingest/memory_ops.py``): turns, remember, supersede, forget, erase, core
  memory, reads by id, reconcile;
- ``entities`` (``resolution/entity_ops.py``): entity reads and curation, resolve, identity
  questions, re-profiling;
- ``reads`` (``retrieval/reads.py``): search and assembleContext;
- ``ingest`` (``ingest/service.py``): documents and their jobs, tasks, conflicts, working memory;
- ``lifecycle`` (``ingest/lifecycle/service.py``): consolidation jobs, their runs, feedback,
  memory merges;
- ``transfer`` (``ingest/tenant_transfer.py``): a tenant's export and import;
- ``explorer`` (``retrieval/explorer.py``): the explorer's view of a tenant;
- ``admin`` (``api/administration.py``): tenants, API keys, analyst Cypher, doctor checks;
- ``counts`` (``graph/counts.py``): the listings' ``totalCount``;
- ``health`` (``api/health_check.py``): each engine's status, a tenant's counts;
- ``disk`` (``ingest/write/disk_purge.py``): erased data off the engines' files.

Every operation takes the tenant first, which the API takes from the caller's key.
"""

from __future__ import annotations

import time

from api.administration import Administration
from api.health_check import HealthCheck
from core.ingest_types import Session
from core.settings import Settings
from core.tokens import token_counter
from graph.counts import Counts
from graph.runtime import GraphRuntime, open_graph
from graph.store import GraphStore
from graph.supervisor import EngineSupervisor
from ingest.lifecycle.service import LifecycleService
from ingest.memory_ops import MemoryOperations
from ingest.service import IngestService
from ingest.tenant_transfer import TenantTransfer
from ingest.write.disk_purge import DiskPurge
from resolution.entity_ops import EntityOperations
from resolution.reads import ReadResolver
from resolution.resolver import Resolver
from retrieval.access import AccessRecorder
from retrieval.assembly import ContextAssembler
from retrieval.explorer import Explorer
from retrieval.reads import Reads
from retrieval.retriever import Retriever
from vectors.embedding.embedder import Embedder
from vectors.factory import build_embedder, build_vector_index
from vectors.vector_index import VectorIndex


class Brain:
    """Owns the engines and the services built on them (a plain composition: each service
    gets what it needs in its constructor, and none calls back into the facade)."""

    def __init__(
        self,
        settings: Settings,
        graph: GraphStore,
        index: VectorIndex,
        embedder: Embedder,
        runtime: GraphRuntime | None = None,
    ) -> None:
        self.settings = settings
        self.graph = graph
        self.index = index
        self.embedder = embedder
        self.resolver = Resolver(
            graph, embedder, settings.resolution, max_text_chars=settings.limits.max_content_chars
        )
        r = settings.retrieval
        self.access = AccessRecorder(graph, r.access_flush_seconds, r.access_max_pending)
        self.retriever = Retriever(graph, index, embedder, r, settings.limits, self.access)
        self.assembler = ContextAssembler(self.retriever, token_counter())
        self.reads = Reads(graph, ReadResolver(self.resolver), self.retriever, self.assembler, r)
        self.ingest = IngestService.build(
            settings, graph, index, embedder, self.resolver, self.resolver.refresh_profiles
        )
        # One writer (and its IndexSync) for every write of this process, turns and all.
        self.writer = self.ingest.writer
        self.lifecycle = LifecycleService(
            self.writer,
            settings.lifecycle,
            self.resolver.profiles.reprofile_entities,
            self.ingest.llm.client if self.ingest.llm is not None else None,
        )
        self.entities = EntityOperations(graph, self.resolver)
        self.disk = DiskPurge(settings, index, runtime)  # erased data off the engines' files
        self.memories = MemoryOperations(self.ingest, self.resolver, self.retriever.core, self.disk)
        self.transfer = TenantTransfer(self.writer, (self.resolver.names, self.retriever.core))
        self.explorer = Explorer(graph)
        self.health = HealthCheck(graph, index, runtime, settings.graph.uri)
        self.admin = Administration(graph, index)
        self.counts = Counts(graph)  # the listings' totalCount
        self._runtime = runtime
        if runtime is not None and runtime.supervisor is not None:
            # Writes the engine's exit cut short are finished as after any crash.
            runtime.supervisor.on_restart = self.memories.reconcile
        self.started_at = time.time()

    @property
    def engine_supervisor(self) -> EngineSupervisor | None:
        """The embedded graph engine's supervisor (None with a graph server)."""
        return self._runtime.supervisor if self._runtime is not None else None

    @classmethod
    async def open(cls, settings: Settings) -> Brain:
        """Start or connect to the engines, install the schema and reconcile the index."""
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        runtime = await open_graph(settings)
        try:
            embedder = build_embedder(settings.embedder)
            index = build_vector_index(settings, embedder.dimension)
            await index.open()
            brain = cls(settings, runtime.store, index, embedder, runtime)
            await brain.embedder.embed_query("warm up")  # load the models now, not on a request
            await brain.resolver.load()
            await brain.ingest.start()  # resumes jobs a previous process left pending
            if settings.reconcile_on_start:
                await brain.memories.reconcile()
            await brain.disk.settle()  # an index rebuild an erase owed when we last stopped
            # Before serving: the embedded shard optimizes only when asked, and blocks meanwhile.
            await index.optimize()
        except BaseException:
            await runtime.close()
            raise
        return brain

    async def close(self) -> None:
        if self.engine_supervisor is not None:
            await self.engine_supervisor.stop()  # no restart (or its reconcile) from here on
        await self.lifecycle.scheduler.stop()  # an interrupted job resumes at its next run
        await self.ingest.stop()  # pending jobs stay in the graph and resume at the next start
        await self.resolver.close()  # background cache renewals
        await self.access.close()  # flush batched access counts
        await self.disk.settle()  # nothing writes now: purge erased keys from the indexes
        await self.index.close()
        await self.embedder.close()
        if self._runtime is not None:
            await self._runtime.close()

    async def close_session(self, tenant_id: str, session_id: str) -> Session:
        """Close a session and flush its working memory (its window ends; used turns are
        promoted, and every turn stays): the ingest side's close, then the lifecycle's flush."""
        session = await self.ingest.turns.close_session(tenant_id, session_id)
        await self.lifecycle.flush_session(tenant_id, session.id)
        return session
