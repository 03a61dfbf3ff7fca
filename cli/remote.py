"""`brain context`, `ingest`, `runs` and `reprofile` as clients of a running service.

The other client commands (``cli/service_client.py``) are one GraphQL call each; these four read
pages, wait for background work or batch it so that they can say how far they are, and print
what the same command prints when it opens the engines itself (``cli/standalone.py``). Like
``cli_client`` this module imports only the standard library and light core modules.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from cli.service_client import (
    ERRORS,
    RUN_FIELDS,
    Service,
    call,
    check_tenant_known,
    result,
    run_json,
)
from core.errors import BrainError, InvalidInput

# Ids per `reprofileEntities` call: small enough to report progress every few seconds.
REPROFILE_BATCH = 25
PAGE = 100  # `first` of a page: the service's largest (api.max_page_size)
POLL_SECONDS = 0.5  # how often a document job is read while it runs
TEXT_SUFFIXES = {".md", ".markdown", ".txt", ".rst", ".adoc", ".org", ".html", ".csv"}


def run(args: argparse.Namespace, service: Service) -> int:
    return _HANDLERS[args.command](args, service)


CONTEXT = (
    "query($input: AssembleContextInput!) { assembleContext(input: $input) "
    "{ ... on Context { text totalTokens tokenBudget } " + ERRORS + " } }"
)


def _context(args: argparse.Namespace, service: Service) -> int:
    check_tenant_known(service, args.tenant)
    context_input = {"sessionId": args.session, "userId": args.user, "query": args.query}
    if args.budget is not None:
        context_input["tokenBudget"] = args.budget
    data = call(service, CONTEXT, args.tenant, input=context_input)
    ctx = result(data["assembleContext"])
    print(ctx["text"])
    print(f"-- {ctx['totalTokens']} of {ctx['tokenBudget']} tokens", file=sys.stderr)
    return 0


RUNS = (
    "query($first: Int!, $after: String, $job: ConsolidationTask) "
    "{ jobRuns(first: $first, after: $after, job: $job) { ... on JobRunConnection "
    "{ edges { node { " + RUN_FIELDS + " counts { name value } } } "
    "pageInfo { hasNextPage endCursor } } " + ERRORS + " } }"
)


def _runs(args: argparse.Namespace, service: Service) -> int:
    if not 1 <= args.limit <= 1000:
        raise InvalidInput("--limit must be between 1 and 1000", field="limit")
    check_tenant_known(service, args.tenant)
    job = args.job.upper() if args.job else None
    for node in _pages(service, args.tenant, RUNS, "jobRuns", args.limit, job=job):
        print(json.dumps(run_json(node)))
    return 0


def _pages(
    service: Service, tenant: str, query: str, field: str, limit: int, **variables: Any
) -> Iterator[dict[str, Any]]:
    """Up to ``limit`` nodes of a connection, a page at a time."""
    after: str | None = None
    while limit > 0:
        data = call(service, query, tenant, first=min(limit, PAGE), after=after, **variables)
        page = result(data[field])
        for edge in page["edges"][:limit]:
            yield edge["node"]
        limit -= len(page["edges"])
        if not page["pageInfo"]["hasNextPage"]:
            return
        after = page["pageInfo"]["endCursor"]


ENTITY_IDS = (
    "query($first: Int!, $after: String) { entities(first: $first, after: $after) "
    "{ ... on EntityConnection { edges { node { id } } "
    "pageInfo { hasNextPage endCursor } } " + ERRORS + " } }"
)
REPROFILE = (
    "mutation($ids: [ID!]) { reprofileEntities(ids: $ids) "
    "{ ... on ReprofileReport { entities } " + ERRORS + " } }"
)


def _reprofile(args: argparse.Namespace, service: Service) -> int:
    """Every entity (or ``--ids``) re-profiled in batches, with a progress line between them."""
    check_tenant_known(service, args.tenant)
    started = time.monotonic()
    ids = list(dict.fromkeys(args.ids)) if args.ids else _entity_ids(service, args.tenant)
    done = 0
    for i in range(0, len(ids), REPROFILE_BATCH):
        data = call(service, REPROFILE, args.tenant, ids=ids[i : i + REPROFILE_BATCH])
        done += result(data["reprofileEntities"])["entities"]
        print(f"\rreprofiled {done}/{len(ids)}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    seconds = round(time.monotonic() - started, 2)
    print(json.dumps({"entities": done, "seconds": seconds}))
    return 0


def _entity_ids(service: Service, tenant: str) -> list[str]:
    ids: list[str] = []
    for node in _pages(service, tenant, ENTITY_IDS, "entities", sys.maxsize):
        ids.append(node["id"])
        if len(ids) % 1000 == 0:
            print(f"\rlisting entities: {len(ids)}", end="", file=sys.stderr, flush=True)
    return ids


INGEST = (
    "mutation($input: IngestDocumentInput!) { ingestDocument(input: $input) { "
    "... on DocumentResult { version unchanged chunks { id } } "
    "... on DocumentJob { id } " + ERRORS + " } }"
)
JOB = (
    "query($id: ID!) { documentJob(id: $id) { ... on DocumentJob { status chunksDone "
    "chunksTotal error result { version unchanged chunkCount } } " + ERRORS + " } }"
)


def _ingest(args: argparse.Namespace, service: Service) -> int:
    """Each document sent with a progress line (a large one's background job is followed to
    its end) and the summary `brain ingest` prints without a service; 1 if any failed."""
    files, skipped = document_files([Path(p) for p in args.paths])
    report_skipped(skipped)
    counts = Counter[str]()
    for number, path in enumerate(files, 1):
        prefix = f"[{number}/{len(files)}] {path}"
        try:
            document = {"sourcePath": str(path), "text": path.read_text(encoding="utf-8")}
            if args.project:
                document["projectId"] = args.project
            data = call(service, INGEST, args.tenant, input=document)
            stored = result(data["ingestDocument"])
            if "unchanged" not in stored:  # a DocumentJob: the service ingests it in the background
                stored = _follow(service, args.tenant, stored["id"], prefix)
        except (OSError, UnicodeDecodeError, BrainError) as e:
            counts["failed"] += 1
            print(f"\r{prefix}: FAILED {getattr(e, 'message', e)}", file=sys.stderr)
            continue
        if stored["unchanged"]:
            counts["unchanged"] += 1
            print(f"{prefix}: unchanged", file=sys.stderr)
        else:
            chunks = stored["chunkCount"] if "chunkCount" in stored else len(stored["chunks"])
            counts["chunks"] += chunks
            print(f"\r{prefix}: {chunks} chunks, v{stored['version']}", file=sys.stderr)
    summary = {"files": len(files), "chunks": counts["chunks"], "unchanged": counts["unchanged"]}
    print(json.dumps({**summary, "failed": counts["failed"], "skipped": len(skipped)}))
    return 1 if counts["failed"] else 0


def _follow(service: Service, tenant: str, job_id: str, prefix: str) -> dict[str, Any]:
    """A document job read until it ends, its progress rewritten in place; its result."""
    shown = ""
    try:
        while True:
            job = result(call(service, JOB, tenant, id=job_id)["documentJob"])
            status = job["status"]
            if status == "DONE":
                return dict(job["result"])
            if status == "FAILED":
                raise BrainError(f"document job {job_id} failed: {job['error']}")
            done, total = job["chunksDone"], job["chunksTotal"]
            line = f"{prefix}: {done}/{total} chunks" if total else f"{prefix}: queued"
            if line != shown:
                print(f"\r{line}", end="", file=sys.stderr, flush=True)
                shown = line
            time.sleep(POLL_SECONDS)
    except KeyboardInterrupt:
        print(f"\n{prefix}: stopped waiting; job {job_id} goes on in the service", file=sys.stderr)
        raise


def document_files(paths: list[Path]) -> tuple[list[Path], list[Path]]:
    """The files to ingest (given files as they are, folders walked for text documents), and
    the files of those folders left out for not being text documents (by suffix). A walk does
    not enter hidden folders nor take hidden files (``.git``, ``.DS_Store``)."""
    files: list[Path] = []
    skipped: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = (p for p in path.rglob("*") if p.is_file())
            for p in sorted(p for p in found if not _hidden(p.relative_to(path))):
                (files if p.suffix.lower() in TEXT_SUFFIXES else skipped).append(p)
        elif path.is_file():
            files.append(path)
        else:
            raise InvalidInput(f"{path}: no such file or folder", field="paths")
    return files, skipped


def report_skipped(skipped: list[Path]) -> None:
    """One stderr line on what a folder walk left out, and how to take it anyway."""
    if not skipped:
        return
    suffixes = Counter(p.suffix.lower() or "(none)" for p in skipped)
    kinds = ", ".join(f"{suffix} {n}" for suffix, n in sorted(suffixes.items()))
    print(
        f"left out {len(skipped)} of the folders' files as not text documents ({kinds});"
        f" text documents end in {' '.join(sorted(TEXT_SUFFIXES))}:"
        " name a file to ingest it anyway",
        file=sys.stderr,
    )


def _hidden(relative: Path) -> bool:
    return any(part.startswith(".") for part in relative.parts)


_HANDLERS: dict[str, Callable[[argparse.Namespace, Service], int]] = {
    "context": _context,
    "ingest": _ingest,
    "runs": _runs,
    "reprofile": _reprofile,
}
COMMANDS = frozenset(_HANDLERS)  # with api/cli_client.CLIENT_COMMANDS: the client commands
