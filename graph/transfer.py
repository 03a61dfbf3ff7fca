"""Export and import of a tenant's graph, lossless: every property, ABOUT links, supersede
chains with their reasons, aliases, relationships, recorded merges (undone ones too), and the
lifecycle's records (duplicate merges, pattern sources, job reports, feedback)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

from core.clock import NEVER
from core.text import normalize_name
from graph.scoped import Scoped

PAGE = 1000


class TransferOps(Scoped):
    async def export_records(self) -> AsyncIterator[dict[str, Any]]:
        """Yield JSON-ready records: entities, merges, relations, then memories (oldest first)."""
        skip = 0
        while rows := await self.read("export_entities", skip=skip, limit=PAGE):
            for r in rows:
                yield {"kind": "entity", "entity": r["e"]}
            skip += PAGE
        for r in await self.read("export_merges"):
            yield {"kind": "merge", "merge": r["mg"]}
        for r in await self.read("export_relations"):
            yield {
                "kind": "relation",
                "source_id": r["source_id"],
                "target_id": r["target_id"],
                "relation": r["r"],
            }
        skip = 0
        while rows := await self.read("export_memories", skip=skip, limit=PAGE):
            for r in rows:
                memory = dict(r["m"])
                memory.pop("tenant_id", None)
                memory.pop("pinned_key", None)  # index keys, derived again on import
                memory.pop("task_tenant", None)
                # The export format (version 1) writes "never" as NEVER, as it always did;
                # the graph stores it as null (no property).
                memory.setdefault("expires_at", NEVER)
                memory.setdefault("superseded_at", NEVER)
                yield {
                    "kind": "memory",
                    "memory": memory,
                    "entity_ids": sorted(r["entity_ids"]),
                    "supersede_reason": r["reason"],
                    "supersede_at": r["at"],
                }
            skip += PAGE
        for r in await self.read("export_memory_links"):
            yield {
                "kind": "memory_link",
                "type": r["type"],
                "source_id": r["source_id"],
                "target_id": r["target_id"],
                "link": r["r"],
            }
        for r in await self.read("export_job_runs"):
            props = {k: v for k, v in r["props"].items() if k != "tenant_id"}
            if r["label"] == "JobRun":
                yield {"kind": "job_run", "run": props}
            else:
                ratings = sorted(
                    (x for x in r["ratings"] if x.get("memory_id")), key=lambda x: x["memory_id"]
                )
                yield {"kind": "feedback", "feedback": props, "ratings": ratings}

    async def import_records(self, records: Sequence[dict[str, Any]]) -> dict[str, int]:
        """Recreate exported records in this tenant in one transaction (ids kept)."""
        entities, merges, relations, memories = [], [], [], []
        memory_links: dict[str, list[dict[str, Any]]] = {"MERGED_INTO": [], "SUMMARIZES": []}
        runs, feedback = [], []
        for rec in records:
            kind = rec.get("kind")
            if kind == "entity":
                props = {k: v for k, v in rec["entity"].items() if k != "tenant_id"}
                aliases = [
                    {
                        "key": f"{self.tenant_id}|{normalize_name(a)}",
                        "norm": normalize_name(a),
                        "text": a,
                    }
                    for a in props.get("aliases") or [props["name"]]
                    if normalize_name(a)
                ]
                entities.append({"props": props, "aliases": aliases})
            elif kind == "merge":
                merges.append({k: v for k, v in rec["merge"].items() if k != "tenant_id"})
            elif kind == "relation":
                relations.append(
                    {
                        "source_id": rec["source_id"],
                        "target_id": rec["target_id"],
                        "props": rec["relation"],
                    }
                )
            elif kind == "memory":
                memories.append(rec)
            elif kind == "memory_link" and rec.get("type") in memory_links:
                memory_links[rec["type"]].append(
                    {
                        "source_id": rec["source_id"],
                        "target_id": rec["target_id"],
                        "props": rec.get("link") or {},
                    }
                )
            elif kind == "job_run":
                runs.append({k: v for k, v in rec["run"].items() if k != "tenant_id"})
            elif kind == "feedback":
                props = {k: v for k, v in rec["feedback"].items() if k != "tenant_id"}
                feedback.append({"props": props, "ratings": rec.get("ratings") or []})
        chains = [
            {
                "old_id": m["memory"]["supersedes"],
                "new_id": m["memory"]["id"],
                "reason": m["supersede_reason"],
                "at": m["supersede_at"],
            }
            for m in memories
            if m["memory"].get("supersedes") and m.get("supersede_at") is not None
        ]
        steps: list[tuple[str, dict[str, Any]]] = [("tenant_ensure", {"at": 0.0})]
        if entities:
            steps.append(("import_entities", {"rows": entities}))
        if merges:
            steps.append(("import_merges", {"rows": merges}))
        if relations:
            steps.append(("import_relations", {"rows": relations}))
        if memories:
            rows = [{"props": m["memory"], "entity_ids": m["entity_ids"]} for m in memories]
            steps.append(("memory_create", {"rows": rows, "at": 0.0, "marks": []}))
        if chains:
            steps.append(("import_supersede_links", {"links": chains}))
        if memory_links["MERGED_INTO"]:
            steps.append(("import_memory_merges", {"rows": memory_links["MERGED_INTO"]}))
        if memory_links["SUMMARIZES"]:
            steps.append(("import_pattern_links", {"rows": memory_links["SUMMARIZES"]}))
        if runs:
            steps.append(("import_job_runs", {"rows": runs}))
        if feedback:
            steps.append(("import_feedback", {"rows": feedback}))
        await self.write_many(steps)
        return {
            "entities": len(entities),
            "merges": len(merges),
            "relations": len(relations),
            "memories": len(memories),
            "memory_links": sum(len(v) for v in memory_links.values()),
            "job_runs": len(runs),
            "feedback": len(feedback),
        }
