// Pin or unpin memories; marked unindexed until the vector payload follows.
// params: $tenant, $ids, $pinned
// returns: id
UNWIND $ids AS id
MATCH (m:Memory {id: id, tenant_id: $tenant})
SET m.pinned = $pinned, m.indexed = false, m.pinned_key = CASE WHEN $pinned THEN $tenant END
RETURN m.id AS id
