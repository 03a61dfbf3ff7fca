// Soft prune: expire faded memories (never pinned or no-decay ones); they stay in the graph.
// params: $tenant, $ids, $at
// returns: id
UNWIND $ids AS id
MATCH (m:Memory {id: id, tenant_id: $tenant})
WHERE coalesce(m.pinned, false) = false AND m.decay_class <> 'none' AND m.expires_at > $at
SET m.expires_at = $at, m.pruned_at = $at, m.indexed = false
WITH m
OPTIONAL MATCH (m)-[:ABOUT]->(e:Entity)
FOREACH (x IN CASE WHEN e IS NULL THEN [] ELSE [e] END | SET x.profile_stale = true)
RETURN DISTINCT m.id AS id
