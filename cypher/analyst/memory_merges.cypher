// Duplicate memories merged by the lifecycle, and their undo: each merged memory with the one
// it was folded into, the similarity and reason, newest first; an undone merge has undone_at.
// Times are Cypher datetimes (UTC).
// params: $tenant
// returns: merged_id, merged, into_id, into, similarity, reason, at, undone_at
MATCH (l:Memory)-[r:MERGED_INTO]->(w:Memory)
WHERE l.tenant_id = $tenant
RETURN l.id AS merged_id, l.content AS merged, w.id AS into_id, w.content AS into,
       r.similarity AS similarity, r.reason AS reason, r.at AS at, r.undone_at AS undone_at
ORDER BY r.at DESC
