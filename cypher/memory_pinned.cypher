// Current, live pinned (core) memories of the tenant, oldest first: through the pinned_key
// index, $keys being the tenant's key and, with a user, that user's (graph/core_ops.py).
// With $user, that user's own and the tenant's shared ones (no user) only.
// params: $tenant, $keys, $at, $user (or null)
// returns: id
UNWIND $keys AS key
MATCH (m:Memory {pinned_key: key})
WHERE m.tenant_id = $tenant AND m.superseded_by IS NULL
  AND (m.expires_at IS NULL OR m.expires_at > $at)
  AND ($user IS NULL OR m.user_id IS NULL OR m.user_id = $user)
RETURN m.id AS id
ORDER BY m.created_at
