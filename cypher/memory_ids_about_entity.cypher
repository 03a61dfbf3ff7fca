// Ids of memories about an entity or about any entity merged into it.
// params: $tenant, $entity_id
// returns: id
MATCH (e:Entity {id: $entity_id, tenant_id: $tenant})
MATCH (d:Entity)-[:MERGED_INTO*0..]->(e)
WHERE d.tenant_id = $tenant
MATCH (m:Memory)-[:ABOUT]->(d)
WHERE m.tenant_id = $tenant
RETURN DISTINCT m.id AS id
