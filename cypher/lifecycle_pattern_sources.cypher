// The episodes a pattern compresses, oldest first.
// params: $tenant, $pattern_id
// returns: id
MATCH (p:Memory {id: $pattern_id, tenant_id: $tenant})-[:SUMMARIZES]->(m:Memory)
RETURN m.id AS id
ORDER BY m.created_at
