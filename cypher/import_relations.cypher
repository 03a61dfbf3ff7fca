// Recreate entity relationships (import).
// params: $tenant, $rows: [{source_id, target_id, props}]
// returns: id
UNWIND $rows AS row
MATCH (a:Entity {id: row.source_id, tenant_id: $tenant})
MATCH (b:Entity {id: row.target_id, tenant_id: $tenant})
CREATE (a)-[r:RELATED]->(b)
SET r = row.props
RETURN r.id AS id
