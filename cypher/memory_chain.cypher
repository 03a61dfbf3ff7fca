// Every version in the supersede chain of a memory (one indexed lookup by chain_id), with the
// reason and time of the link that created each version. Ordering is done by the caller,
// following supersedes pointers.
// params: $tenant, $id
// returns: m (memory properties), reason, at
MATCH (start:Memory {id: $id, tenant_id: $tenant})
MATCH (m:Memory {chain_id: start.chain_id})
WHERE m.tenant_id = $tenant
OPTIONAL MATCH (prev:Memory)-[r:SUPERSEDED_BY]->(m)
RETURN properties(m) AS m, r.reason AS reason, r.at AS at
