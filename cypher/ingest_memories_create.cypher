// Create the memories of one ingest write (not yet indexed in the vector store) with their
// ABOUT links, registering the tenant on its first write: one statement instead of three.
// Each memory starts its own supersede chain (chain_id = its id). A link to an entity that
// is not the tenant's is not made.
// params: $tenant, $at, $rows: [{props: {id, type, content, ...memory properties}, entity_ids}]
// returns: memory_id, entity_id (one row per link)
MERGE (t:Tenant {id: $tenant})
ON CREATE SET t.created_at = $at
WITH t
UNWIND $rows AS row
CREATE (m:Memory)
SET m = row.props, m.tenant_id = $tenant, m.indexed = false, m.chain_id = row.props.id,
    m.pinned_key = CASE WHEN row.props.pinned THEN $tenant END,
    m.task_tenant = CASE WHEN row.props.type = 'task' THEN $tenant END
WITH m, row
UNWIND row.entity_ids AS eid
MATCH (e:Entity {id: eid, tenant_id: $tenant})
MERGE (m)-[:ABOUT]->(e)
RETURN m.id AS memory_id, e.id AS entity_id
