// Create memories of one tenant (not yet indexed in the vector store) with their ABOUT links,
// registering the tenant on its first write. Every writer's new memories are made here
// (remember, turns, documents, tasks, supersedes, patterns, import), so the properties every
// memory carries are stated once: indexed=false until the vector index has it, its supersede
// chain (chain_id = its own id, or the chain an imported memory brings), and the index keys
// of pinned memories and tasks. A link to an entity that is not the tenant's is not made.
// It also marks earlier writes' memories indexed (``$marks``: the vector index has them; the
// tenant's pending marks ride along, ingest/write/marks.py) rather than in a statement of
// their own: each statement is a round trip, and the driver's work for it on the event loop.
// params: $tenant, $at, $rows: [{props: {id, type, content, ...memory properties}, entity_ids}],
//         $marks: [id] (may be empty)
// returns: memory_id, entity_id (one row per link)
MERGE (t:Tenant {id: $tenant})
ON CREATE SET t.created_at = $at
WITH t
UNWIND (CASE WHEN size($marks) = 0 THEN [null] ELSE $marks END) AS marked_id
OPTIONAL MATCH (marked:Memory {id: marked_id, tenant_id: $tenant})
SET marked.indexed = true
WITH t, count(*) AS marks
UNWIND $rows AS row
CREATE (m:Memory)
SET m = row.props, m.tenant_id = $tenant, m.indexed = false,
    m.chain_id = coalesce(row.props.chain_id, row.props.id),
    m.pinned_key = CASE WHEN row.props.pinned THEN $tenant END,
    m.task_tenant = CASE WHEN row.props.type = 'task' THEN $tenant END
WITH m, row
UNWIND row.entity_ids AS eid
MATCH (e:Entity {id: eid, tenant_id: $tenant})
MERGE (m)-[:ABOUT]->(e)
RETURN m.id AS memory_id, e.id AS entity_id
