// Link new patterns to the episodes they summarize. The episodes stay current and visible:
// a pattern is a summary beside its sources, never a replacement, so a question whose answer
// is in one episode still finds it (and the pattern lists it: SUMMARIZES, summarized_by).
// params: $tenant, $rows: [{pattern_id, episode_ids}], $at
// returns: id (of each episode linked)
UNWIND $rows AS row
MATCH (p:Memory {id: row.pattern_id, tenant_id: $tenant})
UNWIND row.episode_ids AS eid
MATCH (m:Memory {id: eid, tenant_id: $tenant})
WHERE m.summarized_by IS NULL AND m.superseded_by IS NULL AND m.superseded_at IS NULL
CREATE (p)-[:SUMMARIZES {at: $at}]->(m)
SET m.summarized_by = p.id
RETURN DISTINCT m.id AS id
