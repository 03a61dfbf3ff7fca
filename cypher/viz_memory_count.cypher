// How many memories the explorer's query matches before its limit (see viz_memories).
// params: $tenant, $project_id, $types, $since, $until, $at, $as_of, $history
// returns: total
MATCH (m:Memory {tenant_id: $tenant})
WHERE ($history
       OR ($as_of IS NULL AND m.superseded_by IS NULL AND (m.expires_at IS NULL OR m.expires_at > $at))
       OR ($as_of IS NOT NULL AND m.valid_from <= $as_of AND (m.superseded_at IS NULL OR m.superseded_at > $as_of)
           AND (m.expires_at IS NULL OR m.expires_at > $as_of)))
  AND ($project_id IS NULL OR m.project_id = $project_id)
  AND ($types IS NULL OR m.type IN $types)
  AND ($since IS NULL OR m.created_at >= $since)
  AND ($until IS NULL OR m.created_at <= $until)
RETURN count(m) AS total
