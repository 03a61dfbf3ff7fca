// Create memories of one tenant (not yet indexed in the vector store).
// params: $tenant, $rows: [{id, type, content, ...memory properties}]
// returns: id
UNWIND $rows AS row
CREATE (m:Memory)
SET m = row, m.tenant_id = $tenant, m.indexed = false
RETURN m.id AS id
