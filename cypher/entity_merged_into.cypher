// Entities currently merged into any of these (merges stay one hop deep).
// params: $tenant, $ids
// returns: source, target
UNWIND $ids AS id
MATCH (d:Entity {tenant_id: $tenant})-[:MERGED_INTO]->(k:Entity {id: id})
WHERE k.tenant_id = $tenant
RETURN d.id AS source, k.id AS target
