// The layout job's view of a tenant: every memory's id and stored 3D position (null when it
// has none yet), oldest first.
// params: $tenant
// returns: id, layout
MATCH (m:Memory {tenant_id: $tenant})
RETURN m.id AS id, m.layout AS layout
ORDER BY m.created_at, m.id
