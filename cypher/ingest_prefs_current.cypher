// Current, live preferences a user stated (subject "user:<id>"), for correction detection.
// The user_id index is matched first (WITH), so the planner does not scan the tenant instead.
// params: $tenant, $user_id, $predicates: [string], $at
// returns: m (memory properties)
MATCH (m:Memory {user_id: $user_id})
WITH m
WHERE m.tenant_id = $tenant AND m.type = 'preference' AND m.predicate IN $predicates
  AND m.superseded_by IS NULL AND m.expires_at > $at
RETURN properties(m) AS m
