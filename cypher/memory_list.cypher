// A page of the tenant's memories, newest first, after an optional (created_at, id) cursor.
// It reads every memory of the tenant; with a session or a user, memory_list_by_session or
// memory_list_by_user read only theirs.
// params: $tenant, $types, $project_id, $session_id, $user_id, $current_only, $live_at, $since,
//         $until, $after_ts, $after_id, $limit (null parameters do not filter)
// returns: id
MATCH (m:Memory {tenant_id: $tenant})
WHERE ($types IS NULL OR m.type IN $types)
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
