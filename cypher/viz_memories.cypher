// Memories for the explorer, a stable sample of at most $limit (ordered by id: ids are
// random, so the sample is uniform, and a new memory enters it only where its id sorts before
// the cut). Which memories: with $history every version ever stored (superseded and expired
// ones too: the client animates their validity intervals); otherwise those live at $at and
// current ($as_of null) or valid at $as_of (valid_from <= $as_of < superseded_at, expires_at).
// $since/$until bound the creation time.
// params: $tenant, $project_id, $types, $since, $until, $at, $as_of, $history, $limit
// returns: m (memory properties), layout ([x, y, z] or null), entity_ids
MATCH (m:Memory {tenant_id: $tenant})
WHERE ($history
       OR ($as_of IS NULL AND m.superseded_by IS NULL AND (m.expires_at IS NULL OR m.expires_at > $at))
       OR ($as_of IS NOT NULL AND m.valid_from <= $as_of AND (m.superseded_at IS NULL OR m.superseded_at > $as_of)
           AND (m.expires_at IS NULL OR m.expires_at > $as_of)))
  AND ($project_id IS NULL OR m.project_id = $project_id)
  AND ($types IS NULL OR m.type IN $types)
  AND ($since IS NULL OR m.created_at >= $since)
  AND ($until IS NULL OR m.created_at <= $until)
WITH m ORDER BY m.id LIMIT $limit
OPTIONAL MATCH (m)-[:ABOUT]->(e:Entity)
RETURN properties(m) AS m, m.layout AS layout, collect(DISTINCT e.id) AS entity_ids
