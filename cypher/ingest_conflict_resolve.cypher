// Mark a recorded contradiction as reviewed.
// params: $tenant, $id, $at
// returns: c (conflict properties); no row when unknown
MATCH (c:Conflict {id: $id})
WHERE c.tenant_id = $tenant
SET c.resolved_at = coalesce(c.resolved_at, $at)
RETURN properties(c) AS c
