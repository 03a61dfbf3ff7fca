// Current, live memories for the graph view, with the entities they are about.
// params: $tenant, $project_id, $types, $since, $until, $at, $limit
// returns: m (memory properties), entity_ids
MATCH (m:Memory {tenant_id: $tenant})
WHERE m.superseded_by IS NULL AND m.expires_at > $at
  AND ($project_id IS NULL OR m.project_id = $project_id)
  AND ($types IS NULL OR m.type IN $types)
  AND ($since IS NULL OR m.created_at >= $since)
  AND ($until IS NULL OR m.created_at <= $until)
WITH m ORDER BY m.importance DESC, m.created_at DESC LIMIT $limit
OPTIONAL MATCH (m)-[:ABOUT]->(e:Entity)
RETURN properties(m) AS m, collect(DISTINCT e.id) AS entity_ids
