// Every version of several supersede chains, with the reason and time of the link that
// created each version (ordering is done by the caller, following supersedes pointers).
// params: $tenant, $chain_ids
// returns: m (memory properties), entity_ids, reason, at
UNWIND $chain_ids AS chain_id
MATCH (m:Memory {chain_id: chain_id})
WHERE m.tenant_id = $tenant
OPTIONAL MATCH (:Memory)-[r:SUPERSEDED_BY]->(m)
OPTIONAL MATCH (m)-[:ABOUT]->(e:Entity)
RETURN properties(m) AS m, collect(DISTINCT e.id) AS entity_ids, r.reason AS reason, r.at AS at
