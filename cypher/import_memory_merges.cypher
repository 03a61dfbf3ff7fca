// Recreate duplicate-merge links between imported memories.
// params: $tenant, $rows: [{source_id, target_id, props}]
// returns: id
UNWIND $rows AS row
MATCH (a:Memory {id: row.source_id, tenant_id: $tenant})
MATCH (b:Memory {id: row.target_id, tenant_id: $tenant})
CREATE (a)-[r:MERGED_INTO]->(b)
SET r = row.props
RETURN a.id AS id
