"""ingestDocument: hash check, structure-aware chunks, entity links, version supersession.

A document is identified by its ``source_path``. Re-ingesting unchanged content (same content
hash) is a no-op. Changed content is chunked again (``ingest/extract/chunking.py``); each new
chunk is a memory of ``type=document`` linked to the entities it names (read as a document's
names are, ``resolution/names.py``: its prose only, new names with evidence), and every current
chunk of the previous version is superseded — not deleted — by the new chunk of the same
section (same heading), or else the one at the same position, with the reason. The
``(:Document)`` record (path, hash, version, chunk ids) is saved in the same transaction as
the chunks.

Versions of one path take turns: in a process under a striped lock, across processes by a
version check in the transaction (``cypher/ingest_document_claim.cypher``); a write planned
against a version another process has since replaced is given up and planned again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from core.clock import NEVER, now
from core.errors import BackendError, Conflict, InvalidInput
from core.ids import new_id
from core.ingest_types import Document, DocumentResult
from core.settings import Settings
from core.text import content_hash
from core.types import Entity, Memory, MemoryType, NewMemory
from core.validation import check_project_id
from graph.write_ops import (
    DocumentMoved,
    SupersedeLink,
    claim_document,
    document_claim_check,
    publish_chunks,
    save_document,
)
from ingest.extract.chunking import Chunk, chunk_text
from ingest.write.persist import WriteSet, persist
from ingest.write.writer import MemoryWriter
from resolution.names import DocumentNames, mask_markup
from resolution.types import EntityResolver

log = logging.getLogger(__name__)

# Told the chunks written so far and the document's chunk count, after each batch.
Progress = Callable[[int, int], Awaitable[None]]
MAX_PATH = 1000
PLAN_ATTEMPTS = 3  # plans of one version against a path other processes keep writing


def check_path(value: object) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_PATH or "\x00" in value:
        raise InvalidInput(f"sourcePath must be 1-{MAX_PATH} characters", field="sourcePath")
    return value.strip()


def successors(old_headings: Sequence[str], new: Sequence[Chunk]) -> list[int]:
    """For each old chunk (by its heading), the index of the new chunk that replaces it: the
    next unused new chunk of the same section, else the one at the same position."""
    by_heading: dict[str, list[int]] = {}
    for c in new:
        by_heading.setdefault(c.heading, []).append(c.index)
    used: dict[str, int] = {}
    out = []
    for i, heading in enumerate(old_headings):
        same = by_heading.get(heading)
        if same:
            k = used.get(heading, 0)
            out.append(same[min(k, len(same) - 1)])
            used[heading] = k + 1
        else:
            out.append(min(i, len(new) - 1))
    return out


class DocumentIngester:
    """Ingests documents for a tenant (see the module docstring)."""

    def __init__(self, settings: Settings, writer: MemoryWriter, resolver: EntityResolver) -> None:
        self.settings = settings
        self.writer = writer
        self.resolver = resolver

    def check(self, source_path: object, text: object, project_id: str | None = None) -> str:
        """Validate a document before anything is written; returns the path."""
        path = check_path(source_path)
        check_project_id(project_id)
        if not isinstance(text, str) or not text.strip():
            raise InvalidInput("document text must not be empty", field="text")
        if len(text) > self.settings.ingest.max_document_chars:
            raise InvalidInput(
                f"document is {len(text)} characters; the limit is "
                f"{self.settings.ingest.max_document_chars}",
                field="text",
                limit=self.settings.ingest.max_document_chars,
            )
        if "\x00" in text:
            raise InvalidInput("document text contains a NUL character", field="text")
        return path

    async def ingest_document(
        self,
        tenant_id: str,
        source_path: str,
        text: str,
        project_id: str | None = None,
        progress: Progress | None = None,
    ) -> DocumentResult:
        """Ingest one version of a document; ``progress(done, total)`` hears of each batch of
        chunks written (a document of more than ``ingest.document_batch_chunks`` chunks is
        written in batches, hidden until its last transaction publishes it)."""
        path = self.check(source_path, text, project_id)
        # Versions of one path ingested at once take turns: each reads the version the one
        # before it wrote (one version number each, the older chunks superseded).
        async with self.writer.statements.of("document", tenant_id, path):
            for _ in range(PLAN_ATTEMPTS - 1):
                with contextlib.suppress(DocumentMoved):
                    return await self._ingest(tenant_id, path, text, project_id, progress)
            try:
                return await self._ingest(tenant_id, path, text, project_id, progress)
            except DocumentMoved as e:
                raise Conflict(
                    f"document {path} kept changing while this version was written "
                    f"({PLAN_ATTEMPTS} attempts): send it again"
                ) from e

    async def _ingest(
        self,
        tenant_id: str,
        path: str,
        text: str,
        project_id: str | None,
        progress: Progress | None,
    ) -> DocumentResult:
        tenant = self.writer.graph.tenant(tenant_id)
        digest = content_hash(text)
        previous = await tenant.get_document(path)
        if previous is not None and previous.content_hash == digest:
            return DocumentResult(document=previous, unchanged=True)
        at = now()
        chunks = chunk_text(text, self.settings.ingest)
        if not chunks:
            raise InvalidInput("document has no text to index", field="text")
        version = (previous.version + 1) if previous else 1
        doc_id = previous.id if previous else new_id()
        size = self.settings.ingest.document_batch_chunks
        staged = len(chunks) > size  # written hidden, batch by batch, then published
        entities: dict[str, Entity] = {}
        names = DocumentNames(text)
        ws = WriteSet()
        for start in range(0, len(chunks), size):
            part = WriteSet()
            for chunk in chunks[start : start + size]:
                await self._plan_chunk(
                    tenant_id, path, chunk, doc_id, version, at, project_id, part, entities,
                    staged, names,
                )  # fmt: skip
            if staged:  # one short transaction per batch; nothing of it is visible yet
                await self._embed_in_steps(part)
                await persist(self.writer, tenant_id, part, at)
                if progress is not None:
                    await progress(start + len(part.memories), len(chunks))
            ws.memories += part.memories
            ws.extras.update(part.extras)
        if previous is not None:
            ws.pairs = await self._pairs(tenant_id, previous, chunks, ws.memories, version)
        props: dict[str, Any] = {
            "id": doc_id,
            "content_hash": digest,
            "version": version,
            "created_at": previous.created_at if previous else at,
            "updated_at": at,
            "chunk_ids": [m.id for m in ws.memories],
        }
        if project_id is not None:
            props["project_id"] = project_id
        ws.after.append(save_document(path, props))
        # Another process may write this path meanwhile (another API replica): the claim
        # reads its version under the tenant node's write, and a newer one than planned for
        # gives this transaction up (``DocumentMoved``); ``ingest_document`` plans again.
        ws.before.append(claim_document(path, at))
        ws.check = document_claim_check(previous.version if previous else 0)
        if staged:
            await self._publish(tenant_id, ws, at)
        else:
            await persist(self.writer, tenant_id, ws, at)
        document = Document(source_path=path, **props)
        indexed = [m.model_copy(update={"indexed": True, "expires_at": NEVER}) for m in ws.memories]
        return DocumentResult(
            document=document,
            chunks=tuple(indexed),
            superseded=len(ws.superseded),
            entities=tuple(entities.values()),
        )

    async def _plan_chunk(
        self,
        tenant_id: str,
        path: str,
        chunk: Chunk,
        doc_id: str,
        version: int,
        at: float,
        project_id: str | None,
        ws: WriteSet,
        entities: dict[str, Entity],
        staged: bool,
        names: DocumentNames,
    ) -> None:
        """Link one chunk's names to entities and add its memory to ``ws``. Only the chunk's
        prose is read for names (its code and markup blanked), as a document's."""
        resolution = await self.resolver.resolve(
            tenant_id, mask_markup(chunk.text), None, at, create_missing=True, document=names
        )
        linked = {r.entity.id: r.entity for r in resolution.resolved if r.entity is not None}
        entities.update(linked)
        memory = self.writer.build(
            tenant_id,
            NewMemory(
                content=chunk.text,
                type=MemoryType.DOCUMENT,
                project_id=project_id,
                created_at=at,
                source=f"doc:{path}#{chunk.index}",
                entity_ids=list(linked),
                expires_at=at if staged else None,  # hidden until the version is published
            ),
        )
        ws.memories.append(memory)
        ws.extras[memory.id] = {
            "doc_id": doc_id,
            "doc_path": path,
            "doc_version": version,
            "chunk_index": chunk.index,
            "chunk_heading": chunk.heading,
            "chunk_tokens": chunk.tokens,
        }

    async def _embed_in_steps(self, ws: WriteSet) -> None:
        """Embed a batch's chunks a few at a time (``ingest.document_embed_chunks``): the
        model runs one call at a time, and other writers' texts go in between the steps."""
        step = self.settings.ingest.document_embed_chunks
        loop = asyncio.get_running_loop()
        for start in range(0, len(ws.memories), step):
            few = ws.memories[start : start + step]
            vectors = await self.writer.embedder.embed_documents([m.content for m in few])
            for memory, vector in zip(few, vectors, strict=True):
                ready: asyncio.Future[list[float]] = loop.create_future()
                ready.set_result(vector)
                ws.vectors[memory.id] = ready

    async def _publish(self, tenant_id: str, ws: WriteSet, at: float) -> None:
        """The last transaction of a staged version: claim the path, make the new chunks live,
        supersede the old ones and save the document; then the vector payloads follow."""
        ids = [m.id for m in ws.memories]
        ws.after.insert(0, publish_chunks(ids))
        chunks, ws.memories = ws.memories, []  # written already: not created again
        try:
            await persist(self.writer, tenant_id, ws, at)
        finally:
            ws.memories = chunks
        live = {i: {"expires_at": NEVER} for i in ids}
        try:
            await self.writer.sync.show(tenant_id, changes=live, mark="later")
        except BackendError:
            # Earlier marks may ride along with the publish and say "indexed": unsay it, so
            # that the reconciler writes the points again with the live payload.
            log.exception("a published document's chunks kept hidden payloads; reconciling")
            with contextlib.suppress(BackendError):
                await self.writer.graph.tenant(tenant_id).mark_indexed(ids, indexed=False)
            return

    async def _pairs(
        self,
        tenant_id: str,
        previous: Document,
        chunks: Sequence[Chunk],
        memories: Sequence[Memory],
        version: int,
    ) -> list[SupersedeLink]:
        tenant = self.writer.graph.tenant(tenant_id)
        headings = await tenant.chunk_headings(list(previous.chunk_ids))
        current = [i for i in previous.chunk_ids if i in headings]
        targets = successors([headings[i] for i in current], chunks)
        reason = f"document {previous.source_path} changed (version {previous.version} → {version})"
        return [
            SupersedeLink(old_id, memories[t].id, reason)
            for old_id, t in zip(current, targets, strict=True)
        ]
