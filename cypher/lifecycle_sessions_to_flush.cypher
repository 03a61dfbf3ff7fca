// Sessions closed or expired whose working memory the lifecycle has not flushed yet.
// params: $tenant, $now, $session_id (or null), $project_id (or null), $limit
// returns: id
MATCH (s:Session {tenant_id: $tenant})
WHERE s.flushed_at IS NULL
  AND (s.closed_at IS NOT NULL OR s.expires_at <= $now)
  AND ($session_id IS NULL OR s.sid = $session_id)
  AND ($project_id IS NULL OR s.project_id = $project_id)
RETURN s.sid AS id
LIMIT $limit
