// Record a job attempt's outcome.
// params: $tenant, $id, $status, $attempts, $error, $at
// returns: id
MATCH (j:Job {id: $id})
WHERE j.tenant_id = $tenant
SET j.status = $status, j.attempts = $attempts, j.error = $error, j.updated_at = $at
RETURN j.id AS id
