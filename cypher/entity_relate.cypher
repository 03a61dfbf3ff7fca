// Relate two entities of the tenant; the relation name is a property, never a label.
// params: $tenant, $row {id, source_id, target_id, relation, since, until, source_memory_id}
// returns: id
MATCH (a:Entity {id: $row.source_id, tenant_id: $tenant})
MATCH (b:Entity {id: $row.target_id, tenant_id: $tenant})
CREATE (a)-[r:RELATED]->(b)
SET r.id = $row.id, r.relation = $row.relation, r.since = $row.since, r.until = $row.until,
    r.source_memory_id = $row.source_memory_id
RETURN r.id AS id
