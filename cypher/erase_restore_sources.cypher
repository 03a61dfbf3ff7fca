// Erased patterns give their surviving source episodes back: no longer summarized, current
// again unless another cause hides them (a supersede, a duplicate merge), and unindexed until
// the vector payload says so. Runs before the patterns are deleted.
// params: $tenant, $ids (memories being erased)
// returns: id, superseded_at (of each source given back)
UNWIND $ids AS id
MATCH (p:Memory {id: id, tenant_id: $tenant})-[:SUMMARIZES]->(src:Memory)
WHERE src.tenant_id = $tenant AND NOT src.id IN $ids
WITH p, src,
     (src.superseded_by IS NULL OR src.superseded_by = p.id) AND src.merged_into IS NULL AS free
SET src.superseded_at = CASE WHEN free THEN null ELSE src.superseded_at END,
    src.superseded_by = CASE WHEN src.superseded_by = p.id THEN null ELSE src.superseded_by END,
    src.summarized_by = null,
    src.indexed = false
RETURN DISTINCT src.id AS id, src.superseded_at AS superseded_at
