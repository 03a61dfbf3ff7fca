// Duplicate merges that involve these memories (as loser or winner), undone ones included.
// params: $tenant, $ids
// returns: loser_id, winner_id, reason, similarity, at, undone_at
UNWIND $ids AS id
MATCH (l:Memory {tenant_id: $tenant})-[r:MERGED_INTO]->(w:Memory {tenant_id: $tenant})
WHERE l.id = id OR w.id = id
RETURN DISTINCT l.id AS loser_id, w.id AS winner_id, r.reason AS reason,
       r.similarity AS similarity, r.at AS at, r.undone_at AS undone_at
