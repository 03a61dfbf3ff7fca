// Identity decisions naming erased memories or entities are deleted (they quote the name).
// params: $tenant, $ids (memories being erased), $entity_ids (entities being erased)
// returns: decisions (how many were deleted)
MATCH (d:IdentityDecision {tenant_id: $tenant})
WHERE d.memory_id IN $ids OR d.entity_id IN $entity_ids
   OR any(x IN coalesce(d.candidates, []) WHERE x IN $entity_ids)
DETACH DELETE d
RETURN count(*) AS decisions
