// Relationships of an entity (both directions), optionally only those in force at $at.
// params: $tenant, $id, $at (or null)
// returns: id, source_id, target_id, relation, since, until, source_memory_id
MATCH (e:Entity {id: $id, tenant_id: $tenant})-[r:RELATED]-(o:Entity)
WHERE o.tenant_id = $tenant
  AND ($at IS NULL OR ((r.since IS NULL OR r.since <= $at) AND (r.until IS NULL OR r.until > $at)))
RETURN r.id AS id, startNode(r).id AS source_id, endNode(r).id AS target_id,
       r.relation AS relation, r.since AS since, r.until AS until,
       r.source_memory_id AS source_memory_id
