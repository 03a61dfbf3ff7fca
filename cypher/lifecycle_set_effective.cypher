// Store importance after decay (what the prune job and analysts read).
// params: $tenant, $rows: [{id, value}]
// returns: id
UNWIND $rows AS row
MATCH (m:Memory {id: row.id, tenant_id: $tenant})
SET m.effective_importance = row.value
RETURN m.id AS id
