// Undo a duplicate merge: the loser is current again; the winner's importance goes back to
// what it was before this merge.
// params: $tenant, $loser_id, $at
// returns: loser_id, winner_id (no row when the memory is not a merged duplicate)
MATCH (l:Memory {id: $loser_id, tenant_id: $tenant})-[r:MERGED_INTO]->(w:Memory)
WHERE r.undone_at IS NULL AND l.merged_into = w.id
SET r.undone_at = $at, l.merged_into = null, l.superseded_by = null, l.superseded_at = null,
    l.indexed = false,
    w.importance = coalesce(r.winner_importance_before, w.importance), w.indexed = false
RETURN l.id AS loser_id, w.id AS winner_id
