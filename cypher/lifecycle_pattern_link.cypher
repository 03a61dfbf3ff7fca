// Link new patterns to the episodes they compress; the episodes stay in the graph, hidden from
// current reads (superseded_at = $at, superseded_by and summarized_by = the pattern).
// params: $tenant, $rows: [{pattern_id, episode_ids}], $at, $never
// returns: id (of each episode linked)
UNWIND $rows AS row
MATCH (p:Memory {id: row.pattern_id, tenant_id: $tenant})
UNWIND row.episode_ids AS eid
MATCH (m:Memory {id: eid, tenant_id: $tenant})
WHERE m.summarized_by IS NULL AND m.superseded_by IS NULL AND m.superseded_at >= $never
CREATE (p)-[:SUMMARIZES {at: $at}]->(m)
SET m.summarized_by = p.id, m.superseded_by = p.id, m.superseded_at = $at, m.indexed = false
WITH m
OPTIONAL MATCH (m)-[:ABOUT]->(e:Entity)
FOREACH (x IN CASE WHEN e IS NULL THEN [] ELSE [e] END | SET x.profile_stale = true)
RETURN DISTINCT m.id AS id
