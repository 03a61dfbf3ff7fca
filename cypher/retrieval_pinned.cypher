// Pinned (core) memories, live at $at and current (or valid at $as_of); most important first.
// (Scans the tenant's memories: callers cache the ids, see retrieval/core_cache.py.)
// params: $tenant, $at, $as_of (or null), $limit
// returns: id, importance
MATCH (m:Memory {pinned: true})
WHERE m.tenant_id = $tenant AND m.expires_at > $at
  AND (($as_of IS NULL AND m.superseded_by IS NULL)
       OR ($as_of IS NOT NULL AND m.valid_from <= $as_of AND m.superseded_at > $as_of))
RETURN m.id AS id, m.importance AS importance
ORDER BY importance DESC
LIMIT $limit
