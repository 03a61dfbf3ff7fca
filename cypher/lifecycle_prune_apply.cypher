// Soft prune: hide a restatement behind the live memory that carries its content (the first
// time it was said). Only while that memory is still current and live, so the statement
// always keeps one visible record. The pruned memory stays in the graph with the link.
// params: $tenant, $rows: [{id, carried_by}], $at
// returns: id
UNWIND $rows AS row
MATCH (keeper:Memory {id: row.carried_by, tenant_id: $tenant})
WHERE keeper.superseded_by IS NULL AND keeper.superseded_at IS NULL AND (keeper.expires_at IS NULL OR keeper.expires_at > $at)
MATCH (m:Memory {id: row.id, tenant_id: $tenant})
WHERE coalesce(m.pinned, false) = false AND (m.expires_at IS NULL OR m.expires_at > $at) AND m.id <> keeper.id
SET m.expires_at = $at, m.pruned_at = $at, m.carried_by = keeper.id, m.indexed = false
RETURN m.id AS id
