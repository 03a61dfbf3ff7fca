// Hydrate entities by id.
// params: $tenant, $ids
// returns: e (entity properties)
UNWIND $ids AS id
MATCH (e:Entity {id: id, tenant_id: $tenant})
RETURN properties(e) AS e
