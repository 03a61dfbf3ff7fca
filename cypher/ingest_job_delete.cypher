// Remove finished jobs.
// params: $tenant, $ids: [string]
// returns: id
UNWIND $ids AS id
MATCH (j:Job {id: id})
WHERE j.tenant_id = $tenant
DELETE j
RETURN id
