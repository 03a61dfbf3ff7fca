// Create memories of one tenant (not yet indexed in the vector store). Each starts its own
// supersede chain: chain_id is shared by every later version, so lineage is one index hit.
// params: $tenant, $rows: [{id, type, content, ...memory properties}]
// returns: id
UNWIND $rows AS row
CREATE (m:Memory)
SET m = row, m.tenant_id = $tenant, m.indexed = false, m.chain_id = row.id,
    m.pinned_key = CASE WHEN row.pinned THEN $tenant END,
    m.task_tenant = CASE WHEN row.type = 'task' THEN $tenant END
RETURN m.id AS id
