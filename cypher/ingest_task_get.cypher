// Tasks by id (any status).
// params: $tenant, $ids: [string]
// returns: m (memory properties), entity_ids
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.tenant_id = $tenant AND m.type = 'task'
OPTIONAL MATCH (m)-[:ABOUT]->(e:Entity)
RETURN properties(m) AS m, collect(DISTINCT e.id) AS entity_ids
