// How many memories are about any of the given entities (the entity set's document frequency).
// params: $tenant, $entity_ids: [string]
// returns: n
MATCH (e:Entity)
WHERE e.tenant_id = $tenant AND e.id IN $entity_ids
MATCH (m:Memory)-[:ABOUT]->(e)
WHERE m.tenant_id = $tenant
RETURN count(DISTINCT m) AS n
