// Open identity questions: a page (in id order) of live provisional entities, one row per
// live POSSIBLY_SAME_AS candidate.
// params: $tenant, $after (an entity id, '' for the first page), $limit
// returns: e (the provisional entity), c (a candidate), score, at, proposed (by the batch job)
MATCH (p:Entity {tenant_id: $tenant})
WHERE p.provisional = true AND p.merged_into IS NULL AND p.id > $after
WITH p ORDER BY p.id LIMIT $limit
MATCH (p)-[l:POSSIBLY_SAME_AS]->(c:Entity)
WHERE c.tenant_id = $tenant AND c.merged_into IS NULL
RETURN properties(p) AS e, properties(c) AS c, l.score AS score, l.at AS at,
       coalesce(l.proposed, false) AS proposed
