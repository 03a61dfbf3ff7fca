// Pinned (core) memories, live at $at and current (or valid at $as_of); most important first.
// Found through the pinned_key index (the tenant id on pinned memories, absent on others),
// not by scanning the tenant's memories.
// With $user, that user's own and the tenant's shared ones (no user) only.
// params: $tenant, $at, $as_of (or null), $user (or null), $limit
// returns: id, importance, learned (learned from conversation: ingest/learned)
MATCH (m:Memory {pinned_key: $tenant})
WHERE (m.expires_at IS NULL OR m.expires_at > $at)
  AND ($user IS NULL OR m.user_id IS NULL OR m.user_id = $user)
  AND (($as_of IS NULL AND m.superseded_by IS NULL)
       OR ($as_of IS NOT NULL AND m.valid_from <= $as_of AND (m.superseded_at IS NULL OR m.superseded_at > $as_of)))
RETURN m.id AS id, m.importance AS importance, m.core_slot IS NOT NULL AS learned
ORDER BY importance DESC
LIMIT $limit
