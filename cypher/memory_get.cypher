// Hydrate memories by id with the entities they are about (one round trip for many ids).
// params: $tenant, $ids: [string]
// returns: m (node properties), entity_ids
UNWIND $ids AS id
MATCH (m:Memory {id: id, tenant_id: $tenant})
OPTIONAL MATCH (m)-[:ABOUT]->(e:Entity)
RETURN properties(m) AS m, collect(DISTINCT e.id) AS entity_ids
