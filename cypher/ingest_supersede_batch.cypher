// Link already-created new memories as the successors of current old ones (corrections,
// new document versions). Old ones get superseded_by/superseded_at and are marked unindexed
// until their vector payload says so; each new one joins its predecessor's chain.
// params: $tenant, $pairs: [{old_id, new_id, reason}], $at
// returns: old_id, new_id (one row per link made; none when old is gone or already superseded)
UNWIND $pairs AS p
MATCH (old:Memory {id: p.old_id})
WHERE old.tenant_id = $tenant AND old.superseded_by IS NULL
MATCH (new:Memory {id: p.new_id})
WHERE new.tenant_id = $tenant
SET new.supersedes = old.id, new.chain_id = coalesce(old.chain_id, old.id)
SET old.superseded_by = new.id, old.superseded_at = $at, old.indexed = false
CREATE (old)-[:SUPERSEDED_BY {reason: p.reason, at: $at}]->(new)
RETURN old.id AS old_id, new.id AS new_id
