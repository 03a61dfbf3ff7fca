// Pending jobs of a tenant, oldest first (resumed at start-up).
// params: $tenant, $limit
// returns: j (job properties)
MATCH (j:Job {status: 'pending'})
WHERE j.tenant_id = $tenant
RETURN properties(j) AS j
ORDER BY j.created_at
LIMIT $limit
