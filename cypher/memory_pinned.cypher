// Current, live pinned (core) memories of the tenant, oldest first.
// params: $tenant, $at
// returns: id
MATCH (m:Memory {tenant_id: $tenant})
WHERE m.pinned = true AND m.superseded_by IS NULL AND m.expires_at > $at
RETURN m.id AS id
ORDER BY m.created_at
