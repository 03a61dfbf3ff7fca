// Create or update the report of a lifecycle job run.
// params: $tenant, $id, $props {job, status, scope, trigger, started_at, finished_at, counts (JSON), error, resumed}
// returns: id
MERGE (r:JobRun {id: $id, tenant_id: $tenant})
SET r += $props
RETURN r.id AS id
