// How many memories memory_list would page through (every page): the same filters.
// params: $tenant, $types, $project_id, $session_id, $user_id, $current_only, $live_at, $since,
//         $until (null parameters do not filter)
// returns: total
MATCH (m:Memory {tenant_id: $tenant})
WHERE ($types IS NULL OR m.type IN $types)
  AND ($project_id IS NULL OR m.project_id = $project_id)
  AND ($session_id IS NULL OR m.session_id = $session_id)
  AND ($user_id IS NULL OR m.user_id = $user_id)
  AND ($current_only = false OR m.superseded_by IS NULL)
  AND ($live_at IS NULL OR m.expires_at IS NULL OR m.expires_at > $live_at)
  AND ($since IS NULL OR m.created_at >= $since)
  AND ($until IS NULL OR m.created_at <= $until)
RETURN count(m) AS total
