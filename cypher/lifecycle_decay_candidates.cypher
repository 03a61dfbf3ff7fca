// Current, live, unpinned memories that decay (class other than none), with what the decay
// and prune jobs need.
// params: $tenant, $now, $project_id, $session_id
// returns: id, importance, decay_class, created_at, last_accessed_at, effective_importance
MATCH (m:Memory {tenant_id: $tenant})
WHERE m.superseded_by IS NULL AND m.superseded_at IS NULL AND (m.expires_at IS NULL OR m.expires_at > $now)
  AND m.decay_class <> 'none'
  AND coalesce(m.pinned, false) = false
  AND ($project_id IS NULL OR m.project_id = $project_id)
  AND ($session_id IS NULL OR m.session_id = $session_id)
RETURN m.id AS id, m.importance AS importance, m.decay_class AS decay_class,
       m.created_at AS created_at, m.last_accessed_at AS last_accessed_at,
       m.effective_importance AS effective_importance
