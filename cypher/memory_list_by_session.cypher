// A page of one session's memories, newest first: memory_list started from the session_id
// index (the tenant condition comes last, so ArcadeDB filters the session's memories instead
// of scanning the tenant).
// params: as memory_list ($session_id not null)
// returns: id
MATCH (m:Memory {session_id: $session_id})
WITH m
WHERE m.tenant_id = $tenant
  AND ($types IS NULL OR m.type IN $types)
  AND ($project_id IS NULL OR m.project_id = $project_id)
  AND ($session_id IS NULL OR m.session_id = $session_id)
  AND ($user_id IS NULL OR m.user_id = $user_id)
  AND ($current_only = false OR m.superseded_by IS NULL)
  AND ($live_at IS NULL OR m.expires_at IS NULL OR m.expires_at > $live_at)
  AND ($since IS NULL OR m.created_at >= $since)
  AND ($until IS NULL OR m.created_at <= $until)
  AND ($after_ts IS NULL OR m.created_at < $after_ts
       OR (m.created_at = $after_ts AND m.id < $after_id))
RETURN m.id AS id
ORDER BY m.created_at DESC, m.id DESC
LIMIT $limit
