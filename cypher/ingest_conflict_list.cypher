// Recorded contradictions of a tenant, newest first.
// params: $tenant, $open_only (bool), $limit
// returns: c (conflict properties)
MATCH (c:Conflict {tenant_id: $tenant})
WHERE $open_only = false OR c.resolved_at IS NULL
RETURN properties(c) AS c
ORDER BY c.at DESC
LIMIT $limit
