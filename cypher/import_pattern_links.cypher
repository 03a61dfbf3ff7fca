// Recreate pattern -> source episode links between imported memories.
// params: $tenant, $rows: [{source_id, target_id, props}]
// returns: id
UNWIND $rows AS row
MATCH (a:Memory {id: row.source_id, tenant_id: $tenant})
MATCH (b:Memory {id: row.target_id, tenant_id: $tenant})
CREATE (a)-[r:SUMMARIZES]->(b)
SET r = row.props
RETURN a.id AS id
