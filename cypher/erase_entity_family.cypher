// The entity an erase names and every entity merged into it (the same subject, curated).
// params: $tenant, $entity_id
// returns: id
MATCH (e:Entity {id: $entity_id, tenant_id: $tenant})
MATCH (e)<-[:MERGED_INTO*0..]-(d)
WHERE d.tenant_id = $tenant
RETURN DISTINCT d.id AS id
