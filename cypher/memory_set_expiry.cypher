// Soft delete (forget): the memory stays in the graph but expires at $at.
// params: $tenant, $ids, $at
// returns: id
UNWIND $ids AS id
MATCH (m:Memory {id: id, tenant_id: $tenant})
SET m.expires_at = $at, m.indexed = false
RETURN m.id AS id
