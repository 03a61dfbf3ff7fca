// Hide duplicates behind the memory that won: the loser keeps its record, links
// MERGED_INTO (reason, similarity, the winner's importance before) and stops being current
// (superseded_by names the winner: "current" reads everywhere test superseded_by IS NULL).
// params: $tenant, $rows: [{loser_id, winner_id, reason, similarity, importance, before}], $at
// returns: loser_id, winner_id
UNWIND $rows AS row
MATCH (l:Memory {id: row.loser_id, tenant_id: $tenant})
WHERE l.superseded_by IS NULL AND l.superseded_at IS NULL AND l.merged_into IS NULL
MATCH (w:Memory {id: row.winner_id, tenant_id: $tenant})
WHERE w.superseded_by IS NULL AND w.superseded_at IS NULL
CREATE (l)-[:MERGED_INTO {reason: row.reason, similarity: row.similarity, at: $at,
                          winner_importance_before: row.before}]->(w)
SET l.merged_into = w.id, l.superseded_by = w.id, l.superseded_at = $at, l.indexed = false,
    w.importance = row.importance, w.indexed = false
WITH l, w
OPTIONAL MATCH (l)-[:ABOUT]->(e:Entity)
FOREACH (x IN CASE WHEN e IS NULL THEN [] ELSE [e] END | SET x.profile_stale = true)
RETURN DISTINCT l.id AS loser_id, w.id AS winner_id
