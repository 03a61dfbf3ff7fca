// Entity relationships learned from erased memories.
// params: $tenant, $ids (memories being erased)
// returns: relations (how many were deleted)
MATCH (a:Entity {tenant_id: $tenant})-[r:RELATED]->(:Entity)
WHERE r.source_memory_id IN $ids
DELETE r
RETURN count(*) AS relations
