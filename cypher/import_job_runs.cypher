// Recreate lifecycle job reports (import).
// params: $tenant, $rows: [job run properties]
// returns: id
UNWIND $rows AS row
CREATE (r:JobRun)
SET r = row, r.tenant_id = $tenant
RETURN r.id AS id
