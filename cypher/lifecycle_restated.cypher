// Current, live, unpinned memories of some types with the keys that say whether two of them
// state the same thing: the exact text (content_hash), scope and entities. The prune job
// groups them; a group of more than one is one statement said several times.
// params: $tenant, $types, $now, $project_id, $session_id
// returns: id, type, user_id, project_id, content_hash, created_at, entity_ids
MATCH (m:Memory {tenant_id: $tenant})
WHERE m.type IN $types AND m.superseded_by IS NULL AND m.superseded_at IS NULL
  AND (m.expires_at IS NULL OR m.expires_at > $now) AND coalesce(m.pinned, false) = false
  AND ($project_id IS NULL OR m.project_id = $project_id)
  AND ($session_id IS NULL OR m.session_id = $session_id)
OPTIONAL MATCH (m)-[:ABOUT]->(e:Entity)
RETURN m.id AS id, m.type AS type, m.user_id AS user_id, m.project_id AS project_id,
       m.content_hash AS content_hash, m.created_at AS created_at, collect(e.id) AS entity_ids
