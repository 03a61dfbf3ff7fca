// Create memories of one tenant (not yet indexed in the vector store) with their ABOUT links,
// registering the tenant on its first write. Every writer's new memories are made here
// (remember, turns, documents, tasks, supersedes, patterns, import), so the properties every
// memory carries are stated once: indexed=false until the vector index has it, its supersede
// chain (chain_id = its own id, or the chain an imported memory brings), and the index keys
// of pinned memories (the tenant id, or the key a user's own core line brings:
// graph/core_ops.py) and tasks. A link to an entity that is not the tenant's is not made.
// A memory whose id the tenant holds already is left as it is (not written, not linked
// again) and returns no row: ids a write chooses itself may be made by two writes at once
// (the statement memory of an earlier turn's sentence, ``core.statements.statement_id``,
// which two turns correcting it both make), or by an earlier try of the same write whose
// commit the caller never heard of; the engine refuses an id twice, so creating it again
// would fail the write. An id another tenant holds is refused by that constraint as before.
// It also marks earlier writes' memories indexed (``$marks``: the vector index has them; the
// tenant's pending marks ride along, ingest/write/marks.py) rather than in a statement of
// their own: each statement is a round trip, and the driver's work for it on the event loop.
// params: $tenant, $at, $rows: [{props: {id, type, content, ...memory properties}, entity_ids}],
//         $marks: [id] (may be empty)
// returns: memory_id (one row per memory created)
MERGE (t:Tenant {id: $tenant})
ON CREATE SET t.created_at = $at
WITH t
UNWIND (CASE WHEN size($marks) = 0 THEN [null] ELSE $marks END) AS marked_id
OPTIONAL MATCH (marked:Memory {id: marked_id, tenant_id: $tenant})
SET marked.indexed = true
WITH count(*) AS marks
UNWIND $rows AS row
OPTIONAL MATCH (held:Memory {id: row.props.id})
WHERE held.tenant_id = $tenant
WITH row, held
WHERE held IS NULL
CREATE (m:Memory)
SET m = row.props, m.tenant_id = $tenant, m.indexed = false,
    m.chain_id = coalesce(row.props.chain_id, row.props.id),
    m.pinned_key = CASE WHEN row.props.pinned THEN coalesce(row.props.pinned_key, $tenant) END,
    m.task_tenant = CASE WHEN row.props.type = 'task' THEN $tenant END
WITH m, row
UNWIND (CASE WHEN size(row.entity_ids) = 0 THEN [null] ELSE row.entity_ids END) AS eid
OPTIONAL MATCH (e:Entity {id: eid, tenant_id: $tenant})
FOREACH (x IN CASE WHEN e IS NULL THEN [] ELSE [e] END | MERGE (m)-[:ABOUT]->(x))
WITH m, count(e) AS links
RETURN m.id AS memory_id
