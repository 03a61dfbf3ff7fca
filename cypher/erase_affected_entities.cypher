// Entities that outlive an erase but whose profile may quote erased text: those the erased
// memories are about, and children of erased entities (their profile names the parent).
// params: $tenant, $ids (memories), $entity_ids (entities being erased)
// returns: id
UNWIND $ids AS id
MATCH (m:Memory {id: id, tenant_id: $tenant})-[:ABOUT]->(e:Entity)
WHERE NOT e.id IN $entity_ids
RETURN DISTINCT e.id AS id
UNION
UNWIND $entity_ids AS parent
MATCH (c:Entity {tenant_id: $tenant})
WHERE c.parent_id = parent AND NOT c.id IN $entity_ids
RETURN DISTINCT c.id AS id
