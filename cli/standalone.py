"""What the `brain` subcommands do (parsing lives in cli/main.py)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from api.auth import create_key, list_keys, revoke_key
from api.brain import Brain
from api.export_format import EXPORT_VERSION, export_lines
from cli.remote import document_files, report_skipped
from cli.service_client import Checks, output, print_hit
from core.errors import BrainError, InvalidInput, NotFound
from core.lifecycle_types import JobName, JobRun
from core.retrieval_types import SearchQuery
from core.settings import Settings
from core.types import MemoryType, NewMemory
from core.validation import invalid_input
from graph.runtime import open_graph
from graph.store import MIGRATIONS


async def run(args: argparse.Namespace, settings: Settings) -> int:
    if args.command == "keys":
        return await _keys(args, settings)
    if args.command == "cypher":
        return await _cypher(args, settings)
    if args.command == "doctor":
        return await _doctor(settings)
    brain = await Brain.open(settings.model_copy(update={"reconcile_on_start": False}))
    try:
        return await _with_brain(args, brain)
    finally:
        await brain.close()


async def _keys(args: argparse.Namespace, settings: Settings) -> int:
    runtime = await open_graph(settings, attach=True)
    try:
        if args.keys_command == "create":
            key_id, key = await create_key(runtime.store, args.tenant, args.name, args.admin)
            print(f"created key {key_id} for tenant {args.tenant!r}; it is shown only once:")
            print(key)
        elif args.keys_command == "revoke":
            await revoke_key(runtime.store, args.key_id)
            print(f"revoked {args.key_id}")
        else:
            for row in await list_keys(runtime.store):
                print(json.dumps(_key_json(row)))
    finally:
        await runtime.close()
    return 0


async def _cypher(args: argparse.Namespace, settings: Settings) -> int:
    """A read-only query on the graph alone (no models loaded), attached to the engine of a
    running ``brain serve`` on this data directory if there is one."""
    from graph.analyst import check_read_only, parse_params, query_text, run_read_only

    text = check_read_only(query_text(args.query))  # refused before any engine starts
    params = parse_params(args.param)
    runtime = await open_graph(settings, attach=True)
    try:
        if args.tenant not in await runtime.store.system.tenants():
            raise NotFound("tenant", args.tenant)
        for row in await run_read_only(runtime.store, args.tenant, text, params):
            print(json.dumps(row, default=str))
    finally:
        await runtime.close()
    return 0


def _key_json(row: dict[str, Any]) -> dict[str, Any]:
    """A key record with its times as ISO-8601 (UTC), as people and ``jq`` read them."""
    return {k: iso(v) if k.endswith("_at") and v is not None else v for k, v in row.items()}


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


# Commands that only read a tenant: a tenant that never stored anything is a typo (exit 2),
# not an empty answer.
READS = {"search", "context", "runs", "export", "identity"}


async def check_tenant_known(brain: Brain, tenant_id: str) -> None:
    known = await brain.admin.tenants()
    if tenant_id not in known:
        raise NotFound("tenant", tenant_id)


async def _with_brain(args: argparse.Namespace, brain: Brain) -> int:
    if args.command in READS:
        await check_tenant_known(brain, args.tenant)
    if args.command == "identity":
        return await identity(brain, args.tenant, args.action, args.ids, args.reason, args.first)
    if args.command == "remember":
        try:
            item = NewMemory(
                content=args.content,
                type=MemoryType(args.type),
                importance=args.importance,
                pinned=args.pinned,
                source="cli",
            )
        except ValidationError as e:
            raise invalid_input(e) from None
        memory = await brain.memories.remember(args.tenant, item)
        print(memory.id)
    elif args.command == "search":
        result = await brain.reads.search(
            args.tenant, SearchQuery(query=args.query, top_k=args.top_k)
        )
        for hit in result.hits:
            m = hit.memory
            print_hit(m.id, hit.score, m.type.value, m.content, args.json)
    elif args.command == "context":
        ctx = await brain.reads.assemble_context(
            args.tenant, args.session, args.user, query=args.query, token_budget=args.budget
        )
        print(ctx.text)
        print(f"-- {ctx.total_tokens} of {ctx.token_budget} tokens", file=sys.stderr)
    elif args.command == "ingest":
        return await ingest_paths(brain, args.tenant, [Path(p) for p in args.paths], args.project)
    elif args.command == "reprofile":

        def progress(done: int, total: int) -> None:
            print(f"\rreprofiled {done}/{total}", end="", file=sys.stderr, flush=True)

        done = await brain.entities.reprofile(args.tenant, args.ids or None, progress)
        print(file=sys.stderr)
        print(json.dumps({"entities": done.profiled, "seconds": round(done.seconds, 2)}))
    elif args.command == "consolidate":
        jobs = [JobName(t) for t in args.task] if args.task else None

        def said(line: str) -> None:
            print(f"\r{line[:110]:<110}", end="", file=sys.stderr, flush=True)

        consolidated = await brain.lifecycle.consolidate(
            args.tenant, jobs, args.project, args.session, said
        )
        print(file=sys.stderr)
        for r in consolidated.runs:
            print(json.dumps(_run_json(r)))
        print(
            f"{len(consolidated.runs)} jobs in {consolidated.duration_ms / 1000:.1f} s"
            + ("" if consolidated.ok else "; some failed"),
            file=sys.stderr,
        )
        return 0 if consolidated.ok else 1
    elif args.command == "runs":
        if not 1 <= args.limit <= 1000:
            raise InvalidInput("--limit must be between 1 and 1000", field="limit")
        job = JobName(args.job) if args.job else None
        for r in await brain.lifecycle.runs(args.tenant, first=args.limit, job=job):
            print(json.dumps(_run_json(r)))
    elif args.command == "export":
        with output(args.out) as out:
            count = await export_tenant(brain, args.tenant, out)
        print(f"exported {count} records of tenant {args.tenant!r}", file=sys.stderr)
    elif args.command == "import":
        counts = await import_tenant(brain, args.tenant, Path(args.file))
        print(json.dumps(counts))
    elif args.command == "reconcile":
        report = await brain.memories.reconcile()
        print(json.dumps(report.__dict__))
    elif args.command == "compact":
        compacted = await brain.disk.compact()
        print(json.dumps(dataclasses.asdict(compacted)))
        if not compacted.verified:
            print(
                f"compaction not verified: {compacted.error or 'old index files left'}",
                file=sys.stderr,
            )
            return 1
    elif args.command == "health":
        h = await brain.health.check()
        print(json.dumps({"ok": h.ok, "engines": [e.__dict__ for e in h.engines]}))
        return 0 if h.ok else 1
    return 0


async def identity(
    brain: Brain, tenant_id: str, action: str, ids: list[str], reason: str | None, first: int
) -> int:
    """`brain identity`: one JSON line per question or decision, or the answer recorded."""
    wanted = {"questions": 0, "decisions": 1, "same": 2, "distinct": 2}[action]
    if len(ids) != wanted:
        raise InvalidInput(f"identity {action} takes {wanted} entity id(s)", field="ids")
    if action == "questions":
        for found in await brain.entities.identity_questions(tenant_id, first):
            q, said = found.question, found.descriptions
            row = {
                "id": q.entity.id,
                "description": said[q.entity.id],
                "candidates": [
                    {
                        "id": c.entity.id,
                        "description": said[c.entity.id],
                        "score": c.score,
                        "proposed": c.proposed,
                    }
                    for c in q.candidates
                ],
            }
            print(json.dumps(row))
    elif action == "decisions":
        for decision in await brain.entities.identity_decisions(tenant_id, ids[0]):
            print(json.dumps(dataclasses.asdict(decision)))
    elif action == "same":
        merge = await brain.entities.confirm_same(tenant_id, ids[0], ids[1], reason, by="cli")
        print(json.dumps({"merge": merge.id, "keep": merge.keep_id, "drop": list(merge.drop_ids)}))
    else:
        await brain.entities.confirm_distinct(tenant_id, ids[0], ids[1], reason)
        print(json.dumps({"distinct": [ids[0], ids[1]]}))
    return 0


def _progress_line(prefix: str) -> Callable[[int, int], Awaitable[None]]:
    """A long document's progress, rewritten in place on stderr after each batch."""

    async def show(done: int, total: int) -> None:
        print(f"\r{prefix}: {done}/{total} chunks", end="", file=sys.stderr, flush=True)

    return show


async def ingest_paths(
    brain: Brain, tenant_id: str, paths: list[Path], project_id: str | None
) -> int:
    """Ingest each document with a progress line and print a summary; 1 if any failed."""
    files, skipped = document_files(paths)
    report_skipped(skipped)
    chunks = unchanged = failed = 0
    for number, path in enumerate(files, 1):
        prefix = f"[{number}/{len(files)}] {path}"
        try:
            text = path.read_text(encoding="utf-8")
            result = await brain.ingest.ingest_document(
                tenant_id, str(path), text, project_id, _progress_line(prefix)
            )
        except (OSError, UnicodeDecodeError, BrainError) as e:
            failed += 1
            print(f"\r{prefix}: FAILED {getattr(e, 'message', e)}", file=sys.stderr)
            continue
        if result.unchanged:
            unchanged += 1
            print(f"{prefix}: unchanged", file=sys.stderr)
        else:
            chunks += len(result.chunks)
            print(
                f"\r{prefix}: {len(result.chunks)} chunks, v{result.document.version}",
                file=sys.stderr,
            )
    summary = {
        "files": len(files),
        "chunks": chunks,
        "unchanged": unchanged,
        "failed": failed,
        "skipped": len(skipped),
    }
    print(json.dumps(summary))
    return 1 if failed else 0


async def export_tenant(brain: Brain, tenant_id: str, out: IO[str]) -> int:
    """Write the tenant as JSONL (``api/export_format.py``); returns the number of records."""
    count = -1  # the header line is not a record
    async for line in export_lines(brain, tenant_id):
        out.write(line)
        count += 1
    return count


def read_export(path: Path) -> list[dict[str, Any]]:
    """Records of an export file, checked line by line (InvalidInput names the bad line)."""
    records: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError:
                raise InvalidInput(f"{path}:{number}: not JSON", field="file") from None
            if not isinstance(record, dict) or "kind" not in record:
                raise InvalidInput(f"{path}:{number}: not an export record", field="file")
            if record["kind"] == "header":
                if record.get("version") != EXPORT_VERSION:
                    raise InvalidInput(f"{path}: unsupported export version", field="file")
                continue
            records.append(record)
    return records


async def import_tenant(brain: Brain, tenant_id: str, path: Path) -> dict[str, int]:
    return await brain.transfer.import_(tenant_id, read_export(path))


async def _doctor(settings: Settings) -> int:
    """Print one line per check; exit 1 if any failed."""
    checks = Checks()
    checks.installation(settings)
    report = checks.report
    try:
        brain = await Brain.open(settings.model_copy(update={"reconcile_on_start": False}))
    except Exception as e:  # noqa: BLE001 - the doctor reports any failure to start
        report(False, "engines", str(e).splitlines()[0])
        return 1
    try:
        health = await brain.health.check()
        for engine in health.engines:
            latency = f"{engine.latency_ms:.1f} ms" if engine.latency_ms is not None else ""
            report(engine.ok, f"{engine.name} engine", f"{engine.detail or ''} {latency}".strip())
        applied = await brain.admin.applied_migrations(MIGRATIONS)
        report(len(applied) == len(MIGRATIONS), "graph migrations", ", ".join(applied) or "none")
        for tenant_id in await brain.admin.tenants():
            total, unindexed = await brain.admin.memory_counts(tenant_id)
            points = await brain.admin.vector_count(tenant_id)
            # Every memory has exactly one point once indexed: a difference is drift.
            drift = ""
            if not unindexed and points > total:
                drift = f"; {points - total} orphan vectors: run `brain reconcile`"
            elif not unindexed and points < total:
                drift = (
                    f"; {total - points} memories without a vector: run "
                    f"`brain consolidate --tenant {tenant_id} --task reconcile`"
                )
            report(
                unindexed == 0 and not drift,
                f"tenant {tenant_id}",
                f"{total} memories, {points} vectors, index lag {unindexed}{drift}",
            )
    finally:
        await brain.close()
    return checks.done()


def _run_json(run: JobRun) -> dict[str, Any]:
    out = run.model_dump(mode="json", exclude={"tenant_id"})
    out["duration_ms"] = round(run.duration_ms, 1) if run.duration_ms is not None else None
    return out
