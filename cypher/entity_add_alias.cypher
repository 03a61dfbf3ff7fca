// Add an alias to an entity of the tenant.
// params: $tenant, $entity_id, $key, $norm, $text
// returns: id
MATCH (e:Entity {id: $entity_id, tenant_id: $tenant})
MERGE (al:Alias {key: $key})
ON CREATE SET al.tenant_id = $tenant, al.norm = $norm, al.text = $text
MERGE (al)-[:ALIAS_OF]->(e)
SET e.aliases = CASE WHEN $text IN e.aliases THEN e.aliases ELSE e.aliases + $text END
RETURN e.id AS id
