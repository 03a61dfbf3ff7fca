// Pairs among $ids already answered "different" (DISTINCT_FROM, either direction).
// params: $tenant, $ids
// returns: a, b
MATCH (a:Entity {tenant_id: $tenant})-[:DISTINCT_FROM]-(b:Entity {tenant_id: $tenant})
WHERE a.id IN $ids AND b.id IN $ids
RETURN a.id AS a, b.id AS b
