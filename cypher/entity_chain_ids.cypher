// Supersede chains of the memories about an entity (or entities merged into it),
// optionally only facts with one predicate.
// params: $tenant, $entity_id, $predicate (or null)
// returns: chain_id
MATCH (e:Entity {id: $entity_id, tenant_id: $tenant})
MATCH (d:Entity)-[:MERGED_INTO*0..1]->(e)
WHERE d.tenant_id = $tenant
MATCH (m:Memory)-[:ABOUT]->(d)
WHERE m.tenant_id = $tenant AND ($predicate IS NULL OR m.predicate = $predicate)
RETURN DISTINCT m.chain_id AS chain_id
