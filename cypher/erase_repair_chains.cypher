// Later versions outliving an erase of earlier ones: the first survivor starts the chain, so
// no survivor points at an erased id through `supersedes` or `chain_id`.
// params: $tenant, $ids (memories being erased, closed over earlier versions)
// returns: id (of each new chain head)
UNWIND $ids AS id
MATCH (m:Memory {id: id, tenant_id: $tenant})-[:SUPERSEDED_BY]->(head:Memory)
WHERE NOT head.id IN $ids
SET head.supersedes = null
WITH DISTINCT head, head.chain_id AS old_chain
WHERE old_chain IS NOT NULL
MATCH (s:Memory {chain_id: old_chain})
WHERE s.tenant_id = $tenant AND NOT s.id IN $ids
SET s.chain_id = head.id
RETURN DISTINCT head.id AS id
