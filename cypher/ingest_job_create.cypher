// Persist deferred jobs before they are acknowledged (a restart resumes them).
// params: $tenant, $rows: [{id, kind, payload (JSON text), status, attempts, created_at, updated_at}]
// returns: id
UNWIND $rows AS row
CREATE (j:Job)
SET j = row, j.tenant_id = $tenant
RETURN j.id AS id
