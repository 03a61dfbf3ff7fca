// Memories about any of the given entities, live at $at and either current ($as_of null) or
// valid at $as_of; newest first, at most $limit.
// params: $tenant, $entity_ids: [string], $at, $as_of (or null), $limit
// returns: id, entity_ids (the given entities it is about)
MATCH (e:Entity)
WHERE e.tenant_id = $tenant AND e.id IN $entity_ids
MATCH (m:Memory)-[:ABOUT]->(e)
WHERE m.tenant_id = $tenant AND m.expires_at > $at
  AND (($as_of IS NULL AND m.superseded_by IS NULL)
       OR ($as_of IS NOT NULL AND m.valid_from <= $as_of AND m.superseded_at > $as_of))
WITH m, collect(DISTINCT e.id) AS entity_ids
RETURN m.id AS id, entity_ids, m.created_at AS created_at
ORDER BY size(entity_ids) DESC, created_at DESC
LIMIT $limit
