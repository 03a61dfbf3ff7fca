// Undo a recorded merge: remove its MERGED_INTO links and mark it undone.
// params: $tenant, $merge_id, $at
// returns: restored (ids of entities split out again)
MATCH (mg:EntityMerge {id: $merge_id, tenant_id: $tenant})
WHERE mg.undone_at IS NULL
SET mg.undone_at = $at
WITH mg
OPTIONAL MATCH (d:Entity)-[r:MERGED_INTO]->(:Entity)
WHERE d.tenant_id = $tenant AND r.merge_id = mg.id
DELETE r
SET d.merged_into = null
RETURN collect(d.id) AS restored
