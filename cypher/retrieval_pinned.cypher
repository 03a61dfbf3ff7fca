// Pinned (core) memories, live at $at and current (or valid at $as_of); most important first.
// Found through the pinned_key index (on pinned memories only: the tenant id, or for a user's
// own learned core line the key ``graph/core_ops.pinned_keys`` makes), not by scanning the
// tenant's memories: $keys are the tenant's key and, with a user, that user's.
// With $user, that user's own and the tenant's shared ones (no user) only.
// params: $tenant, $keys, $at, $as_of (or null), $user (or null), $limit
// returns: id, importance, learned (learned from conversation: ingest/learned)
UNWIND $keys AS key
MATCH (m:Memory {pinned_key: key})
WHERE m.tenant_id = $tenant AND (m.expires_at IS NULL OR m.expires_at > $at)
  AND ($user IS NULL OR m.user_id IS NULL OR m.user_id = $user)
  AND (($as_of IS NULL AND m.superseded_by IS NULL)
       OR ($as_of IS NOT NULL AND m.valid_from <= $as_of AND (m.superseded_at IS NULL OR m.superseded_at > $as_of)))
RETURN m.id AS id, m.importance AS importance, m.core_slot IS NOT NULL AS learned
ORDER BY importance DESC
LIMIT $limit
