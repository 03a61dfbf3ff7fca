// Memories whose vector entry is missing or stale (the reconciler's work list).
// params: $tenant, $limit
// returns: id
MATCH (m:Memory {indexed: false})
WHERE m.tenant_id = $tenant
RETURN m.id AS id
LIMIT $limit
