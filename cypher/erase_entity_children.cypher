// Entities whose parent is erased lose the link (they are re-profiled afterwards).
// params: $tenant, $entity_ids
// returns: id
UNWIND $entity_ids AS parent
MATCH (c:Entity {tenant_id: $tenant})
WHERE c.parent_id = parent
SET c.parent_id = null
RETURN c.id AS id
