// Current, live pinned (core) memories of the tenant, oldest first.
// With $user, that user's own and the tenant's shared ones (no user) only.
// params: $tenant, $at, $user (or null)
// returns: id
MATCH (m:Memory {pinned_key: $tenant})
WHERE m.superseded_by IS NULL AND (m.expires_at IS NULL OR m.expires_at > $at)
  AND ($user IS NULL OR m.user_id IS NULL OR m.user_id = $user)
RETURN m.id AS id
ORDER BY m.created_at
