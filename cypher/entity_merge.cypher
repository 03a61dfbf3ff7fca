// Merge entities into $keep_id. Nothing moves: each dropped entity gets a MERGED_INTO link
// tagged with the merge id, reads follow the link, and undoing removes it.
// params: $tenant, $keep_id, $drop_ids, $merge {id, reason, at, by}
// returns: merged (ids of dropped entities linked)
MATCH (k:Entity {id: $keep_id, tenant_id: $tenant})
WHERE k.merged_into IS NULL
CREATE (mg:EntityMerge)
SET mg = $merge, mg.tenant_id = $tenant, mg.keep_id = k.id, mg.drop_ids = $drop_ids
WITH k, mg
UNWIND $drop_ids AS drop_id
MATCH (d:Entity {id: drop_id, tenant_id: $tenant})
WHERE d.merged_into IS NULL AND d.id <> k.id
CREATE (d)-[:MERGED_INTO {merge_id: mg.id, reason: mg.reason, at: mg.at}]->(k)
SET d.merged_into = k.id
RETURN collect(d.id) AS merged
