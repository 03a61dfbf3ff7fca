// Current, live memories of some types (optionally one project or session) with what the
// duplicate merge and the pattern compression compare: ids, scope keys, entities, size.
// summarized_by: the pattern that already summarizes an episode (compression takes each
// episode once; the episode stays current and visible).
// params: $tenant, $types, $now, $created_before, $project_id, $session_id
// returns: id, type, user_id, project_id, subject, predicate, object, length, importance, pinned,
//          created_at, access_count, entity_ids, summarized_by
MATCH (m:Memory {tenant_id: $tenant})
WHERE m.type IN $types AND m.superseded_by IS NULL AND m.superseded_at IS NULL
  AND (m.expires_at IS NULL OR m.expires_at > $now)
  AND ($created_before IS NULL OR m.created_at < $created_before)
  AND ($project_id IS NULL OR m.project_id = $project_id)
  AND ($session_id IS NULL OR m.session_id = $session_id)
OPTIONAL MATCH (m)-[:ABOUT]->(e:Entity)
RETURN m.id AS id, m.type AS type, m.user_id AS user_id, m.project_id AS project_id,
       m.subject AS subject, m.predicate AS predicate, m.object AS object,
       size(m.content) AS length,
       m.importance AS importance, coalesce(m.pinned, false) AS pinned,
       m.created_at AS created_at, coalesce(m.access_count, 0) AS access_count,
       collect(e.id) AS entity_ids, m.summarized_by AS summarized_by
