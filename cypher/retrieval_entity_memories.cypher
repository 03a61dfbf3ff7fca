// The entity path's graph part in one round trip: how many memories are about any of the
// entities (the set's document frequency, every version and state), and the memories about
// them live at $at and either current ($as_of null) or valid at $as_of; those about more of
// the entities first, then newest, at most $limit. Always one row per memory, or one row
// with a null id when none is live.
// params: $tenant, $entity_ids: [string], $at, $as_of (or null), $limit
// returns: degree, id, entity_ids (the given entities it is about)
MATCH (e:Entity)
WHERE e.tenant_id = $tenant AND e.id IN $entity_ids
MATCH (m:Memory)-[:ABOUT]->(e)
WHERE m.tenant_id = $tenant
WITH m, collect(DISTINCT e.id) AS entity_ids
WITH count(m) AS degree,
     collect(CASE WHEN (m.expires_at IS NULL OR m.expires_at > $at)
                   AND (($as_of IS NULL AND m.superseded_by IS NULL)
                        OR ($as_of IS NOT NULL AND m.valid_from <= $as_of
                            AND (m.superseded_at IS NULL OR m.superseded_at > $as_of)))
                  THEN {id: m.id, entity_ids: entity_ids, created_at: m.created_at} END) AS live
UNWIND CASE WHEN size(live) = 0 THEN [null] ELSE live END AS r
WITH degree, r
ORDER BY size(r.entity_ids) DESC, r.created_at DESC
LIMIT $limit
RETURN degree, r.id AS id, r.entity_ids AS entity_ids
