// Recreate recorded merges and, for merges not undone, their MERGED_INTO links (import).
// params: $tenant, $rows: [merge properties]
// returns: id
UNWIND $rows AS row
CREATE (mg:EntityMerge)
SET mg = row, mg.tenant_id = $tenant
WITH mg
MATCH (k:Entity {id: mg.keep_id, tenant_id: $tenant})
UNWIND mg.drop_ids AS drop_id
MATCH (d:Entity {id: drop_id, tenant_id: $tenant})
WHERE mg.undone_at IS NULL
CREATE (d)-[:MERGED_INTO {merge_id: mg.id, reason: mg.reason, at: mg.at}]->(k)
RETURN DISTINCT mg.id AS id
