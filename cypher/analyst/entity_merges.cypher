// Entity merges and their undo: each recorded merge of the tenant, newest first, with the
// entity kept, the ones merged into it, who merged and why, and when it was undone (if).
// Times are Cypher datetimes (UTC).
// params: $tenant
// returns: merge_id, kept_id, kept, dropped_ids, reason, by, at, undone_at
MATCH (g:EntityMerge)
WHERE g.tenant_id = $tenant
OPTIONAL MATCH (k:Entity {id: g.keep_id})
WHERE k.tenant_id = $tenant
RETURN g.id AS merge_id, g.keep_id AS kept_id, k.name AS kept, g.drop_ids AS dropped_ids,
       g.reason AS reason, g.by AS by, g.at AS at, g.undone_at AS undone_at
ORDER BY g.at DESC
