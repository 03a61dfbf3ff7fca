// Every entity relationship of the tenant, for export.
// params: $tenant
// returns: r (relationship properties), source_id, target_id
MATCH (a:Entity {tenant_id: $tenant})-[r:RELATED]->(b:Entity)
WHERE b.tenant_id = $tenant
RETURN properties(r) AS r, a.id AS source_id, b.id AS target_id
