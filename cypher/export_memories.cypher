// One page of the tenant's memories for export: every property, ABOUT links, and the
// supersede link that created the memory (reason, at).
// params: $tenant, $skip, $limit
// returns: m, entity_ids, reason, at
MATCH (m:Memory {tenant_id: $tenant})
WITH m ORDER BY m.created_at, m.id SKIP $skip LIMIT $limit
OPTIONAL MATCH (m)-[:ABOUT]->(e:Entity)
OPTIONAL MATCH (:Memory)-[r:SUPERSEDED_BY]->(m)
RETURN properties(m) AS m, collect(DISTINCT e.id) AS entity_ids, r.reason AS reason, r.at AS at
