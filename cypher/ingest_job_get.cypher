// Jobs by id.
// params: $tenant, $ids: [string]
// returns: j (job properties)
UNWIND $ids AS id
MATCH (j:Job {id: id})
WHERE j.tenant_id = $tenant
RETURN properties(j) AS j
