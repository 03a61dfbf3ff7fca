// Link memories to the entities they are about; both must belong to the tenant.
// params: $tenant, $links: [{memory_id, entity_id}]
// returns: memory_id, entity_id (one row per link made or already present)
UNWIND $links AS link
MATCH (m:Memory {id: link.memory_id, tenant_id: $tenant})
MATCH (e:Entity {id: link.entity_id, tenant_id: $tenant})
MERGE (m)-[:ABOUT]->(e)
RETURN m.id AS memory_id, e.id AS entity_id
