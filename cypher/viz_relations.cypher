// Relationships among a set of the tenant's entities, for the graph view.
// params: $tenant, $ids
// returns: source_id, target_id, relation
MATCH (a:Entity {tenant_id: $tenant})-[r:RELATED]->(b:Entity)
WHERE a.id IN $ids AND b.id IN $ids AND b.tenant_id = $tenant
RETURN a.id AS source_id, b.id AS target_id, r.relation AS relation
