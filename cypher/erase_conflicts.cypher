// Recorded contradictions that name an erased memory or an erased subject.
// params: $tenant, $ids (memories), $subjects (erased entity ids and "user:<id>" subjects)
// returns: conflicts (how many were deleted)
MATCH (c:Conflict {tenant_id: $tenant})
WHERE c.memory_id IN $ids OR c.existing_id IN $ids OR c.subject IN $subjects
DETACH DELETE c
RETURN count(*) AS conflicts
