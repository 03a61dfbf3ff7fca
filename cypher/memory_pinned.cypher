// Current, live pinned (core) memories of the tenant, oldest first.
// params: $tenant, $at
// returns: id
MATCH (m:Memory {pinned_key: $tenant})
WHERE m.superseded_by IS NULL AND (m.expires_at IS NULL OR m.expires_at > $at)
RETURN m.id AS id
ORDER BY m.created_at
