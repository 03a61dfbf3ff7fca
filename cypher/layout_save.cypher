// Store 3D explorer positions computed by the layout job.
// params: $tenant, $rows: [{id, layout: [x, y, z]}]
// returns: id
UNWIND $rows AS row
MATCH (m:Memory {id: row.id, tenant_id: $tenant})
SET m.layout = row.layout
RETURN m.id AS id
